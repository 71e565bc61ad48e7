"""The fan-in's partitions and quotas at scale (docs/fan-in.md; issue 53, items 1 and 6): a race recorded over MQTT
through the real handlers with ``ALLEYCAT_FAN_IN=on`` (the authorizer, the topic rule's records in the mapping's
batches, the ingest consumer writing second blocks and slice boards, the stream processor, the joins, the ticker),
its items' sizes and its requests' units measured, then replayed for N races of R riders.

What scales by shifting ids, as ``bench.capacity`` does: a rider's own partitions (the consumer's reads of them, as
recorded: never a figure set here). What is placed by the real hash functions, not by a mean: the Kinesis partition
keys (``<race>/<group>``, 16 a race) on shards and on the mapping's lanes (``local.kinesis.lane_of``), so a lane
carrying two keys, and a shard two hot groups, are in the figures. The shards are planned: ⌈riders / 600⌉ splitting
the hash range evenly, then each shard past 1,000 records or 1 MB a second split between its keys at the hash key
that balances them best (Kinesis ``SplitShard`` takes any hash key), until none is (a key alone past a shard's
limit cannot be split: the race does not fit). Each batch updates each slice of its groups once (one block update,
one slice-board read and write), so a slice's writes a second are its lane's batches a second (``lane_batches``): at
least ⌈its records / the batch size⌉, one a second when polled or one a window with a batching window, and with
pushed records (enhanced fan-out) and no window as many as the lane runs back to back, at most one a push (the push
interval **assumed**: ``PUSH_MS``). Item sizes are the recording's, scaled to a slice's racers.

**The history writer** (a second mapping of the table's stream turning block records into the racers' 30-s chunks)
is recorded: the replay hands it the race's blocks after the seconds (``raceday.write_history``, source ``history``)
and ``history`` takes a chunk write's units and the writer's reads from its requests; the model then writes each
racer's chunk once for each chunk a window of its mapping touches. ``HISTORY`` (its design's figures) is used only
when nothing was recorded (``main`` judging from performance.json).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, replace
from functools import lru_cache

from alleycat.rules.fanin import GROUPS, slices_for
from stacks.settings import HISTORY_BATCHING_WINDOW_SECONDS

from .capacity import KB, PAGES, PARTITION_RCU, PARTITION_WCU, READ_KB, Request, _binomial, family, scope

RIDERS_PER_SHARD = 600  # the consumer's planned riders a shard at 1 Hz (docs/capacity.md, "The telemetry log")
TICK_PREFIX = "TICK#"
HASH_SPACE = 2**128  # Kinesis maps a partition key's MD5 into 128 bits, each shard a range of them
SHARD_RECORDS, SHARD_BYTES = 1000, 1_000_000  # a shard's writes a second
# Pushed records reach the mapping "typically" 70 ms after the put (Kinesis, "enhanced fan-out"): **assumed** the
# interval between pushes of a busy shard, so a lane with no window runs at most one batch a push.
PUSH_MS = 70.0
INVOKE_PAYLOAD = 6 * 2**20  # a synchronous invocation's payload, a mapping's batch with it
EVENT_RECORD_OVERHEAD = 400  # a Kinesis record's fields in the event besides its data (ids, ARNs, times), bytes

FAN_IN_PAGES = {
    "iot": "https://docs.aws.amazon.com/general/latest/gr/iot-core.html#message-broker-limits",
    "iot_rules": "https://docs.aws.amazon.com/general/latest/gr/iot-core.html#rules-limits",
    "kinesis": "https://docs.aws.amazon.com/streams/latest/dev/service-sizes-and-limits.html",
    "kinesis_mapping": "https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-parameters.html",
    "appsync": "https://docs.aws.amazon.com/general/latest/gr/appsync.html",
    "streams_readers": "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html",
    "batch_size": "https://docs.aws.amazon.com/lambda/latest/api/API_CreateEventSourceMapping.html#lambda-CreateEventSourceMapping-request-BatchSize",
}


@dataclass(frozen=True)
class History:
    """The history writer's load (docs/fan-in.md): a chunk write a racer for each chunk a window of its mapping
    touches, a new chunk's inverted-index entry and the stream processor's entry write once a chunk."""
    chunk_seconds: int = 30
    window_seconds: int = HISTORY_BATCHING_WINDOW_SECONDS
    write_wcu: float = 1.0  # a chunk write (RACER#<racer>, HIST#<race>#<racer>#<n>)
    index_wcu: float = 1.0  # a new chunk's inverted-index entry (HIST#<race>#<racer>#<n>, its own partition), once
    entry_wcu: float = 1.0  # the stream processor's write of the entry once a chunk is done (RACER#<racer>)
    rcu_a_racer_batch: float = 0.0  # the writer's reads (the race, each slice's tags), a racer a batch
    recorded: bool = False  # False: the design's figures, nothing recorded

    @property
    def writes_a_racer_second(self) -> float:
        """A window of W seconds at any offset touches 1 + (W - 1) / C chunks of C seconds, a write each."""
        return (1 + (self.window_seconds - 1) / self.chunk_seconds) / self.window_seconds

    @property
    def table_wcu_a_racer_second(self) -> float:
        return self.writes_a_racer_second * self.write_wcu + self.entry_wcu / self.chunk_seconds

    @property
    def wcu_a_racer_second(self) -> float:
        return self.table_wcu_a_racer_second + self.index_wcu / self.chunk_seconds


HISTORY = History()


def history(requests: tuple[Request, ...], racers: int) -> History:
    """The history writer's load from its recorded requests (source ``history``: its batches, then the stream
    processor's scoring of the chunks they wrote): a chunk write's units, its reads a racer a batch, and a new chunk's
    index entry as the join's first chunk recorded it (the writer's first write of a race updates that chunk). The
    entry's write once a chunk is done stays the design's unless recorded (a short recording finishes no chunk).
    ``HISTORY`` when nothing was recorded."""
    written = [r for r in requests if r.source == "history"]
    writes = [r for r in written if not r.index and r.item.startswith("HIST#") and r.wcu]
    if not writes:
        return HISTORY
    entries = [r for r in written if not r.index and r.wcu and not r.item.startswith("HIST#")]
    created = [r for r in requests if r.source == "join" and r.index and r.partition.startswith("HIST#")]
    return replace(HISTORY, recorded=True, write_wcu=sum(r.wcu for r in writes) / len(writes),
                   index_wcu=sum(r.wcu for r in created) / racers if created else HISTORY.index_wcu,
                   entry_wcu=sum(r.wcu for r in entries) / racers if entries else HISTORY.entry_wcu,
                   rcu_a_racer_batch=sum(r.rcu for r in written) / racers)


@dataclass(frozen=True)
class FanIn:
    """What the recorded race over MQTT measured, per unit the model scales (bytes, units, milliseconds)."""
    racers: int
    rider_seconds: int
    block_base: float  # a SecondBlock's bytes without racers, and each racer's attribute
    block_per_racer: float
    board_base: float  # a SliceBoard's
    board_per_racer: float
    read_base: float  # the board's one Query while open (race, shards, rosters, slice boards): fixed bytes
    read_per_racer: float  # and a racer's
    entry_rcu: float  # the consumer's strongly consistent read of a racer's entry, a rider-second
    gate_rcu: float  # a batch's read of the race's gate copy
    tick_wcu: float  # the ticker's claim of a race second (TICK#<race>)
    tick_rcu: float  # the ticker's reads a tick besides the board's Query (the race, the claim)
    record_bytes: float  # a Kinesis record with its partition key
    consumer_cpu_ms_per_record: float  # at the consumer's memory
    consumer_waves: float  # round trips a batch (requests one after another)
    memory_mb: int
    checks: tuple = ()  # (name, recorded, model)
    block_index_wcu: float = 0.0  # a new SecondBlock's inverted-index entry (partition SECOND#<race>#<slice>#<second>: its own)


@dataclass(frozen=True)
class Sizing:
    """The deployed mapping (stacks/settings.py) and a round trip's time (bench.pricing.ASSUMED)."""
    batch: int = 1000
    lanes: int = 10
    rtt_ms: float = 5.0
    riders_per_shard: int = RIDERS_PER_SHARD
    window_s: float = 0.0  # the mapping's MaximumBatchingWindowInSeconds
    pushed: bool = True  # an enhanced fan-out consumer: records pushed as they come, not polled once a second
    push_ms: float = PUSH_MS
    viewers_fetches: float = 1.0  # board reads reaching the table a race a second (CloudFront's origin fetches)


