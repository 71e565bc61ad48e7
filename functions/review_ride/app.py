"""POST /races/{raceId}/racers/{racerId}/review: an admin clears or disqualifies a ride (idempotent)."""

from alleycat import clock
from alleycat.edge import http, routes, views
from alleycat.errors import NotFound
from alleycat.rules.fairplay import DECISIONS
from alleycat.storage import racers, reviews

app = http.create_app()
SCHEMA = routes.by_function("review_ride").request


@http.route(app, "review_ride")
def review_ride(raceId: str, racerId: str):
    race_id, racer_id = http.race_id(raceId), http.entity_id("racerId", racerId)
    http.require_admin(app)
    body = http.body(app, SCHEMA)

    def entry():
        return racers.get_entry(race_id, racer_id, consistent=True)

    found = entry()
    if found is None:
        raise NotFound(f"racer {racer_id} is not in race {race_id}")
    decided = reviews.decide(found, DECISIONS[body["decision"]], body.get("note", ""),
                             clock.iso_ms(http.request_time(app)), entry)
    return http.respond(views.review(decided))


handler = http.lambda_handler(app)
