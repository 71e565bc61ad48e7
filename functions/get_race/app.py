"""GET /races/{raceId}: one race."""

from alleycat.edge import caching, http, views
from alleycat.errors import NotFound
from alleycat.storage import races

app = http.create_app()


@http.route(app, "get_race")
def get_race(raceId: str):
    race = races.get(http.race_id(raceId))
    if race is None:
        raise NotFound(f"race {raceId} does not exist")
    return http.respond(views.race(race), cache=caching.race(race.status))


handler = http.lambda_handler(app)
