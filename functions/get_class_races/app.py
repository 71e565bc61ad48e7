"""GET /classes/{classId}/races: the class's races, newest first."""

from alleycat.edge import caching, http, views
from alleycat.errors import NotFound
from alleycat.storage import classes

app = http.create_app()


@http.route(app, "get_class_races")
def get_class_races(classId: str):
    class_id = http.entity_id("classId", classId)
    token = http.next_token(app)
    klass, page = classes.races(class_id, http.limit(app, 20, 100), token)
    if klass is None and not page.items and token is None:
        raise NotFound(f"class {class_id} does not exist")
    name = klass.name if klass else page.items[0].className if page.items else None
    return http.respond({"classId": class_id, "name": name,
                         "items": [views.race_in_class(race) for race in page.items],
                         "nextToken": page.next_token}, cache=caching.LISTING)


handler = http.lambda_handler(app)
