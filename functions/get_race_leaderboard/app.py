"""GET /races/{raceId}/leaderboard: the race's racers, highest score first."""

from alleycat.edge import caching, http, views
from alleycat.errors import NotFound
from alleycat.rules.fairplay import REAL_ONLY
from alleycat.storage import races

app = http.create_app()


@http.route(app, "get_race_leaderboard")
def get_race_leaderboard(raceId: str):
    race_id = http.race_id(raceId)
    limit = http.limit(app, 10, 1000)
    real_only = app.current_event.get_query_string_value("equipment") is not None and \
        http.one_of(app, "equipment", (REAL_ONLY,)) == REAL_ONLY
    race, boards = races.with_boards(race_id)
    if race is None:
        raise NotFound(f"race {race_id} does not exist")
    return http.respond(views.race_leaderboard(race, boards, limit, real_only),
                        cache=caching.race_leaderboard(race.status))


handler = http.lambda_handler(app)
