"""GET /classes: every class, by classId."""

from alleycat.edge import caching, http, views
from alleycat.storage import catalog

app = http.create_app()


@http.route(app, "get_classes")
def get_classes():
    page = catalog.list_classes(http.limit(app, 50, 100), http.next_token(app))
    return http.respond({"items": [views.klass(card) for card in page.items], "nextToken": page.next_token},
                        cache=caching.LISTING)


handler = http.lambda_handler(app)
