"""POST /classes/{classId}/races: schedule a race in a class (admin)."""

from alleycat import ids
from alleycat.edge import http, routes, views
from alleycat.errors import NotFound
from alleycat.rules import fanin
from alleycat.storage import classes, races
from alleycat.storage.entities import Race

app = http.create_app()
SCHEMA = routes.by_function("create_race").request


@http.route(app, "create_race")
def create_race(classId: str):
    class_id = http.entity_id("classId", classId)
    http.require_admin(app)
    body = http.body(app, SCHEMA)
    duration = int(body.get("durationSeconds", 300))
    starts_at = races.starts_at(body["startsAt"], duration, http.request_time(app))
    request_key = http.idempotency_key(app)
    klass = classes.get(class_id, consistent=True)
    if klass is None:
        raise NotFound(f"class {class_id} does not exist")
    race = races.create(Race(ids.new_race_id(), class_id, klass.name, starts_at, duration, metric=klass.metric,
                             slices=fanin.SLICES),
                        request_key, classes.races_fixed_metric(klass))
    return http.respond(views.race_created(race), status=201)


handler = http.lambda_handler(app)
