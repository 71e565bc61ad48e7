"""The API as an OpenAPI 3.1 document, built from the route records (their schemas, error statuses, headers).

``python -m local.openapi`` writes docs/openapi.json; the local stack serves it at /openapi.json.
"""

from __future__ import annotations

import json
from pathlib import Path

from alleycat.edge.contract import ERROR, ID, RACE_ID
from alleycat.edge.routes import ROUTES, Route
from alleycat.storage.catalog import STATES

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "openapi.json"
PARAMETERS = {"racerId": ID, "classId": ID, "raceId": RACE_ID}
# Query parameters other than plain text.
QUERY_SCHEMAS = {"raceId": RACE_ID, "state": {"type": "string", "enum": list(STATES)}}
HEADER_SCHEMAS = {"Idempotency-Key": ID}


def _errors(route: Route) -> dict:
    return {str(status): {"description": meaning, "content": {"application/json": {"schema": {
        "$ref": "#/components/schemas/Error"}}}} for status, meaning in route.error_statuses.items()}


def document() -> dict:
    paths: dict = {}
    for route in ROUTES:
        operation = {
            "operationId": route.function,
            "parameters": [{"name": name, "in": "path", "required": True, "schema": PARAMETERS[name]}
                           for name in route.parameters]
            + [{"name": name, "in": "query", "required": name in route.required,
                "schema": QUERY_SCHEMAS.get(name, {"type": "string"})}
               for name in route.query]
            + [{"name": name, "in": "header", "required": False, "schema": HEADER_SCHEMAS[name]}
               for name in route.headers],
            "responses": {str(route.status): {"description": "success",
                                              "content": {"application/json": {"schema": route.response}}},
                          **_errors(route)},
        }
        if route.request is not None:
            operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": route.request}}}
        if route.protected:
            operation["security"] = [{"bearer": []}]
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Alleycat", "version": "1",
                 "description": "Home-fitness racing API (contract v1.2: ../shared/spec/api.md)."},
        "paths": paths,
        "components": {"schemas": {"Error": ERROR},
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                                      "description": "A Cognito access token (the site signs in with the user pool; POST /local/token locally)"}}},
    }


def text() -> str:
    return json.dumps(document(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    DOCUMENT.write_text(text())
    print(f"wrote {DOCUMENT}")
