"""PUT /classes/{classId}: create or update a class (admin)."""

from alleycat.edge import http, routes, views
from alleycat.rules import names
from alleycat.rules.samples import OUTPUT
from alleycat.storage import classes
from alleycat.storage.entities import Class

app = http.create_app()
SCHEMA = routes.by_function("put_class").request


@http.route(app, "put_class")
def put_class(classId: str):
    class_id = http.entity_id("classId", classId)
    http.require_admin(app)
    body = http.body(app, SCHEMA)
    klass = Class(class_id, names.display_name(body["name"]), body.get("description", ""), body.get("metric", OUTPUT))
    classes.put(klass)
    return http.respond(views.klass(klass))


handler = http.lambda_handler(app)