def block_wcu(fi: FanIn, racers: float, updates: int) -> float:
    """WCU a slice's second costs in its blocks: ``updates`` updates, each adding its share of the slice's
    racers, each billed its item's size after (an update pays the larger of before and after)."""
    return sum(math.ceil((fi.block_base + racers * j / updates * fi.block_per_racer) / KB) for j in range(1, updates + 1))


def board_size(fi: FanIn, racers: float) -> float:
    return fi.board_base + racers * fi.board_per_racer


def spread(riders: int, slices: int, of) -> float:
    """``of(k)`` over a race's slices, k a slice's racers: Binomial(riders, 1 / slices) (the racer id's digest)."""
    return sum(p * of(k) for k, p in _binomial(riders, 1 / slices))


def read_rcu(fi: FanIn, riders: float, consistent: bool = False) -> float:
    """The board's one Query: the ticker's strongly consistent, an origin fetch's eventually."""
    return (1 if consistent else 0.5) * math.ceil((fi.read_base + riders * fi.read_per_racer) / READ_KB)


def key_hash(partition_key: str) -> int:
    """Where Kinesis puts a partition key in its 128-bit hash range: the key's MD5."""
    return int.from_bytes(hashlib.md5(partition_key.encode()).digest(), "big")


def shard_of(partition_key: str, shards: int) -> int:
    """The shard a Kinesis record's partition key lands on, the shards splitting the hash range evenly."""
    return key_hash(partition_key) * shards // HASH_SPACE


