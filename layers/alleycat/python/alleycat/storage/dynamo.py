"""The DynamoDB client and the few request shapes every table module shares."""

from __future__ import annotations

import gc
import os
import random
import time
from functools import lru_cache
from typing import Any

from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.attributes import to_attr
from alleycat.errors import Busy, error_code, in_conflict, translate


# Every call must end well inside the API functions' 10 s timeout: a stalled connection or
# read gives up after CONNECT/READ seconds, and botocore's standard-mode retries (throttling,
# timeouts, 5xx: at most ATTEMPTS tries, backing off up to 1 s then 2 s) bound one call at
# ATTEMPTS * (CONNECT + READ) + 3 = 9 s. Then the caller gets a 503 with Retry-After.
CONNECT_TIMEOUT_SECONDS = 0.5
READ_TIMEOUT_SECONDS = 1.5
ATTEMPTS = 3
# Only an embedded engine on a busy laptop (the local stack) may wait longer than DynamoDB needs.
READ_TIMEOUT_VARIABLE = "DYNAMODB_READ_TIMEOUT_SECONDS"


def config(environ=os.environ):
    from botocore.config import Config

    return Config(max_pool_connections=32, connect_timeout=CONNECT_TIMEOUT_SECONDS,
                  read_timeout=float(environ.get(READ_TIMEOUT_VARIABLE, READ_TIMEOUT_SECONDS)),
                  retries={"mode": "standard", "total_max_attempts": ATTEMPTS})


@lru_cache(maxsize=1)
def client():
    """The process's client, made at its first request (a cold start's handler import does not pay
    for it). Made by botocore, as ``boto3.client`` makes it, without importing boto3 itself (its
    resources and S3 transfer manager: ~25 ms of a cold start on python3.13, docs/cold-start.md)."""
    freeze_startup_objects()
    import botocore.session

    return botocore.session.Session().create_client("dynamodb", config=config())


_frozen = False


def freeze_startup_objects() -> None:
    """Once per process, before botocore's import: ``gc.freeze()`` what the handler's imports made
    (modules, classes, the Logger and Metrics: all kept for the process's life), so the collections
    that botocore's import and the client set off do not walk them again (~10 ms of a cold start).
    Refcounting still frees any of them that is dropped; only a cycle among them would stay."""
    global _frozen
    if not _frozen:
        gc.freeze()
        _frozen = True


def table_name() -> str:
    return os.environ["TABLE_NAME"]


def values(**named: Any) -> dict:
    """ExpressionAttributeValues: ``values(score=3)`` -> ``{":score": {"N": "3"}}``."""
    return {f":{name}": to_attr(value) for name, value in named.items()}


def key_of(entity: e.Entity) -> dict:
    return {name: {"S": value} for name, value in entity.key.items()}


def key_from(entity_keys: keys.EntityKeys, **parts: Any) -> dict:
    return {name: {"S": value} for name, value in entity_keys.key(parts).items()}


# botocore retries throttled requests, never a transaction cancelled for a conflict: those
# are sent again here, with full-jitter backoff, for at most about a second, then the
# caller gets a 503 with Retry-After.
CONFLICT_RETRY_SECONDS = 1.0
BACKOFF_BASE_SECONDS = 0.025
BACKOFF_CAP_SECONDS = 0.4


def backoff(attempt: int) -> float:
    return random.uniform(0, min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** attempt))


def send(operation: str, **request: Any) -> dict:
    """One request, sent again with backoff while a transaction conflict cancels it; botocore's
    ClientError when DynamoDB answers anything else or the conflicts outlast the retries.
    A connection that fails or stalls past botocore's retries is a ``Busy`` (503)."""
    from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

    give_up = time.monotonic() + CONFLICT_RETRY_SECONDS
    attempt = 0
    while True:
        try:
            return getattr(client(), operation)(**request)
        except ClientError as error:
            pause = backoff(attempt)
            if not in_conflict(error) or time.monotonic() + pause > give_up:
                raise
            time.sleep(pause)
            attempt += 1
        except (ConnectionError, HTTPClientError) as error:
            raise Busy("the database did not answer in time, please retry") from error


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


BATCH_GET_KEYS = 100  # DynamoDB's limit for one BatchGetItem


def get_all(wanted: list[dict]) -> list[e.Entity]:
    """The items under ``wanted`` keys that exist, strongly consistent, 100 keys per BatchGetItem
    (several at once when there are more: the stream's read of a 1,000-racer batch is 20)."""
    from alleycat.storage import parallel

    def page(keys_of_page: list[dict]) -> list[e.Entity]:
        request = {table_name(): {"ConsistentRead": True, "Keys": keys_of_page}}
        return [item for response in batch("batch_get_item", request, "UnprocessedKeys")
                for item in e.from_items(response["Responses"].get(table_name(), []))]

    pages = [wanted[start:start + BATCH_GET_KEYS] for start in range(0, len(wanted), BATCH_GET_KEYS)]
    if len(pages) > 1:
        client()  # made once, before the threads share it
    return [item for found in parallel.map_all(page, pages, workers=8) for item in found]
