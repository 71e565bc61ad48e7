"""GET /racers/{racerId}/results: the racer's races, newest first."""

from alleycat.edge import caching, http, views
from alleycat.errors import NotFound
from alleycat.storage import racers

app = http.create_app()


@http.route(app, "get_racer_results")
def get_racer_results(racerId: str):
    racer_id = http.entity_id("racerId", racerId)
    token = http.next_token(app)
    racer, page = racers.results(racer_id, http.limit(app, 20, 100), token)
    if racer is None and token is None:
        raise NotFound(f"racer {racer_id} does not exist")
    name = racer.name if racer else next((entry.name for entry in page.items), None)
    return http.respond({"racerId": racer_id, "name": name,
                         "items": [views.result(entry) for entry in page.items],
                         "nextToken": page.next_token}, cache=caching.LIVE)


handler = http.lambda_handler(app)