def split(keys: list[tuple[int, float]], limit: float) -> list[list[tuple[int, float]]]:
    """A shard's keys (hash, records a second), sorted by hash, split (``SplitShard`` at a hash key between two of
    them, where the larger side is least) until each part takes at most ``limit`` or holds one key."""
    total = sum(load for _, load in keys)
    if total <= limit or len(keys) < 2:
        return [keys]
    left, best, cut = 0.0, total, 1
    for i in range(1, len(keys)):
        left += keys[i - 1][1]
        if max(left, total - left) < best:
            best, cut = max(left, total - left), i
    return split(keys[:cut], limit) + split(keys[cut:], limit)


POLLED = (False, 0.0, PUSH_MS, 0.0, 0.0)  # a standard iterator, no window: read about once a second


def lane_batches(records: float, batch: int, cadence: tuple[bool, float, float, float, float] = POLLED) -> float:
    """A lane's batches a second, at least ⌈records / batch⌉. ``cadence``: (pushed, window s, push ms, a batch's fixed
    s, a record's CPU s). Polled with no window: one read a second. A window of W s: one a window (the next begins
    when the last invocation ends). Pushed with no window, Lambda sends batches "as quickly as possible": the next is
    what came while the last ran, so a busy lane runs them back to back (b × fixed + records × CPU = 1 s), at most one
    a push and one a record."""
    pushed, window, push_ms, fixed_s, cpu_s = cadence
    if window > 0:
        paced = 1 / window
    elif not pushed:
        paced = 1.0
    else:
        paced = min(1000 / push_ms, records, max(0.0, 1 - records * cpu_s) / fixed_s if fixed_s else math.inf)
    return max(float(math.ceil(records / batch)), paced)


