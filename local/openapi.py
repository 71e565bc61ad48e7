"""The API as an OpenAPI 3.1 document, built from the route table and the layer's JSON schemas.

``python -m local.openapi`` writes docs/openapi.json; the local stack serves it at /openapi.json.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from alleycat.catalog import STATES
from alleycat.contract import ERROR, ID, RACE_ID, REQUESTS, RESPONSES
from alleycat.routes import ROUTES

DOCUMENT = Path(__file__).resolve().parent.parent / "docs" / "openapi.json"
PARAMETERS = {"racerId": ID, "classId": ID, "raceId": RACE_ID}
# Query parameters other than plain text.
QUERY_SCHEMAS = {"raceId": RACE_ID, "state": {"type": "string", "enum": list(STATES)}}
ERRORS = {400: "invalid input (the message names it)", 401: "no valid credentials", 403: "not allowed for this caller",
          404: "no such racer, class or race", 409: "conflicts with the state (e.g. the race is finished)",
          413: "body larger than 256 KiB", 503: "DynamoDB is busy: retry after Retry-After seconds"}


def _errors(route) -> dict:
    codes = [400, 404, 503] + ([401, 403, 413] if route.protected else [])
    if route.function in ("join_race", "post_telemetry"):
        codes.append(409)
    return {str(code): {"description": ERRORS[code], "content": {"application/json": {"schema": {
        "$ref": "#/components/schemas/Error"}}}} for code in sorted(codes)}


def document() -> dict:
    paths: dict = {}
    for route in ROUTES:
        status, schema = RESPONSES[route.function]
        operation = {
            "operationId": route.function,
            "parameters": [{"name": name, "in": "path", "required": True, "schema": PARAMETERS[name]}
                           for name in re.findall(r"\{(\w+)\}", route.path)]
            + [{"name": name, "in": "query", "required": name in route.required,
                "schema": QUERY_SCHEMAS.get(name, {"type": "string"})}
               for name in route.query],
            "responses": {str(status): {"description": "success", "content": {"application/json": {"schema": schema}}},
                          **_errors(route)},
        }
        if route.function in REQUESTS:
            operation["requestBody"] = {"required": True,
                                        "content": {"application/json": {"schema": REQUESTS[route.function]}}}
        if route.protected:
            operation["security"] = [{"bearer": []}]
        if route.function in ("create_race", "post_telemetry"):
            operation["parameters"].append({"name": "Idempotency-Key", "in": "header", "required": False,
                                            "schema": ID})
        paths.setdefault(route.path, {})[route.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "Alleycat", "version": "1",
                 "description": "Home-fitness racing API (contract v1.1: ../shared/spec/api.md)."},
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
