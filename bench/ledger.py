"""Every DynamoDB request of the layer's client, with its time and capacity units: a single-item write's as the
engine accounts it; a transaction's or batch write's from the items it touches, read before and after it
(unrecorded) and sized with ``alleycat.storage.sizing``, which sizes the reads too."""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict, namedtuple
from dataclasses import dataclass, field

from alleycat.storage import dynamo, sizing
from alleycat.storage.schema import INVERTED_PROJECTION

TABLE_KEY = ("PK", "SK")  # the inverted index's too, reversed: partition key SK, sort key PK
SINGLE_WRITES = {"PutItem", "UpdateItem", "DeleteItem"}
READS = {"Query", "GetItem", "BatchGetItem"}


def size(item: dict | None) -> int:
    return sizing.item_size(item) if item else 0


def write_units(before: dict | None, after: dict | None, transactional: bool = False) -> int:
    """WCU of one item write: the larger of the item before and after, doubled in a transaction."""
    return sizing.write_units(max(size(before), size(after))) * (2 if transactional else 1)


def index_writes(before: dict | None, after: dict | None) -> list[tuple[str, int]]:
    """(partition, WCU) of an item write's inverted-index write (keyed on the table's key, so it never moves):
    none when nothing projected changes, else the larger entry's units, in the partition of its SK."""
    old, new = ({k: v for k, v in item.items() if k in TABLE_KEY or k in INVERTED_PROJECTION} if item else None
                for item in (before, after))
    if old == new:
        return []
    written = new or old
    assert written is not None  # they differ, so one of them is an item
    return [(_text(written["SK"]), sizing.write_units(max(size(old), size(new))))]


def _text(value: dict) -> str:
    return str(next(iter(value.values())))


def read_units(items: list[dict], consistent: bool, summed: bool) -> float:
    """RCU of a read: a Query sums its items then rounds up to 4 KB; GetItem/BatchGet round per item."""
    sizes = [sum(map(size, items))] if summed or not items else map(size, items)
    return sum(sizing.read_units(bytes_, consistent) for bytes_ in sizes)


def read_partitions(operation: str, params: dict, items: list[dict], consistent: bool) -> list[Read]:
    """A read's units by the partition they were read from (they sum to ``read_units``): a Query's one
    partition, from its key condition (the inverted index's is an SK); a get's per item, a missing one
    charged to the first key asked."""
    if operation == "Query":
        index = bool(params.get("IndexName"))
        found = re.search(r"\b(PK|SK) = (:\w+)", params.get("KeyConditionExpression", ""))
        partition = _text(params["ExpressionAttributeValues"][found.group(2)]) if found else "?"
        return [Read(partition, read_units(items, consistent, True), index)]
    if items:
        return [Read(_text(i["PK"]), read_units([i], consistent, False), False) for i in items]
    keys = ([k for r in params["RequestItems"].values() for k in r["Keys"]] if operation == "BatchGetItem"
            else [params["Key"]])
    return [Read(_text(keys[0]["PK"]), read_units([], consistent, False), False)]