@lru_cache(maxsize=256)
def placement(races: int, riders: int, hz: float, shards: int, lanes: int, batch: int,
              limit: float = SHARD_RECORDS, cadence: tuple[bool, float, float, float, float] = POLLED) -> dict:
    """Every race's 16 partition keys on the planned shards (``shards`` evenly, each then split while it takes more than
    ``limit`` records a second) and on lanes by the real hashes: records a second a shard and a lane, a lane's batches a
    second, and each key's lane's batches (a slice's updates a second)."""
    from local.kinesis import lane_of

    per_key = riders * hz / GROUPS
    even: dict[int, list[tuple[int, float]]] = {}
    lane: dict[int, int] = {}
    for race in range(races):
        for group in range(GROUPS):
            key = f"{race:026d}/{group:x}"
            where = key_hash(key)
            even.setdefault(where * shards // HASH_SPACE, []).append((where, per_key))
            lane[where] = lane_of(key, lanes)
    planned = [part for keys in even.values() for part in split(sorted(keys), limit)]
    shard_records: list[float] = []
    lane_records: dict[tuple[int, int], float] = {}
    updates_of: dict[int, tuple[int, int]] = {}
    for n, keys in enumerate(planned):
        shard_records.append(sum(load for _, load in keys))
        for where, load in keys:
            lane_records[n, lane[where]] = lane_records.get((n, lane[where]), 0.0) + load
            updates_of[where] = (n, lane[where])
    batches = {at: lane_batches(records, batch, cadence) for at, records in lane_records.items()}
    work = {at: round(batches[at] * cadence[3] + records * cadence[4], 6) for at, records in lane_records.items()}
    updates = [batches[at] for at in updates_of.values()]
    return {"shard_records": max(shard_records), "lane_records": max(lane_records.values()),
            "lane_batches": max(batches.values()), "lane_work": max(work.values()), "lanes_busy": len(lane_records), "batches": sum(batches.values()),
            "updates_max": math.ceil(max(updates)), "updates_mean": sum(updates) / len(updates),
            "shards": shards + len(planned) - len(even), "splits": len(planned) - len(even),
            "keys_on_hottest_shard": len(max(planned, key=lambda keys: sum(load for _, load in keys)))}


def cadence(fi: FanIn, sz: Sizing) -> tuple[bool, float, float, float, float]:
    """``lane_batches``' cadence of the mapping ``sz`` with the recorded consumer ``fi``."""
    return (sz.pushed, sz.window_s, sz.push_ms, fi.consumer_waves * sz.rtt_ms / 1000,
            fi.consumer_cpu_ms_per_record * max(1.0, 1769 / fi.memory_mb) / 1000)


def shard_limit(fi: FanIn) -> float:
    """A shard's records a second: 1,000, or fewer when the recorded records' bytes reach its 1 MB first."""
    return min(SHARD_RECORDS, SHARD_BYTES / fi.record_bytes) if fi.record_bytes else SHARD_RECORDS


def shards_needed(fi: FanIn, sz: Sizing, races: int, riders: int, hz: float) -> tuple[int, int, dict]:
    """(planned, shards, placement): the plan (⌈riders / riders_per_shard⌉ evenly, each shard past its limit split
    between its keys), more even shards while the hottest lane's work passes its second. A key alone past a shard's
    limit stays over it (the placement says so)."""
    planned = max(1, math.ceil(races * riders * hz / sz.riders_per_shard))
    shards = planned
    while True:
        p = placement(races, riders, hz, shards, sz.lanes, sz.batch, shard_limit(fi), cadence(fi, sz))
        if p["lane_work"] <= 1.0 or shards >= 64 * planned:
            return planned, p["shards"], p
        shards += max(1, shards // 8)


def second(fi: FanIn, sz: Sizing, races: int, riders: int, hz: float = 1.0, hist: History = HISTORY) -> dict:
    """A racing second of ``races`` races of ``riders``: every partition's units (the hottest race's, by the
    placement's hottest lane), the table's, the index's, and every quota's load beside its value."""
    planned, shards, p = shards_needed(fi, sz, races, riders, hz)
    slices = slices_for(riders)
    per_slice = riders / slices
    u_max, u_mean = p["updates_max"], p["updates_mean"]
    block_hot = block_wcu(fi, per_slice, u_max)
    board_w = spread(riders, slices, lambda k: math.ceil(board_size(fi, k) / KB))  # a slice board's write, its mean
    board_r = spread(riders, slices, lambda k: math.ceil(board_size(fi, k) / READ_KB))  # strongly consistent, before it
    read = read_rcu(fi, riders, consistent=True) + sz.viewers_fetches * read_rcu(fi, riders)  # the ticker's, the origin's
    racer_wcu = hist.table_wcu_a_racer_second * (1 if hz else 0)  # a racer's partition, a second (mean)
    partitions = {
        "RACE#<race> (slice boards, ticker and origin reads)": {
            "wcu": slices * u_max * board_w, "rcu": slices * u_max * board_r + read},
        "SLICE#<race>#<n> (second blocks)": {"wcu": block_hot, "rcu": 0.0},
        "GATE#<race>#<n> (10 gate copies)": {"wcu": 0.0, "rcu": GROUPS * u_max * fi.gate_rcu / 10},
        "TICK#<race> (the ticker's claim)": {"wcu": fi.tick_wcu, "rcu": fi.tick_rcu},
        "RACER#<racer> (the consumer's reads, the history writer's chunks)": {"wcu": racer_wcu, "rcu": fi.entry_rcu * hz},
        "index HIST#<race>#<racer>#<n> (a new chunk's entry)": {"wcu": hist.index_wcu / hist.chunk_seconds, "rcu": 0.0},
        # a block's sort key names its race, slice and second: its index partition takes its one entry, once
        "index SECOND#<race>#<slice>#<second> (a new block's entry)": {"wcu": fi.block_index_wcu, "rcu": 0.0},
    }
    posts = races * riders * hz
    hot_path = races * slices * (spread(riders, slices, lambda k: block_wcu(fi, k, round(u_mean) or 1)) + u_mean * board_w
                                 + fi.block_index_wcu)
    history_wcu = posts * hist.wcu_a_racer_second
    table_wcu = hot_path + races * fi.tick_wcu + posts * hist.table_wcu_a_racer_second
    table_rcu = races * (slices * u_mean * board_r + read + fi.tick_rcu
                         + GROUPS * u_mean * fi.gate_rcu) + posts * (fi.entry_rcu + hist.rcu_a_racer_batch / hist.window_seconds)
    payload = sz.batch * (fi.record_bytes * 4 / 3 + EVENT_RECORD_OVERHEAD)  # a full batch's event: each record's data base64
    busy = p["lane_work"]
    consumer = p["batches"] * (fi.consumer_waves * sz.rtt_ms / 1000) + posts * fi.consumer_cpu_ms_per_record \
        * max(1.0, 1769 / fi.memory_mb) / 1000
    stream_shards = max(4, math.ceil(table_wcu / PARTITION_WCU), math.ceil(table_rcu / PARTITION_RCU))
    concurrency = consumer + races + 2 * stream_shards  # lanes' work, a ticker a race, two mappings on the table's stream
    quotas = [
        ("IoT Core inbound publish requests, per account (larger Regions; 2,000/s in others)", 20_000, "/s", posts,
         FAN_IN_PAGES["iot"], True),
        ("IoT Core publishes per connection", 100, "/s", hz, FAN_IN_PAGES["iot"], False),
        ("IoT rules engine: inbound messages evaluated, per account", 20_000, "/s", posts, FAN_IN_PAGES["iot_rules"], True),
        ("Kinesis writes per shard: records (hottest shard, after the plan's splits)", SHARD_RECORDS, "records/s",
         p["shard_records"], FAN_IN_PAGES["kinesis"], False),
        ("Kinesis writes per shard: bytes (hottest shard, after the plan's splits)", SHARD_BYTES, "B/s",
         p["shard_records"] * fi.record_bytes, FAN_IN_PAGES["kinesis"], False),
        ("Kinesis shards per account and Region (us-east-1, us-west-2, eu-west-1; 200 elsewhere)", 500, "shards",
         shards, FAN_IN_PAGES["kinesis"], True),
        ("consumer lane (parallelization factor 10: one batch at a time a lane), hottest", 1.0, "s of work a second",
         busy, FAN_IN_PAGES["kinesis_mapping"], False),
        ("Lambda invocation payload (synchronous): a full batch of the mapping", INVOKE_PAYLOAD, "B", payload,
         FAN_IN_PAGES["batch_size"], False),
        ("Lambda concurrent executions, per Region", 1000, "executions", concurrency, PAGES["lambda"], True),
        ("DynamoDB Streams readers a shard (stream processor + history writer)", 2, "readers", 2,
         FAN_IN_PAGES["streams_readers"], False),
        ("DynamoDB table write units (on-demand)", 40_000, "WRU/s", table_wcu, PAGES["table"], True),
        ("DynamoDB table read units (on-demand)", 40_000, "RRU/s", table_rcu, PAGES["table"], True),
        ("a new on-demand table's warm throughput (pre-warm above it)", 4000, "WRU/s", table_wcu, PAGES["warm"], True),
        ("AppSync Events: publishes (one a race a second)", None, "/s", races, FAN_IN_PAGES["appsync"], True),
    ]
    index_wcu = posts * hist.index_wcu / hist.chunk_seconds + races * slices * fi.block_index_wcu
    return {"races": races, "riders_per_race": riders, "riders": races * riders, "hz": hz, "slices_a_race": slices,
            "racers_a_slice": round(per_slice, 1), "kinesis_shards_planned": planned, "kinesis_shards": shards,
            "kinesis_splits": p["splits"],
            "placement": p, "slice_updates_a_second": {"hottest": u_max, "mean": round(u_mean, 2)},
            "partitions": {n: {"wcu": round(r["wcu"], 2), "rcu": round(r["rcu"], 2),
                               "under": r["wcu"] <= PARTITION_WCU and r["rcu"] <= PARTITION_RCU}
                           for n, r in partitions.items()},
            "hottest_partition_wcu": round(max(r["wcu"] for r in partitions.values()), 1),
            "hottest_partition_wcu_is": max(partitions, key=lambda n: partitions[n]["wcu"]),
            "hottest_partition_rcu": round(max(r["rcu"] for r in partitions.values()), 1),
            "hottest_partition_rcu_is": max(partitions, key=lambda n: partitions[n]["rcu"]),
            "table_wcu": round(table_wcu), "table_rcu": round(table_rcu), "index_wcu": round(index_wcu),
            "wcu_per_racer_second_hot_path": round(hot_path / posts, 4),
            "wcu_per_racer_second_with_history": round((hot_path + history_wcu) / posts, 4),
            "history": "recorded" if hist.recorded else "the design's figures (nothing recorded)",
            "fits": all(r["wcu"] <= PARTITION_WCU and r["rcu"] <= PARTITION_RCU for r in partitions.values())
            and not any(v is not None and load > v and not adj for _, v, _, load, _, adj in quotas),
            "lambda_concurrency": round(concurrency), "stream_shards": stream_shards,
            "quotas": [{"quota": q, "value": v, "unit": unit, "load": round(load, 2), "page": page, "adjustable": adj,
                        "over": v is not None and load > v} for q, v, unit, load, page, adj in quotas]}


# --- the recording ---------------------------------------------------------------------------------

RECORD_RACERS, RECORD_SECONDS = 1000, 6  # a race of the size the slices are planned for; seconds 1-5 steady
TARGETS = {"one race of 1,000": (1, 1000), "100 races of 1,000": (100, 1000), "one race of 10,000": (1, 10_000)}


def record(racers: int = RECORD_RACERS, seconds: int = RECORD_SECONDS) -> tuple[FanIn, tuple[Request, ...], dict]:
    """The race over MQTT with the fan-in on (``raceday.replay``): the requests by source, the stored blocks'
    and boards' sizes, the board's Query while open, the consumer's CPU and round trips."""
    from alleycat.rules import fanin
    from alleycat.storage import dynamo

    from . import env, raceday
    from .capacity import requests_of
    from .ledger import Ledger, size

    with env.Dynamo() as db:
        with Ledger() as ledger:
            result = raceday.replay(db, ledger, "bench-fanin", racers, seconds, bikes_post=True, over_mqtt=True,
                                    fan_in=True, history=True)
        race_id, measured = result["race_id"], result["measured"]
        blocks = [item for n in range(fanin.SLICES) for page in dynamo.client().get_paginator("query").paginate(
            TableName="bench-fanin", KeyConditionExpression="PK = :pk",
            ExpressionAttributeValues={":pk": {"S": f"SLICE#{race_id}#{n:03d}"}}) for item in page["Items"]
            if item["SK"]["S"].startswith("SECOND#")]
    racer_ids = frozenset(raceday.racer_id(n) for n in range(racers))
    steady = [run for run in measured["post"] if isinstance(run["label"], int) and run["label"] >= 1]
    ticks = [c for c in result["calls"] if c.label == "tick"]
    requests = (*(q for run in steady for q in requests_of("post", run["calls"], run["label"])),
                *(q for run in measured["join"] for q in requests_of("join", run["calls"])),
                *requests_of("tick", ticks),
                *(q for run in measured["history"] for q in requests_of("history", run["calls"])))
    per_attr = lambda items, skip: [(size(i), sum(1 for k in i if k not in skip)) for i in items]
    fixed = {"PK", "SK", "version", "applied", "recent", "type", "raceId", "slice", "second", "ttl"}
    sized = per_attr(blocks, fixed)
    boards = [i for i in measured["race_items"] if "#S" in i["SK"]["S"] and i["SK"]["S"].startswith("BOARD#")]
    bsized = per_attr(boards, fixed)
    fit = lambda rows: _fit(rows)
    block_base, block_per = fit(sized)
    board_base, board_per = fit(bsized)
    read_total = sum(size(i) for i in measured["race_items"])
    read_base = sum(size(i) for i in measured["race_items"] if not i["SK"]["S"].startswith(("BOARD#", "JOINED#"))) \
        + len(boards) * board_base + 20 * 134  # the race item and its ticker's, empty board shards (bench.capacity)
    rider_seconds = sum(run["records"] for run in steady)
    fams = {p: family(p, race_id, racer_ids) for p in {r.partition for r in requests}}
    units = lambda src, pred, unit: sum(getattr(r, unit) for r in requests if r.source == src and pred(fams[r.partition], r))
    entry_rcu = units("post", lambda f, r: scope(f) == "racer", "rcu") / rider_seconds
    gate_rcu = units("post", lambda f, r: f.startswith("GATE#"), "rcu") / len(steady)
    claims = measured["tick"]["ticks"]
    tick_wcu = units("tick", lambda f, r: f.startswith(TICK_PREFIX), "wcu") / claims
    tick_rcu = units("tick", lambda f, r: not f.startswith("RACE#"), "rcu") / claims
    record_bytes = sum(run["record_bytes"] for run in steady) / rider_seconds
    new_blocks = len(blocks)  # each block item made once, its index entry with it
    block_index = sum(r.wcu for r in requests if r.source == "post" and r.index and r.partition.startswith("SECOND#"))
    memory = env.stack()["memory_mb"]["ingest_telemetry"]
    fi = FanIn(racers, rider_seconds, block_base, block_per, board_base, board_per, read_base,
               (read_total - read_base) / racers, entry_rcu, gate_rcu, tick_wcu, tick_rcu, record_bytes,
               sum(run["cpu_ms"] for run in steady) / rider_seconds, sum(run["waves"] for run in steady) / len(steady),
               memory, block_index_wcu=block_index / max(new_blocks, 1))
    block_updates = [r for r in requests if r.source == "post" and fams[r.partition].startswith("SLICE#") and r.wcu]
    board_writes = [r for r in requests if r.source == "post" and r.item.startswith("BOARD#") and r.wcu]
    updates = round(len(block_updates) / (rider_seconds / racers) / fanin.SLICES) or 1  # a slice's, a second
    checks = (("block WCU an update", sum(r.wcu for r in block_updates) / max(len(block_updates), 1),
               spread(racers, fanin.SLICES, lambda k: block_wcu(fi, k, updates)) / updates),
              ("board WCU a write", sum(r.wcu for r in board_writes) / max(len(board_writes), 1),
               spread(racers, fanin.SLICES, lambda k: math.ceil(board_size(fi, k) / KB))),
              ("ticker RCU a tick (its Query, strongly consistent)", measured["tick"]["rcu_per_tick"],
               read_rcu(fi, racers, consistent=True)),
              ("hot-path WCU a racer-second", (sum(r.wcu for r in block_updates) + sum(r.wcu for r in board_writes))
               / rider_seconds, None))
    extra = {"invocations": len(steady), "records_per_invocation": rider_seconds / len(steady),
             "board_rows": measured.get("board_rows"), "tick": measured["tick"], "race_id": race_id,
             "block_updates": len(block_updates), "board_writes": len(board_writes)}
    return replace(fi, checks=checks), requests, extra


def _fit(rows: list[tuple[int, int]]) -> tuple[float, float]:
    """Least squares of bytes = base + per × attributes over the stored items."""
    n = len(rows)
    mx, my = sum(a for _, a in rows) / n, sum(b for b, _ in rows) / n
    var = sum((a - mx) ** 2 for _, a in rows)
    per = sum((a - mx) * (b - my) for b, a in rows) / var if var else my / max(mx, 1)
    return my - per * mx, per


def largest_race(fi: FanIn, sz: Sizing, hist: History, step: int = 1000, most: int = 100_000) -> int:
    """The most riders one race takes (in ``step``s) with every partition under its limits and no quota AWS does not
    raise passed: a group's key takes riders / 16 records a second, on one shard and one lane whatever the plan."""
    fitting = [riders for riders in range(step, most + step, step) if second(fi, sz, 1, riders, hist=hist)["fits"]]
    return max(fitting, default=0)


def figures_of(fi: FanIn, requests: tuple[Request, ...], extra: dict, sz: Sizing, hist: History | None = None) -> dict:
    hist = hist or history(requests, fi.racers)
    scenarios = {name: second(fi, sz, races, riders, hist=hist) for name, (races, riders) in TARGETS.items()}
    judged = [scenarios["100 races of 1,000"], scenarios["one race of 10,000"]]
    # a batch a lane a second: the mapping with a 1-s window (or a polled iterator's base rate), at 1,000 and at 100
    paced = replace(sz, window_s=max(sz.window_s, 1.0))
    small_batch = {"one race of 10,000": second(fi, replace(paced, batch=100), 1, 10_000, hist=hist)}
    window = {name: second(fi, paced, races, riders, hist=hist) for name, (races, riders) in TARGETS.items()}
    return {"scenarios": scenarios,
            "riders": scenarios["100 races of 1,000"]["riders"], "largest_race": largest_race(fi, sz, hist),
            "every_scenario_fits": all(s["fits"] for s in judged),
            "lever_window_1s": {"scenarios": window, "largest_race": largest_race(fi, paced, hist),
                                "every_scenario_fits": window["100 races of 1,000"]["fits"]
                                and window["one race of 10,000"]["fits"]},
            "hottest_partition_wcu": max(s["hottest_partition_wcu"] for s in judged),
            "hottest_partition_rcu": max(s["hottest_partition_rcu"] for s in judged),
            "wcu_per_racer_second": scenarios["100 races of 1,000"]["wcu_per_racer_second_hot_path"],
            "wcu_per_racer_second_with_history": scenarios["100 races of 1,000"]["wcu_per_racer_second_with_history"],
            "every_partition_under": all(r["under"] for s in judged for r in s["partitions"].values()),
            "quotas_over_default": sorted({q["quota"] for s in judged for q in s["quotas"] if q["over"]}),
            "at_batch_100": small_batch,  # the mapping's batch before 2026-11-29, a batch a lane a second
            # starts spread over a minute: ⌈races / 60⌉ races share a race second's index partition
            "index_second_wcu_starts_spread_over_a_minute": math.ceil(100 / 60) * 16 * fi.block_index_wcu, "history": asdict(hist),
            "history_wcu_per_racer_second": round(hist.wcu_a_racer_second, 4), "measured": asdict(fi),
            "recorded": {k: v for k, v in extra.items() if k != "race_id"}, "sizing": asdict(sz)}


def say_figures(f: dict) -> None:
    from .env import say

    for name, s in f["scenarios"].items():
        say(f"fan-in: {name}: {'fits' if s['fits'] else 'DOES NOT FIT'}; a lane's batches a second "
            f"{s['placement']['lane_batches']:.1f}; {s['slices_a_race']} slices of "
            f"{s['racers_a_slice']}, Kinesis {s['kinesis_shards']} shards (planned {s['kinesis_shards_planned']} evenly, "
            f"{s['kinesis_splits']} split; hottest {s['placement']['shard_records']:,.0f} records/s), slice updates "
            f"{s['slice_updates_a_second']}; hottest partition {s['hottest_partition_wcu']:,.0f} WCU/s "
            f"({s['hottest_partition_wcu_is']}), {s['hottest_partition_rcu']:,.0f} RCU/s ({s['hottest_partition_rcu_is']}); "
            f"hot path {s['wcu_per_racer_second_hot_path']:.3f} WCU a racer-second, {s['wcu_per_racer_second_with_history']:.3f} "
            f"with history ({s['history']}); over a default quota: "
            + (", ".join(f"{q['quota']} {q['load']:,.0f} > {q['value']:,}" for q in s["quotas"] if q["over"]) or "none"))
    h = f["history"]
    say(f"fan-in: history writer ({'recorded' if h['recorded'] else 'the design'}): {h['write_wcu']:.2f} WCU a chunk write, "
        f"{h['rcu_a_racer_batch']:.3f} RCU a racer a batch; largest race that fits: {f['largest_race']:,} riders")
    lever = f["lever_window_1s"]
    say("fan-in: with a 1-s batching window (a batch a lane a second): "
        + "; ".join(f"{name}: {'fits' if s['fits'] else 'DOES NOT FIT'}, hottest partition {s['hottest_partition_wcu']:,.0f} "
                    f"WCU/s, hot path {s['wcu_per_racer_second_hot_path']:.3f} WCU a racer-second"
                    for name, s in lever["scenarios"].items())
        + f"; largest race {lever['largest_race']:,}")
    say(f"fan-in: checks {f['measured']['checks']}")


def main() -> None:
    """``python -m bench.capacity_fanin``: the fan-in judged again from docs/performance.json's recorded figures (no
    DynamoDB: the model changed, not the recording), the report rewritten."""
    import json

    from . import report
    from .capacity import JUDGED, sizing

    path = report.ROOT / "docs" / "performance.json"
    figures = json.loads(path.read_text())
    scale = figures["scale"]
    recorded = scale["fan_in"]
    fi = FanIn(**{**recorded["measured"], "checks": tuple(map(tuple, recorded["measured"]["checks"]))})
    scale["fan_in"] = fan_in = figures_of(fi, (), recorded["recorded"], sizing(), History(**recorded["history"]))
    scale.update({name: fan_in[name] for name in JUDGED})
    say_figures(fan_in)
    report.write(figures, header=False)


def stage(sz: Sizing) -> dict:
    from .env import say

    say(f"scale (fan-in on): recording a race of {RECORD_RACERS} riders over MQTT for {RECORD_SECONDS} s")
    f = figures_of(*record(), sz)
    say_figures(f)
    return f


if __name__ == "__main__":
    main()
