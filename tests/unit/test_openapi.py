"""docs/openapi.json is the document the route table and the layer's schemas make."""

from jsonschema import Draft202012Validator

from alleycat.edge.routes import ROUTES
from local import openapi


def test_the_committed_document_is_the_generated_one():
    assert openapi.DOCUMENT.read_text() == openapi.text(), "run: .venv/bin/python -m local.openapi"


def test_every_route_is_documented_with_valid_schemas():
    document = openapi.document()
    assert document["openapi"].startswith("3.1")
    for route in ROUTES:
        operation = document["paths"][route.path][route.method.lower()]
        for answer in operation["responses"].values():
            schema = answer["content"]["application/json"]["schema"]
            Draft202012Validator.check_schema(schema)
        assert "503" in operation["responses"] and ("401" in operation["responses"]) == route.protected
