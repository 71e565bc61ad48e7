"""PUT /races/{raceId}/racers/{racerId}: join a racer to an open race (that racer or an admin)."""

from alleycat.edge import http, routes, views
from alleycat.errors import Conflict, NotFound
from alleycat.rules.fairplay import BIKE, refused_equipment
from alleycat.storage import races
from alleycat.storage.entities import FINISHED, Race, RaceGate

app = http.create_app()
SCHEMA = routes.by_function("join_race").request


@http.route(app, "join_race")
def join_race(raceId: str, racerId: str):
    racer_id = http.entity_id("racerId", racerId)
    race_id = http.race_id(raceId)
    http.require_self_or_admin(app, racer_id)
    body = http.body(app, SCHEMA, optional=True)
    gate, racer = races.gate_and_racer(race_id, racer_id)
    race: RaceGate | Race | None = gate
    if gate is None or gate.startsAt is None:  # no gate, or one from before v1.2: the race item says
        race = races.get(race_id, consistent=True)
    if race is None:
        raise NotFound(f"race {race_id} does not exist")
    if racer is None:
        raise NotFound(f"racer {racer_id} does not exist")
    if race.status == FINISHED:
        raise Conflict(f"race {race_id} is finished")
    equipment = body.get("equipment", BIKE)
    refused = refused_equipment(race.metric, equipment)
    if refused:
        raise Conflict(refused)
    joined = races.join(race, racer, equipment, body.get("device"), http.request_time(app))
    return http.respond(views.joined(joined))


handler = http.lambda_handler(app)
