"""The DynamoDB client and the few request shapes every table module shares."""

from __future__ import annotations

import os
import random
import time
from functools import lru_cache
from typing import Any

from . import entities as e
from . import keys
from .attributes import to_attr
from .errors import error_code, retryable, translate


@lru_cache(maxsize=1)
def client():
    import boto3  # deferred: only the first request pays for it
    from botocore.config import Config

    return boto3.client("dynamodb", config=Config(max_pool_connections=32, retries={"mode": "standard"}))


def table_name() -> str:
    return os.environ["TABLE_NAME"]


def values(**named: Any) -> dict:
    """ExpressionAttributeValues: ``values(score=3)`` -> ``{":score": {"N": "3"}}``."""
    return {f":{name}": to_attr(value) for name, value in named.items()}


def key_of(entity: e.Entity) -> dict:
    return {name: {"S": value} for name, value in entity.key.items()}


def key_from(entity_keys: keys.EntityKeys, **parts: Any) -> dict:
    return {name: {"S": value} for name, value in entity_keys.key(parts).items()}


# Our own retries of what DynamoDB throttled or cancelled for a conflict (botocore retries
# throttling of plain requests too, but never a cancelled transaction): full-jitter backoff,
# at most ~0.8 s in all, then the caller gets a 503 with Retry-After.
SEND_ATTEMPTS = 5
BACKOFF_BASE_SECONDS = 0.025
BACKOFF_CAP_SECONDS = 0.4


def backoff(attempt: int) -> float:
    return random.uniform(0, min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** attempt))


def send(operation: str, **request: Any) -> dict:
    """One request, sent again with backoff while DynamoDB answers with a retryable error;
    botocore's ClientError when it answers anything else or the attempts run out."""
    from botocore.exceptions import ClientError

    for attempt in range(SEND_ATTEMPTS):
        try:
            return getattr(client(), operation)(**request)
        except ClientError as error:
            if attempt == SEND_ATTEMPTS - 1 or not retryable(error):
                raise
            time.sleep(backoff(attempt))
    raise AssertionError("unreachable")


def call(operation: str, **request: Any) -> dict:
    """One request on the table; DynamoDB errors become domain errors."""
    return call_raw(operation, TableName=table_name(), **request)


def call_raw(operation: str, **request: Any) -> dict:
    """Like ``call`` for the requests that name the table inside (batches, transactions)."""
    from botocore.exceptions import ClientError

    try:
        return send(operation, **request)
    except ClientError as error:
        raise translate(error) from error


def conditional(operation: str, **request: Any) -> dict | None:
    """A conditional write; None when its condition was not met."""
    from botocore.exceptions import ClientError

    try:
        return send(operation, TableName=table_name(), **request)
    except ClientError as error:
        if error_code(error) == "ConditionalCheckFailedException":
            return None
        raise translate(error) from error


def get(entity_keys: keys.EntityKeys, consistent: bool = False, **parts: Any) -> e.Entity | None:
    item = call("get_item", Key=key_from(entity_keys, **parts), ConsistentRead=consistent).get("Item")
    return e.from_item(item) if item else None


def query_all(**request: Any) -> list[e.Entity]:
    """Every page of a Query: for the stream's work, never for an API read."""
    items = []
    while True:
        response = call("query", **request)
        items += e.from_items(response.get("Items", []))
        if "LastEvaluatedKey" not in response:
            return items
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def batch(operation: str, request_items: dict, leftover: str, attempts: int = 10) -> list[dict]:
    """A batch request, sent again (with backoff) for what DynamoDB left unprocessed."""
    responses = []
    for attempt in range(attempts):
        response = call_raw(operation, RequestItems=request_items)
        responses.append(response)
        request_items = response.get(leftover) or {}
        if not request_items:
            return responses
        time.sleep(0.05 * 2 ** attempt)
    raise RuntimeError(f"{operation} left items unprocessed after {attempts} attempts")
