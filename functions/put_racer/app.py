"""PUT /racers/{racerId}: create or rename a racer (that racer or an admin)."""

from alleycat.edge import http, routes, views
from alleycat.rules import names
from alleycat.storage import racers
from alleycat.storage.entities import Racer

app = http.create_app()
SCHEMA = routes.by_function("put_racer").request


@http.route(app, "put_racer")
def put_racer(racerId: str):
    racer_id = http.entity_id("racerId", racerId)
    http.require_self_or_admin(app, racer_id)
    racer = Racer(racer_id, names.display_name(http.body(app, SCHEMA)["name"]))
    racers.put(racer)
    return http.respond(views.racer(racer))


handler = http.lambda_handler(app)
