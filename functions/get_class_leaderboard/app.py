"""GET /classes/{classId}/leaderboard: each racer's best score in the class, best first."""

from alleycat.edge import caching, http, views
from alleycat.errors import NotFound
from alleycat.storage import classes

app = http.create_app()


@http.route(app, "get_class_leaderboard")
def get_class_leaderboard(classId: str):
    class_id = http.entity_id("classId", classId)
    limit = http.limit(app, 10, 1000)
    klass, board = classes.leaderboard(class_id)
    if klass is None:
        raise NotFound(f"class {class_id} does not exist")
    return http.respond(views.class_leaderboard(klass, board, limit), cache=caching.LIVE)


handler = http.lambda_handler(app)
