"""GET /races/{raceId}/replay: a settled race second by second, every racer's cumulative score."""

from alleycat.edge import caching, http, views
from alleycat.errors import Conflict, NotFound
from alleycat.storage import replays
from alleycat.storage.entities import FINISHED, ReplayPart

app = http.create_app()


@http.route(app, "get_race_replay")
def get_race_replay(raceId: str):
    race_id = http.race_id(raceId)
    race, boards, parts = replays.with_board(race_id)
    if race is None:
        raise NotFound(f"race {race_id} does not exist")
    if race.status != FINISHED:
        raise Conflict(f"race {race_id} is not finished: its replay is there once it is finished and its results are final")
    racers = {racer_id for shard in boards for racer_id in shard.standings}
    rows = {racer_id for part in parts for racer_id in part.rows}
    if not race.settled or len(parts) != ReplayPart.count_for(len(racers)) or not racers <= rows:
        raise Conflict(f"race {race_id} is finished and its results are being made final: its replay is there in a few seconds")
    return http.respond(views.replay(race, boards, parts), cache=caching.SETTLED)


handler = http.lambda_handler(app)
