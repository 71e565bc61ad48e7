"""GET /reviews?state=pending|cleared|disqualified: the rides waiting for, or given, an admin's review (admin)."""

from alleycat.edge import http, views
from alleycat.rules.fairplay import REVIEW_STATES
from alleycat.storage import reviews

app = http.create_app()


@http.route(app, "get_reviews")
def get_reviews():
    http.require_admin(app)
    state = http.one_of(app, "state", REVIEW_STATES)
    limit, token = http.limit(app, 20, 100), http.next_token(app)
    page = reviews.list_reviews(state, limit, token)
    return http.respond({"state": state, "items": [views.review(item) for item in page.items],
                         "nextToken": page.next_token})


handler = http.lambda_handler(app)
