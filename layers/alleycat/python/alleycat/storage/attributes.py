"""DynamoDB attribute values <-> Python values, for the low-level client.

Numbers come back as ``int`` when integral and ``Decimal`` otherwise, so scores keep
their four decimals exactly. Faster than boto3's TypeDeserializer because it never
builds a Decimal for an integer and does no type sniffing on the way in.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any


def to_attr(value: Any) -> dict:
    if isinstance(value, str):
        return {"S": value}
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (int, Decimal)):
        return {"N": str(value)}
    if isinstance(value, float):
        return {"N": repr(value)}
    if value is None:
        return {"NULL": True}
    if isinstance(value, dict):
        return {"M": {k: to_attr(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [to_attr(v) for v in value]}
    if isinstance(value, (bytes, bytearray)):
        return {"B": bytes(value)}
    if isinstance(value, (set, frozenset)) and value and all(isinstance(v, int) for v in value):
        return {"NS": sorted(str(v) for v in value)}
    raise TypeError(f"cannot store {type(value).__name__}")


def _number(text: str) -> int | Decimal:
    if "." in text or "e" in text or "E" in text:
        return Decimal(text)
    return int(text)


def from_attr(attr: dict) -> Any:
    (kind, value), = attr.items()
    if kind == "S":
        return value
    if kind == "N":
        return _number(value)
    if kind == "M":
        return {k: from_attr(v) for k, v in value.items()}
    if kind == "L":
        return [from_attr(v) for v in value]
    if kind == "NULL":
        return None
    if kind == "BOOL":
        return value
    if kind == "B":  # bytes from boto3; base64 text in a Lambda stream event
        return base64.b64decode(value) if isinstance(value, str) else value
    if kind == "NS":
        return {_number(v) for v in value}
    if kind == "SS":
        return set(value)
    raise TypeError(f"unknown attribute kind {kind}")


def to_item(values: dict) -> dict:
    return {k: to_attr(v) for k, v in values.items() if v is not None}


def from_item(item: dict) -> dict:
    return {k: from_attr(v) for k, v in item.items()}
