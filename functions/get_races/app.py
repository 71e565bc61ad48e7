"""GET /races?state=upcoming|live|finished: the races of every class in that state."""

from alleycat import clock
from alleycat.edge import caching, http, views
from alleycat.storage import catalog

app = http.create_app()


@http.route(app, "get_races")
def get_races():
    state = http.one_of(app, "state", catalog.STATES)
    limit, token = http.limit(app, 20, 100), http.next_token(app)
    page = catalog.list_races(state, clock.iso(http.request_time(app)), limit, token)
    return http.respond({"state": state, "items": [views.race_card(card) for card in page.items],
                         "nextToken": page.next_token}, cache=caching.LISTING)


handler = http.lambda_handler(app)
