"""The one way to DynamoDB: the process's client, ``send`` (every request, with its named outcomes)
and the few request shapes every table module shares.

``send`` answers DynamoDB's response, or raises what the request came to:
- ``ConditionFailed``: a write's condition was not met (with the item as stored when asked for);
  a 409 ``Conflict`` where the caller lets it through;
- ``Cancelled``: a transaction DynamoDB cancelled, with each action's reason in order;
- ``Busy`` (503): throttled, or in conflict with other transactions, past the retries;
  or a connection that failed or stalled past them.
Anything else DynamoDB answers (a malformed request: a bug) is botocore's ``ClientError``, a 500.
No module but this one imports botocore for DynamoDB or reads its errors.
"""

from __future__ import annotations

import gc
import random
import time
from functools import lru_cache
from typing import Any

from alleycat import settings
from alleycat.errors import Busy, Conflict
from alleycat.storage import entities as e
from alleycat.storage import keys
from alleycat.storage.attributes import to_attr

# Every call must end well inside the API functions' 10 s timeout: a stalled connection or
# read gives up after CONNECT/READ seconds, and botocore's standard-mode retries (throttling,
# timeouts, 5xx: at most ATTEMPTS tries, backing off up to 1 s then 2 s) bound one call at
# ATTEMPTS * (CONNECT + READ) + 3 = 9 s. Then the caller gets a 503 with Retry-After.
# Only an embedded engine on a busy laptop (the local stack) waits longer: DYNAMODB_READ_TIMEOUT_SECONDS.
CONNECT_TIMEOUT_SECONDS = 0.5
READ_TIMEOUT_SECONDS = 1.5
ATTEMPTS = 3


def config(of: settings.Settings | None = None):
    """The clients' configuration (this one's and ``alleycat.aws.clients``'), under ``of`` (the process's settings by default)."""
    from botocore.config import Config

    read_timeout = (of or settings.load()).dynamodb_read_timeout_seconds or READ_TIMEOUT_SECONDS
    return Config(max_pool_connections=32, connect_timeout=CONNECT_TIMEOUT_SECONDS, read_timeout=read_timeout,
                  retries={"mode": "standard", "total_max_attempts": ATTEMPTS})


@lru_cache(maxsize=1)
def client():
    """The process's client, made at its first request (a cold start's handler import does not pay
    for it). Made by botocore, as ``boto3.client`` makes it, without importing boto3 itself (its
    resources and S3 transfer manager: ~25 ms of a cold start on python3.13, docs/cold-start.md)."""
    freeze_startup_objects()
    from alleycat.aws import clients

    return clients.make("dynamodb", config())


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
    return settings.load().needed(settings.TABLE_NAME)


def values(**named: Any) -> dict:
    """ExpressionAttributeValues: ``values(score=3)`` -> ``{":score": {"N": "3"}}``."""
    return {f":{name}": to_attr(value) for name, value in named.items()}


def key_of(entity: e.Entity) -> dict:
    return {name: {"S": value} for name, value in entity.key.items()}


def key_from(entity_keys: keys.EntityKeys, **parts: Any) -> dict:
    return {name: {"S": value} for name, value in entity_keys.key(parts).items()}


# --- Outcomes ------------------------------------------------------------------------------

CONDITION_FAILED = "ConditionalCheckFailed"  # a cancelled transaction's reason: that action's condition
FINE = "None"  # a cancelled transaction's reason: that action was fine (another one cancelled it)


class ConditionFailed(Conflict):
    """A write whose ConditionExpression was not met. ``item``: the item as stored, when the request
    asked for it (``ReturnValuesOnConditionCheckFailure="ALL_OLD"``) and the engine returned it."""

    def __init__(self, item: dict | None = None):
        super().__init__("the request conflicts with the current state")
        self.item = item


class Cancelled(Exception):
    """A transaction DynamoDB cancelled: ``reasons``, one code per action in the request's order
    (``FINE`` for an action that would have been done, ``CONDITION_FAILED`` for a condition not met)."""

    def __init__(self, reasons: tuple[str, ...]):
        super().__init__(f"transaction cancelled: {', '.join(reasons)}")
        self.reasons = reasons

    def condition_failed(self, action: int | None = None) -> bool:
        """Whether the condition of the action at index ``action`` (of any action, when None) was not met."""
        if action is None:
            return CONDITION_FAILED in self.reasons
        return self.reasons[action:action + 1] == (CONDITION_FAILED,)


class Contended(Busy):
    """Busy because other transactions held the items: sent again here (botocore does not) before
    the caller gets it."""


