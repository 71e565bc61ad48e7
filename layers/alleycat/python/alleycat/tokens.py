"""Opaque page tokens: a page's LastEvaluatedKey, bound to the query it came from.

A token is validated before use: it must decode, name the same query scope, start
inside the queried partition and carry keys that parse with the expected templates.
Anything else is a 400, never a 500.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Iterable

from .errors import BadRequest
from .keys import EntityKeys, InvalidKey


def encode(last_key: dict | None, scope: str) -> str | None:
    if not last_key:
        return None
    plain = {name: value["S"] for name, value in last_key.items()}
    raw = json.dumps({"q": scope, "k": plain}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode(token: str | None, scope: str, partition: dict[str, str], entities: Iterable[EntityKeys],
           sort_prefix: str = "") -> dict | None:
    """The ExclusiveStartKey a token stands for, or BadRequest.

    ``partition`` names the key attribute and value the query is pinned to (for the
    inverted index that is ``SK``); ``entities`` lists the item types the query returns;
    a query on a prefix of the sort key passes it as ``sort_prefix``.
    """
    if token is None:
        return None
    invalid = BadRequest("nextToken is not valid for this request")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        body = json.loads(raw)
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        raise invalid from None
    if not isinstance(body, dict) or body.get("q") != scope or not isinstance(body.get("k"), dict):
        raise invalid
    plain = body["k"]
    if set(plain) != {"PK", "SK"} or not all(isinstance(v, str) for v in plain.values()):
        raise invalid
    (name, value), = partition.items()
    sort_name = "SK" if name == "PK" else "PK"
    if plain[name] != value or not plain[sort_name].startswith(sort_prefix):
        raise invalid
    for entity in entities:
        try:
            entity.parse(plain)
            break
        except InvalidKey:
            continue
    else:
        raise invalid
    return {name: {"S": value} for name, value in plain.items()}