def busy_seconds(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of time intervals (parallel requests overlap)."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        total, end = total + max(0.0, stop - max(start, end)), max(end, stop)
    return total


def waves(calls) -> int:
    """Round trips: requests overlapping in time (parallel writes) are one wave."""
    count, end = 0, float("-inf")
    for call in sorted(calls, key=lambda c: c.start):
        count, end = count + (call.start > end), max(end, call.stop)
    return count


Write = namedtuple("Write", "partition units index item", defaults=(None,))  # index: [(index partition, WCU)]; item: SK
Read = namedtuple("Read", "partition units index")  # index: the inverted index's partition (an SK value) was read


@dataclass
class Call:
    operation: str
    label: object
    start: float
    stop: float = 0.0
    writes: list = field(default_factory=list)
    read_units: float = 0.0
    read_bytes: int = 0
    reads: list = field(default_factory=list)  # [Read]: read_units by partition

    @property
    def write_units(self) -> int:
        return sum(w.units for w in self.writes)

    @property
    def index_units(self) -> int:
        return sum(units for w in self.writes for _, units in w.index)


def _write_keys(operation: str, params: dict) -> list[dict]:
    """The key of each item a write request touches."""
    key = lambda item: {k: item[k] for k in TABLE_KEY}
    if operation == "PutItem":
        return [key(params["Item"])]
    if operation in ("UpdateItem", "DeleteItem"):
        return [params["Key"]]
    if operation == "TransactWriteItems":  # a ConditionCheck too: counted as a transactional write of the item as it is
        return [key(body["Item"]) if kind == "Put" else body["Key"]
                for action in params["TransactItems"] for kind, body in action.items()]
    if operation == "BatchWriteItem":
        return [key(r["PutRequest"]["Item"]) if "PutRequest" in r else r["DeleteRequest"]["Key"]
                for requests in params["RequestItems"].values() for r in requests]
    return []


class Ledger:
    """Records the requests of the layer's client; ``label`` tags them (a route, a simulated second)."""

    def __init__(self):
        self.client, self.calls, self.label = dynamo.client(), [], None
        self._lock, self._quiet = threading.Lock(), threading.local()
        self._hooks = {"before-parameter-build.dynamodb": self._before, "after-call.dynamodb": self._after}

    def __enter__(self) -> Ledger:
        for event, hook in self._hooks.items():
            self.client.meta.events.register(event, hook)
        return self

    def __exit__(self, *exc) -> None:
        for event, hook in self._hooks.items():
            self.client.meta.events.unregister(event, hook)

    def take(self) -> list[Call]:
        with self._lock:
            calls, self.calls = self.calls, []
        return calls

    def lookup(self, keys: list[dict]) -> list[dict | None]:
        """The stored items under distinct keys, in order (consistent reads, not recorded)."""
        found, table, self._quiet.on = {}, dynamo.table_name(), True
        try:
            for start in range(0, len(keys), 100):
                request = {table: {"Keys": keys[start:start + 100], "ConsistentRead": True}}
                for response in dynamo.batch("batch_get_item", request, "UnprocessedKeys"):
                    found.update({(i["PK"]["S"], i["SK"]["S"]): i for i in response["Responses"].get(table, [])})
        finally:
            self._quiet.on = False
        return [found.get((key["PK"]["S"], key["SK"]["S"])) for key in keys]

    def _before(self, model, params, context, **_):
        """The request's start, and the items it will write (their lookups count as DynamoDB time)."""
        if not getattr(self._quiet, "on", False):
            context["bench_start"] = time.perf_counter()
            if model.name in SINGLE_WRITES:
                params["ReturnConsumedCapacity"] = "INDEXES"
            keys = [] if model.name in SINGLE_WRITES else _write_keys(model.name, params)
            context["bench"] = (params, list(zip(keys, self.lookup(keys), strict=True)) if keys else [])

    def _after(self, model, parsed, context, http_response=None, **_):
        if "bench" not in context:
            return
        (params, befores), name = context.pop("bench"), model.name
        failed = "Error" in parsed or (http_response is not None and http_response.status_code >= 400)
        call = Call(name, self.label, context.pop("bench_start"))
        if name in SINGLE_WRITES:  # as the engine accounted it (a refused conditional write costs 1 WCU)
            consumed, key = parsed.get("ConsumedCapacity", {}), _write_keys(name, params)[0]
            call.writes.append(Write(_text(key["PK"]), int(consumed.get("Table", {}).get("CapacityUnits", int(failed))),
                                     [(_text(key["SK"]), int(i["CapacityUnits"])) for i in
                                      consumed.get("GlobalSecondaryIndexes", {}).values() if i.get("CapacityUnits")],
                                     _text(key["SK"])))
        afters = [before for _, before in befores] if failed or not befores else self.lookup([k for k, _ in befores])
        for (key, before), after in zip(befores, afters, strict=True):
            call.writes.append(Write(key["PK"]["S"], write_units(before, after, name == "TransactWriteItems"),
                                     [] if failed else index_writes(before, after), key["SK"]["S"]))
        if name in READS and not failed:
            batch = name == "BatchGetItem"
            items = ([i for found in parsed.get("Responses", {}).values() for i in found] if batch
                     else parsed.get("Items", [parsed["Item"]] if "Item" in parsed else []))
            consistent = any(r.get("ConsistentRead") for r in params["RequestItems"].values()) if batch \
                else bool(params.get("ConsistentRead"))
            call.read_units, call.read_bytes = read_units(items, consistent, name == "Query"), sum(map(size, items))
            call.reads = read_partitions(name, params, items, consistent)
        call.stop = time.perf_counter()
        with self._lock:
            self.calls.append(call)


def per_partition(calls: list[Call], index: bool = False) -> dict:
    """{label: {partition: WCU}} of table (or inverted index) writes."""
    out: dict = defaultdict(lambda: defaultdict(int))
    for call in calls:
        for write in call.writes:
            for partition, units in (write.index if index else [(write.partition, write.units)]):
                out[call.label][partition] += units
    return out
