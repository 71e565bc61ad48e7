"""POST /races/{raceId}/finish: close a race (admin, idempotent); the stream processor ranks it."""

from alleycat.edge import http
from alleycat.errors import NotFound
from alleycat.storage import races

app = http.create_app()


@http.route(app, "finish_race")
def finish_race(raceId: str):
    race_id = http.race_id(raceId)
    http.require_admin(app)
    race = races.get(race_id, consistent=True)
    if race is None:
        raise NotFound(f"race {race_id} does not exist")
    races.finish(race)
    return http.respond({"raceId": race_id, "status": "finished"})


handler = http.lambda_handler(app)
