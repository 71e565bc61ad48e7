"""One page of a list: one DynamoDB Query, and the signed token that starts the next page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from alleycat.storage import entities as e
from alleycat.storage.dynamo import send, values
from alleycat.storage.schema import PARTITION_KEY, SORT_KEY


@dataclass
class Page:
    items: list
    next_token: str | None
    carried: dict = field(default_factory=dict)  # what the previous page's token handed on
    last_key: dict | None = None


def start_of(token: str | None, scope: str, partition: dict[str, str], entity_keys, sort_prefix: str = ""):
    """Where the page ``token`` stands for starts (``tokens.Start``), or None for page 1; 400 if forged."""
    return _tokens().decode(token, scope, partition, entity_keys, sort_prefix) if token is not None else None


def query(scope: str, token: str | None, entity_keys, *, index: str | None = None,
          partition: str, condition: str = "", limit: int, forward: bool = False,
          consistent: bool = False, sort_prefix: str = "", start=..., carry: dict | None = None, **named: Any) -> Page:
    """``limit`` items of the partition (and ``condition`` on the sort key), from where ``token`` says
    (or ``start``, when the caller decoded the token first to read what it carries); the next page's
    token carries ``carry``."""
    key_attr = "SK" if index else "PK"
    if start is ...:
        start = start_of(token, scope, {key_attr: partition}, entity_keys, sort_prefix)
    request = {
        "KeyConditionExpression": f"{key_attr} = :partition" + (f" AND {condition}" if condition else ""),
        "ExpressionAttributeValues": values(partition=partition, **named),
        "ScanIndexForward": forward,
        "Limit": limit + 1,  # one more than the page: a full last page then needs no token
    }
    if consistent:
        request["ConsistentRead"] = True
    if index:
        request["IndexName"] = index
    if start:
        request["ExclusiveStartKey"] = start.key
    items = send("query", **request).get("Items", [])
    last_key = {name: items[limit - 1][name] for name in (PARTITION_KEY, SORT_KEY)} if len(items) > limit else None
    return Page(e.from_items(items[:limit]), next_token(last_key, scope, carry), start.carry if start else {}, last_key)


def next_token(last_key: dict | None, scope: str, carry: dict | None = None) -> str | None:
    return _tokens().encode(last_key, scope, carry) if last_key else None


def _tokens():
    from alleycat.storage import (
        tokens,  # deferred: only paged reads sign tokens, and only past their first or last page
    )

    return tokens
