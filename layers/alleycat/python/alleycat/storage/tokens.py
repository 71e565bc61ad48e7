"""Opaque page tokens: a page's LastEvaluatedKey, bound to the query it came from and signed.

A token is ``<payload>.<mac>``: the payload (base64url JSON) holds the start key and what
the next page must carry over (the racer's name on results pages); the MAC is an
HMAC-SHA256 of the query scope and the payload, under the current page-token key
(``alleycat.aws.page_keys``: a rotated secret deployed, its previous and next keys accepted too). So a
token cannot be forged or altered, nor used for another query. Its size and text are checked before the MAC, and
its key after it (in the queried partition, parsing with the expected templates, within
DynamoDB's key limits): anything else is a 400, never a 500.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from alleycat.aws import page_keys
from alleycat.errors import BadRequest
from alleycat.storage.keys import EntityKeys, InvalidKey

MAC_BYTES = 16
MAX_TOKEN_CHARS = 4096
# DynamoDB's limits on a key attribute (UTF-8 bytes); a start key past them is a ValidationException.
MAX_KEY_BYTES = {"PK": 2048, "SK": 1024}


@dataclass
class Start:
    """Where the next page starts, and what the previous page handed on."""

    key: dict
    carry: dict = field(default_factory=dict)


def encode(last_key: dict | None, scope: str, carry: dict | None = None) -> str | None:
    if not last_key:
        return None
    body = {"k": {name: value["S"] for name, value in last_key.items()}}
    if carry:
        body["c"] = carry
    payload = _b64(json.dumps(body, separators=(",", ":")).encode())
    return f"{payload}.{_b64(_mac(page_keys.keys().current, scope, payload))}"


def decode(token: str | None, scope: str, partition: dict[str, str], entities: Iterable[EntityKeys],
           sort_prefix: str = "") -> Start | None:
    """Where the page a token stands for starts, or BadRequest.

    ``partition`` names the key attribute and value the query is pinned to (for the
    inverted index that is ``SK``); ``entities`` lists the item types the query returns;
    a query on a prefix of the sort key passes it as ``sort_prefix``.
    """
    if token is None:
        return None
    invalid = BadRequest("nextToken is not valid for this request")
    if len(token) > MAX_TOKEN_CHARS or not token.isascii() or token.count(".") != 1:
        raise invalid
    payload, mac = token.split(".")
    try:
        given = _unb64(mac)
        if not any(hmac.compare_digest(given, _mac(key, scope, payload)) for key in page_keys.keys().accepted):
            raise invalid
        body = json.loads(_unb64(payload))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError):
        raise invalid from None
    if not isinstance(body, dict) or set(body) - {"k", "c"} or not isinstance(body.get("k"), dict) \
            or not isinstance(body.get("c", {}), dict):
        raise invalid
    plain = body["k"]
    if set(plain) != {"PK", "SK"} or not all(_storable(plain[name], MAX_KEY_BYTES[name]) for name in plain):
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
    return Start({name: {"S": value} for name, value in plain.items()}, body.get("c", {}))


def _storable(value, max_bytes: int) -> bool:
    """Text DynamoDB takes as a key: valid UTF-8 (no lone surrogate), 1 to ``max_bytes`` bytes."""
    if not isinstance(value, str):
        return False
    try:
        return 0 < len(value.encode()) <= max_bytes
    except UnicodeEncodeError:
        return False


def _mac(key: str, scope: str, payload: str) -> bytes:
    message = scope.encode("utf-8", "surrogatepass") + b"\n" + payload.encode()
    return hmac.new(key.encode(), message, hashlib.sha256).digest()[:MAC_BYTES]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    if not text or not all(c.isalnum() or c in "-_" for c in text):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
