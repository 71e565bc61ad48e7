"""GET /racers/{racerId}/history: the racer's samples, second by second, per race."""

from alleycat.edge import caching, http, views
from alleycat.errors import NotFound
from alleycat.storage import racers

app = http.create_app()


@http.route(app, "get_racer_history")
def get_racer_history(racerId: str):
    racer_id = http.entity_id("racerId", racerId)
    raw_race = app.current_event.get_query_string_value("raceId")
    race_id = http.race_id(raw_race) if raw_race is not None else None
    token = http.next_token(app)
    page = racers.history(racer_id, race_id, token)
    if race_id and not page.items:  # chunk 0 is written on joining: no chunk, not in the race
        raise NotFound(f"racer {racer_id} is not in race {race_id}")
    # A racer with no race at all: the one case that needs a second read, to tell no races from no racer.
    if not page.items and token is None and racers.get(racer_id) is None:
        raise NotFound(f"racer {racer_id} does not exist")
    return http.respond({"racerId": racer_id, "races": views.history(page.items), "nextToken": page.next_token},
                        cache=caching.LIVE)


handler = http.lambda_handler(app)
