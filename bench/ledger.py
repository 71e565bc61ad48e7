"""Every DynamoDB request the layer's client makes, with its time and capacity units.

botocore's ``before-call``/``after-call`` events on ``alleycat.dynamo.client()`` see each
request. A single-item write asks the engine for its consumed capacity (DynamoDB Local
accounts as DynamoDB does, index writes included) and lands on its key's partition. A
transaction or batch write reports only totals, so the items it touches are looked up
before and after it (``lookup``, a request on another client) and sized with DynamoDB's
rules (``alleycat.sizing``), which also size the reads.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable

from alleycat import sizing
from alleycat.schema import INVERTED_PROJECTION

TABLE_KEY = ("PK", "SK")
INVERTED_KEY = ("SK", "PK")  # the inverted index: partition key SK, sort key PK
SINGLE_WRITES = {"PutItem", "UpdateItem", "DeleteItem"}
WRITES = SINGLE_WRITES | {"TransactWriteItems", "BatchWriteItem"}


def size(item: dict | None) -> int:
    return sizing.item_size(item) if item else 0


def write_units(before: dict | None, after: dict | None, transactional: bool = False) -> int:
    """WCU of one item write: the larger of the item before and after, doubled in a transaction."""
    units = sizing.write_units(max(size(before), size(after)))
    return 2 * units if transactional else units


def projected(item: dict | None, index_key=INVERTED_KEY, projection=INVERTED_PROJECTION) -> dict | None:
    """The index entry of an item (None when the item has no index key, so is not in the index)."""
    if not item or any(k not in item for k in index_key):
        return None
    return {k: v for k, v in item.items() if k in index_key or k in TABLE_KEY or k in projection}


def index_writes(before: dict | None, after: dict | None, index_key=INVERTED_KEY,
                 projection=INVERTED_PROJECTION) -> list[tuple[str, int]]:
    """(index partition, WCU) of the index writes an item write causes.

    Nothing when no projected attribute changes; one write for an insert, a delete or a
    changed projected attribute; two (delete + put) when the index key changes.
    """
    old, new = projected(before, index_key, projection), projected(after, index_key, projection)
    if old == new:
        return []
    partition = index_key[0]
    if old is None or new is None:
        entry = new or old
        return [(_text(entry[partition]), sizing.write_units(size(entry)))]
    if any(old[k] != new[k] for k in index_key):
        return [(_text(old[partition]), sizing.write_units(size(old))), (_text(new[partition]), sizing.write_units(size(new)))]
    return [(_text(new[partition]), sizing.write_units(max(size(old), size(new))))]


def _text(value: dict) -> str:
    (inner,) = value.values()
    return str(inner)


def read_units(items: list[dict], consistent: bool, summed: bool) -> float:
    """RCU of a read: a Query sums its items then rounds up to 4 KB; GetItem/BatchGet round per item."""
    if summed:
        return sizing.read_units(sum(size(i) for i in items), consistent)
    return sum(sizing.read_units(size(i), consistent) for i in items) if items else sizing.read_units(0, consistent)


def busy_seconds(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of time intervals (parallel requests overlap)."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop <= end:
            continue
        total += stop - max(start, end)
        end = stop
    return total


@dataclass
class Write:
    partition: str
    units: int
    before: int  # item size in bytes
    after: int
    index: list = field(default_factory=list)  # [(index partition, WCU)]


@dataclass
class Call:
    operation: str
    label: object
    start: float
    stop: float
    failed: bool
    writes: list = field(default_factory=list)
    read_partition: str | None = None
    read_units: float = 0.0
    read_bytes: int = 0

    @property
    def write_units(self) -> int:
        return sum(w.units for w in self.writes)

    @property
    def index_units(self) -> int:
        return sum(units for w in self.writes for _, units in w.index)


def _write_keys(operation: str, params: dict) -> list[tuple[dict, str]]:
    """(key, kind) of each item a write request touches."""
    if operation == "PutItem":
        return [(_key(params["Item"]), "put")]
    if operation in ("UpdateItem", "DeleteItem"):
        return [(params["Key"], operation)]
    if operation == "TransactWriteItems":
        out = []
        for action in params["TransactItems"]:
            (kind, body), = action.items()
            if kind != "ConditionCheck":
                out.append((_key(body["Item"]) if kind == "Put" else body["Key"], kind))
        return out
    out = []
    for requests in params["RequestItems"].values():
        for request in requests:
            if "PutRequest" in request:
                out.append((_key(request["PutRequest"]["Item"]), "put"))
            else:
                out.append((request["DeleteRequest"]["Key"], "delete"))
    return out


def _key(item: dict) -> dict:
    return {k: item[k] for k in TABLE_KEY}


class Ledger:
    """Records the requests of a botocore client; ``label`` tags them (a route, a simulated second)."""

    def __init__(self, client, lookup: Callable[[list[dict]], list[dict | None]]):
        self.client, self.lookup = client, lookup
        self.calls: list[Call] = []
        self.label: object = None
        self._lock = threading.Lock()

    def __enter__(self) -> "Ledger":
        self.client.meta.events.register("before-parameter-build.dynamodb", self._parameters)
        self.client.meta.events.register("after-call.dynamodb", self._after)
        return self

    def __exit__(self, *exc) -> None:
        self.client.meta.events.unregister("before-parameter-build.dynamodb", self._parameters)
        self.client.meta.events.unregister("after-call.dynamodb", self._after)

    def take(self) -> list[Call]:
        with self._lock:
            calls, self.calls = self.calls, []
        return calls

    def _parameters(self, model, params, context, **_):
        """The request's API parameters (``before-call`` sees the serialised request) and the items it will write.

        The request's interval starts here and ends after the lookups, so they count as DynamoDB time."""
        context["bench_start"] = time.perf_counter()
        if model.name in SINGLE_WRITES:
            params["ReturnConsumedCapacity"] = "INDEXES"
            context["bench"] = (params, [])
            return
        keys = [key for key, _ in _write_keys(model.name, params)] if model.name in WRITES else []
        context["bench"] = (params, list(zip(keys, self.lookup(keys))) if keys else [])

    def _after(self, model, parsed, context, http_response=None, **_):
        start = context.pop("bench_start")
        params, befores = context.pop("bench")
        failed = "Error" in parsed or (http_response is not None and http_response.status_code >= 400)
        call = Call(model.name, self.label, start, 0.0, failed)
        transactional = model.name == "TransactWriteItems"
        if model.name in SINGLE_WRITES:
            call.writes.append(_consumed(_write_keys(model.name, params)[0][0], parsed, failed))
        afters = [before for _, before in befores] if failed or not befores else self.lookup([k for k, _ in befores])
        for (key, before), after in zip(befores, afters):
            call.writes.append(Write(key["PK"]["S"], write_units(before, after, transactional), size(before), size(after),
                                     [] if failed else index_writes(before, after)))
        if model.name in ("Query", "GetItem", "BatchGetItem") and not failed:
            self._reads(call, model.name, params, parsed)
        call.stop = time.perf_counter()
        with self._lock:
            self.calls.append(call)

    @staticmethod
    def _reads(call: Call, operation: str, params: dict, parsed: dict) -> None:
        if operation == "BatchGetItem":
            items = [i for found in parsed.get("Responses", {}).values() for i in found]
            consistent = any(r.get("ConsistentRead") for r in params["RequestItems"].values())
        else:
            items = parsed.get("Items", []) if operation == "Query" else [parsed["Item"]] if "Item" in parsed else []
            consistent = bool(params.get("ConsistentRead"))
        call.read_units = read_units(items, consistent, summed=operation == "Query")
        call.read_bytes = sum(size(i) for i in items)
        partition_attr = "SK" if params.get("IndexName") else "PK"
        call.read_partition = _text(items[0][partition_attr]) if items else None


def _consumed(key: dict, parsed: dict, failed: bool) -> Write:
    """A single-item write as the engine accounted it (a refused conditional write costs 1 WCU)."""
    consumed = parsed.get("ConsumedCapacity", {})
    units = int(consumed.get("Table", {}).get("CapacityUnits", 1 if failed else 0))
    index = [(_text(key["SK"]), int(gsi["CapacityUnits"]))
             for gsi in consumed.get("GlobalSecondaryIndexes", {}).values() if gsi.get("CapacityUnits")]
    return Write(_text(key["PK"]), units, 0, 0, index)


def per_partition(calls: list[Call], index: bool = False) -> dict:
    """{label: {partition: WCU}} of table (or inverted index) writes."""
    out: dict = defaultdict(lambda: defaultdict(int))
    for call in calls:
        for write in call.writes:
            if index:
                for partition, units in write.index:
                    out[call.label][partition] += units
            else:
                out[call.label][write.partition] += write.units
    return out
