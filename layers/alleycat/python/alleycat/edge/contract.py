"""The contract's vocabulary (``../shared/spec/api.md``): what its JSON schemas are built of, its
error shape and statuses with what each means, and the group whose members may do every write.

Each route's own request and response schemas are in its record (``alleycat.edge.routes``), made of
these; ``local.openapi`` builds docs/openapi.json from the records, the fuzz tests check every
answer against that document.
"""

from __future__ import annotations

ID = {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$"}
RACE_ID = {"type": "string", "pattern": "^[0-9A-HJKMNP-TV-Z]{26}$"}
NAME = {"type": "string", "minLength": 1, "maxLength": 80}
TEXT = {"type": "string"}
TIME = TEXT
NUMBER = {"type": "number"}
NUMBER_OR_NULL = {"type": ["number", "null"]}
COUNT = {"type": "integer", "minimum": 0}
SECOND_OR_NULL = {"type": ["integer", "null"], "minimum": 0}
STATUS = {"type": "string", "enum": ["open", "finished"]}
TOKEN = {"type": ["string", "null"]}
TEXT_OR_NULL = {"type": ["string", "null"]}
RANK_OR_NULL = {"type": ["integer", "null"], "minimum": 1}
EQUIPMENT = {"type": "string", "enum": ["bike", "trainer", "virtual"]}
REVIEW = {"type": "string", "enum": ["pending", "cleared", "disqualified"]}
METRIC = {"type": "string", "enum": ["output", "power"]}
REVIEW_OR_NULL = {"type": ["string", "null"], "enum": ["pending", "cleared", "disqualified", None]}


def obj(properties: dict, required: list | None = None) -> dict:
    """A JSON object of these properties; all of them required unless ``required`` says which."""
    return {"type": "object", "required": list(properties) if required is None else required,
            "properties": properties}


def array(item: dict) -> dict:
    return {"type": "array", "items": item}


ERROR = obj({"message": {"type": "string", "minLength": 1}}, ["message"])

# Every error status the API answers, and what it means (each route's record says which it may answer).
ERRORS = {400: "invalid input (the message names it)", 401: "no valid credentials", 403: "not allowed for this caller",
          404: "no such racer, class or race", 409: "conflicts with the state (e.g. the race is finished)",
          413: "body larger than 256 KiB",
          422: "an Idempotency-Key reused with a different body (the first request's effect stands)",
          503: "DynamoDB is busy: retry after Retry-After seconds"}

# Members may act on others' resources (the contract's "group admin may do every write"); their
# tokens carry it only once they have TOTP (functions/token_groups). The stack makes the group.
ADMIN_GROUP = "admin"
