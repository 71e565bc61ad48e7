"""POST /classes/{classId}/races: schedule a race in a class (admin)."""

import re
from datetime import datetime, timezone

from alleycat import classes, clock, http, ids, races, routes, views
from alleycat.entities import Race
from alleycat.errors import BadRequest, NotFound

app = http.create_app()
SCHEMA = routes.by_function("create_race").request


# Exactly what the contract shows (fromisoformat alone lets a NUL or other odd characters through).
UTC_TIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?Z", re.ASCII)


def _utc(text: str) -> str:
    try:
        moment = datetime.fromisoformat(text) if UTC_TIME.fullmatch(text) else None
    except ValueError:
        moment = None
    if moment is None:
        raise BadRequest("startsAt must be an ISO 8601 time in UTC ending in Z, e.g. 2026-11-22T10:00:00Z")
    return moment.astimezone(timezone.utc).strftime(clock.UTC_FORMAT)


@http.route(app, "create_race")
def create_race(classId: str):
    class_id = http.entity_id("classId", classId)
    http.require_admin(app)
    body = http.body(app, SCHEMA)
    starts_at = _utc(body["startsAt"])
    request_key = http.idempotency_key(app)
    klass = classes.get(class_id, consistent=True)
    if klass is None:
        raise NotFound(f"class {class_id} does not exist")
    race = Race(ids.new_race_id(), class_id, klass.name, starts_at, int(body.get("durationSeconds", 300)))
    race = races.create(race, request_key)
    return http.respond(views.race_created(race), status=201)


handler = http.lambda_handler(app)