# Error codes of a request DynamoDB did not do for now (throttled, or still in progress elsewhere);
# botocore has retried them already.
BUSY_CODES = frozenset({
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "TransactionInProgressException",
    "InternalServerError",
})
# Cancellation reasons of a transaction action that may succeed when sent again
# (real DynamoDB reports these, not exception names).
BUSY_REASONS = frozenset({"TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"})
# A reason that is an answer, not a hiccup: sending the transaction again gives the same one.
DEFINITE_REASONS = frozenset({CONDITION_FAILED, "ValidationError", "ItemCollectionSizeLimitExceeded"})


def busy_reasons(reasons: tuple[str, ...]) -> bool:
    """A transaction cancelled only for reasons that may pass when it is sent again."""
    return bool(BUSY_REASONS.intersection(reasons)) and not DEFINITE_REASONS.intersection(reasons)


def outcome_of(error: Exception) -> Exception:
    """What a botocore ``ClientError`` from DynamoDB means: ``ConditionFailed``, ``Cancelled``, ``Busy``
    (``Contended`` when sending it again at once may pass), or the error itself (anything else: a
    request DynamoDB refused, a bug)."""
    response = getattr(error, "response", {})
    code = response.get("Error", {}).get("Code", "")
    busy = "the service is busy, please retry in a second"
    if code == "ConditionalCheckFailedException":
        return ConditionFailed(response.get("Item"))
    if code == "TransactionCanceledException":
        reasons = tuple(reason.get("Code", FINE) for reason in response.get("CancellationReasons", []))
        return Contended(busy) if busy_reasons(reasons) else Cancelled(reasons)
    if code == "TransactionConflictException":  # a single-item write on an item a transaction holds
        return Contended(busy)
    if code in BUSY_CODES:
        return Busy(busy)
    return error


# botocore retries throttled requests, never a transaction cancelled for a conflict: those
# are sent again here, with full-jitter backoff, for at most about a second, then the
# caller gets a 503 with Retry-After.
CONFLICT_RETRY_SECONDS = 1.0
BACKOFF_BASE_SECONDS = 0.025
BACKOFF_CAP_SECONDS = 0.4
# The requests that name their table inside (per item, or per table of the batch); every other is sent on the table.
NAMES_TABLES_INSIDE = frozenset({"batch_get_item", "batch_write_item", "transact_get_items", "transact_write_items"})


def backoff(attempt: int) -> float:
    return random.uniform(0, min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** attempt))


def send(operation: str, **request: Any) -> dict:
    """The one way to send a request: ``operation`` (botocore's name, e.g. ``"update_item"``) on the
    table (unless it names its tables inside, or ``TableName`` is given); DynamoDB's response, or
    one of the outcomes this module names (its docstring). Sent again with backoff while a
    transaction conflict cancels it."""
    from botocore.exceptions import ClientError, ConnectionError, HTTPClientError

    if operation not in NAMES_TABLES_INSIDE and "TableName" not in request:
        request = {"TableName": table_name(), **request}
    give_up = time.monotonic() + CONFLICT_RETRY_SECONDS
    attempt = 0
    while True:
        try:
            return getattr(client(), operation)(**request)
        except ClientError as error:
            outcome = outcome_of(error)
            pause = backoff(attempt)
            if not isinstance(outcome, Contended) or time.monotonic() + pause > give_up:
                if outcome is error:
                    raise
                raise outcome from error
            time.sleep(pause)
            attempt += 1
        except (ConnectionError, HTTPClientError) as error:
            raise Busy("the database did not answer in time, please retry") from error


def conditional(operation: str, **request: Any) -> dict | None:
    """``send``, with its ``ConditionFailed`` outcome as None: for the writes whose condition only says
    whether there is anything to do."""
    try:
        return send(operation, **request)
    except ConditionFailed:
        return None


def get[E: e.Entity](entity: type[E], consistent: bool = False, **parts: Any) -> E | None:
    """The ``entity`` stored under the key its ``parts`` make, or None."""
    item = send("get_item", Key=key_from(entity.KEYS, **parts), ConsistentRead=consistent).get("Item")
    return e.item_as(entity, item) if item else None


def query_all(**request: Any) -> list[e.Entity]:
    """Every page of a Query: for the stream's work, never for an API read (but the replay's, which a
    1,000-racer race keeps to one page or two: ``replays.with_board``)."""
    items = []
    while True:
        response = send("query", **request)
        items += e.from_items(response.get("Items", []))
        if "LastEvaluatedKey" not in response:
            return items
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def batch(operation: str, request_items: dict, leftover: str, attempts: int = 10) -> list[dict]:
    """A batch request, sent again (with backoff) for what DynamoDB left unprocessed."""
    responses = []
    for attempt in range(attempts):
        response = send(operation, RequestItems=request_items)
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
