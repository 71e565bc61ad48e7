"""Partition capacity at scale (issue 53, "measure before you move"): the DynamoDB requests the real handlers
made in a recorded race (``bench/ledger.py``), replayed for N races of R riders with their ids shifted, against
DynamoDB's per-partition limits and every quota on a rider's path (docs/capacity.md, "Walls today").

The core is pure (``evaluate``, ``wall``, ``join_phase``): it takes a ``Recording`` — the recorded requests, one
``Request`` per partition a request touched — and a ``Scenario``. Replaying for R riders "with their ids shifted"
means: a partition named by a racer id (``RACER#<racer>``, the index's ``HIST#<race>#<racer>#n``) is a rider's
own, so each rider has the recorded load of one, in a partition of their own; a partition named by the race
alone (``GATE#<race>#n``) is each race's own and takes R / R0 times the recorded load, spread over its copies;
any other (``RACES#open``, the index's ``CLASS#<class>``) is shared by every race. Two things do not scale by
shifting ids, and are modelled from the code with the recording as their check: the board shards (each stream
shard's invocation writes each board shard it touched, whole, so their writes grow with the board's size and
with the stream's shard count S) and the joins' board and race-item writes (a transaction on an ever larger
shard). ``stage()`` records the race through the real handlers on DynamoDB Local and prints the walls.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

KB, READ_KB = 1024, 4096
PARTITION_WCU, PARTITION_RCU = 1000, 3000
BOARD_PREFIX = "BOARD#"

# DynamoDB, API Gateway and Lambda figures, each with the page that states it (docs/capacity.md, "Walls today").
PAGES = {
    "partition": "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html",
    "table": "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html",
    "warm": "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html",
    "streams": "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Streams.html",
    "account_api": "https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html",
    "route": "https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-throttling.html",
    "lambda": "https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html",
    "scaling": "https://docs.aws.amazon.com/lambda/latest/dg/scaling-behavior.html",
    "mapping": "https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html",
}


@dataclass(frozen=True)
class Request:
    """A request's units in one partition: ``source`` post (a rider's second), stream (an invocation of the
    processor), join (a racer joining), roster (the processor's work on joins: their roster and count) or view
    (an origin fetch of the board); ``item`` the written item's SK."""
    source: str
    operation: str
    partition: str
    wcu: float = 0.0
    rcu: float = 0.0
    index: bool = False  # the inverted index's partition (an SK value), not the table's
    item: str = ""
    second: int | None = None


@dataclass(frozen=True)
class Board:
    """Sizes the code's items have, in bytes (measured on the recorded race's stored items)."""
    shards: int  # entities.BOARD_SHARDS
    shard_base: int  # an empty board shard
    racing: float  # a racer's standing while racing
    joined: float  # a racer's standing as the join writes it
    race_other: int  # the rest of the board's Query: the race item
    per_write: int = 100  # races.STANDINGS_PER_WRITE: racers of a shard one update sets
    rostered: float = 0.0  # a racer's row on the race's rosters, which the board's Query reads until the settlement


@dataclass(frozen=True)
class Roster:
    """A roster item's size in bytes (``entities.RaceRoster``, sized): empty, and each racer's row on it."""
    base: int = 0
    per_racer: float = 0.0
    per_write: int = 98  # stream.joins.ROSTER_PER_WRITE: racers one transaction rosters


@dataclass(frozen=True)
class Recording:
    requests: tuple[Request, ...]
    race_id: str
    racer_ids: frozenset[str]
    rider_seconds: int  # posts recorded (one sample each, bikes posting)
    invocations: int  # stream invocations recorded in those seconds
    joins: int
    views: int
    board: Board
    post_ms: float  # a post's duration as Lambda would bill it (modelled: CPU at its memory + round trips)
    join_ms: float
    stream_ms_per_record: float  # the processor's time per record (its CPU at its memory)
    stream_ms_per_invocation: float  # and per invocation (round trips)
    copies: tuple[tuple[str, int], ...] = ()  # a race-scoped family's copies as the code makes them (GATE_COPIES)
    roster: Roster = Roster()
    roster_invocations: int = 0  # stream invocations that rostered the recorded joins (source "roster")

    @cached_property
    def families(self) -> dict[str, str]:
        return {p: family(p, self.race_id, self.racer_ids) for p in {r.partition for r in self.requests}}

    @cached_property
    def per_rider(self) -> _Rates:
        """Units a rider's second costs (their post, the stream's work on their records), by partition family."""
        return _rates(self, {"post", "stream"}, self.rider_seconds,
                      lambda r: r.source == "post" or r.index or scope(self.families[r.partition]) == "racer")

    @cached_property
    def per_invocation(self) -> _Rates:
        """Units a stream invocation costs beyond its racers' own partitions and the board shards."""
        return _rates(self, {"stream"}, self.invocations, lambda r: not r.index and not r.item.startswith(BOARD_PREFIX)
                      and scope(self.families[r.partition]) != "racer")

    @cached_property
    def racer_peak(self) -> tuple[float, float]:
        return racer_peak(self)


@dataclass(frozen=True)
class Quotas:
    telemetry_route_rps: float = 2000  # stacks/api.py THROTTLES, as synthesized (the stage reads the template)
    join_route_rps: float = 200
    account_rps: float = 10_000  # API Gateway, per account and Region
    lambda_concurrency: float = 1000
    table_wru: float = 40_000  # on-demand, per table (each of its GSIs has its own)
    table_rru: float = 40_000
    new_table_wcu: float = 4000  # a new on-demand table's warm throughput: 4 partitions' worth
    stream_batch: int = 1000  # the mapping's BatchSize (stacks/settings.py)


@dataclass(frozen=True)
class Scenario:
    races: float  # may be fractional: riders spread as races of `riders`
    riders: int  # per race
    hz: float = 1.0  # samples a rider posts a second (one request each)
    shards: int | None = None  # stream shards S; None: as the table's throughput needs (``shards``)
    origin_fetches: float = 1.0  # board reads reaching the table per race a second (CloudFront, Origin Shield)

    @property
    def total(self) -> float:
        return self.races * self.riders


# --- the recording, classified -------------------------------------------------------------------

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def family(partition: str, race_id: str, racer_ids: frozenset[str]) -> str:
    """The partition with its ids named: ``RACER#<racer>``, ``GATE#<race>#<n>``, ``CLASS#hill-climb``."""
    named = partition.replace(race_id, "<race>")
    found = {m.group(0) for m in _UUID.finditer(named)} & racer_ids or {r for r in racer_ids if r in named}
    for racer in found:
        named = named.replace(racer, "<racer>")
    return re.sub(r"#\d+$", "#<n>", named) if "<race>" in named and "<racer>" not in named else named


def scope(name: str) -> str:
    return "racer" if "<racer>" in name else "race" if "<race>" in name else "shared"


@dataclass
class _Rates:
    """Units a second per partition family: ``per`` the driver (a rider-second, an invocation, a join)."""
    wcu: dict = field(default_factory=lambda: defaultdict(float))
    rcu: dict = field(default_factory=lambda: defaultdict(float))
    copies: dict = field(default_factory=lambda: defaultdict(set))


def _rates(recording: Recording, sources: set[str], per: float, keep: Callable[[Request], bool]) -> _Rates:
    out = _Rates()
    for r in recording.requests:
        if r.source in sources and keep(r):
            name = ("index " if r.index else "") + recording.families[r.partition]
            out.wcu[name] += r.wcu / per
            out.rcu[name] += r.rcu / per
            out.copies[name].add(r.partition)
    return out


def racer_peak(recording: Recording) -> tuple[float, float]:
    """The most WCU and RCU one rider's own partition took in one recorded second (posts and stream)."""
    wcu: dict = defaultdict(float)
    rcu: dict = defaultdict(float)
    for r in recording.requests:
        if r.source in ("post", "stream") and r.second is not None and not r.index \
                and scope(recording.families[r.partition]) == "racer":
            wcu[r.partition, r.second] += r.wcu
            rcu[r.partition, r.second] += r.rcu
    return max(wcu.values(), default=0.0), max(rcu.values(), default=0.0)


# --- what the code writes, modelled --------------------------------------------------------------

def _binomial(n: int, p: float) -> list[tuple[int, float]]:
    """(k, P) of Binomial(n, p) where it has weight (mean ± 8 sd), in log space."""
    if n <= 0:
        return [(0, 1.0)]
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    lo, hi = max(0, int(mean - 8 * sd) - 1), min(n, int(mean + 8 * sd) + 2)
    log = lambda k: (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                     + k * math.log(p) + (n - k) * math.log1p(-p))
    weights = [(k, math.exp(log(k))) for k in range(lo, hi + 1)]
    total = sum(w for _, w in weights)
    return [(k, w / total) for k, w in weights]


@lru_cache(maxsize=4096)
def shard_wcu(board: Board, riders: int, per_standing: float | None = None) -> float:
    """Mean WCU of writing one board shard of a race of ``riders`` (the whole item, ≤ 1 KB a unit), racers
    falling on shards as crc32 of their ids does: Binomial(riders, 1 / shards) a shard."""
    each = board.racing if per_standing is None else per_standing
    return sum(p * math.ceil((board.shard_base + k * each) / KB) for k, p in _binomial(riders, 1 / board.shards))


def board_writes(board: Board, riders: int, racers_per_invocation: float) -> float:
    """WCU one stream invocation carrying ``racers_per_invocation`` of a race's racers writes on its boards:
    one update per shard touched (per ``per_write`` racers of it), each the shard's whole size."""
    k = max(racers_per_invocation, 0.0)
    touched = board.shards * (1 - (1 - 1 / board.shards) ** k)
    per_shard = k / touched if touched else 0.0
    return touched * max(1, math.ceil(per_shard / board.per_write)) * shard_wcu(board, riders)


def board_read_rcu(board: Board, riders: int) -> float:
    """A board read (the race, its shards and its rosters, one eventually consistent Query)."""
    size = board.race_other + board.shards * board.shard_base + riders * (board.racing + board.rostered)
    return 0.5 * math.ceil(size / READ_KB)


def invocations_per_shard(quotas: Quotas, sc: Scenario, shards: int) -> int:
    """Stream invocations a shard makes a second: the batching window's one, more when the batch fills."""
    return max(1, math.ceil(sc.total * sc.hz / shards / quotas.stream_batch))


# --- a scenario's second -------------------------------------------------------------------------

@dataclass
class Load:
    shards: int
    partitions: dict  # family -> {"wcu": per partition, "rcu": per partition, "kind": table|index}
    table_wcu: float
    table_rcu: float
    index_wcu: float
    requests: dict  # route -> per second
    concurrency: float
    stream_busy: float  # seconds of processor time a shard needs each second
    wcu_per_racer_second: float

    def hottest(self, unit: str, kind: str = "table") -> tuple[str, float]:
        rows = [(name, row[unit]) for name, row in self.partitions.items() if row["kind"] == kind]
        return max(rows, key=lambda row: row[1], default=("", 0.0))


@dataclass
class _Tally:
    """A second's units: per partition of each family, and on the table and the index in all."""
    partitions: dict = field(default_factory=dict)  # family -> {"wcu", "rcu", "kind": table|index}
    totals: dict = field(default_factory=lambda: dict.fromkeys(("table wcu", "table rcu", "index wcu", "index rcu"), 0.0))

    def add(self, name: str, wcu: float, rcu: float, everywhere: float) -> None:
        """``wcu``/``rcu`` a second on one partition of ``name``; ``everywhere``: on all of them together."""
        kind = "index" if name.startswith("index ") else "table"
        row = self.partitions.setdefault(name, {"wcu": 0.0, "rcu": 0.0, "kind": kind})
        row["wcu"], row["rcu"] = row["wcu"] + wcu, row["rcu"] + rcu
        self.totals[f"{kind} wcu"] += wcu * everywhere
        self.totals[f"{kind} rcu"] += rcu * everywhere


def evaluate(recording: Recording, quotas: Quotas, sc: Scenario) -> Load:
    """A racing second of ``sc``: every partition's units, the table's, the routes' requests, Lambda's concurrency.
    S (stream shards, one per table partition) is the scenario's or the fewest the table's throughput needs:
    at least a new table's warm throughput in partitions, each ≤ 1,000 WCU and 3,000 RCU — found by iterating,
    since the board writes grow with S; a board partition past its limit counts at its limit (the rest is throttled,
    it adds no partition)."""
    shards = sc.shards or max(1, math.ceil(quotas.new_table_wcu / PARTITION_WCU))
    for _ in range(200):
        load = _second(recording, quotas, sc, shards)
        served = load.table_wcu - sc.races * max(0.0, load.partitions["RACE#<race>"]["wcu"] - PARTITION_WCU)
        needed = max(shards, math.ceil(served / PARTITION_WCU), math.ceil(load.table_rcu / PARTITION_RCU))
        if sc.shards or needed == shards:
            return load
        shards = needed
    return load


def _second(recording: Recording, quotas: Quotas, sc: Scenario, shards: int) -> Load:
    board, R, N, hz = recording.board, sc.riders, sc.races, sc.hz
    posts = sc.total * hz
    per_rider, per_invocation = recording.per_rider, recording.per_invocation
    per_shard = invocations_per_shard(quotas, sc, shards)
    race_invocations = shards * per_shard  # every shard carries every race's records (racers >> shards)
    tally = _Tally()
    partitions, totals, add = tally.partitions, tally.totals, tally.add

    for rates, per_race in ((per_rider, R * hz), (per_invocation, race_invocations)):
        for name in rates.wcu.keys() | rates.rcu.keys():
            wcu, rcu, where, copies = rates.wcu[name], rates.rcu[name], scope(name.removeprefix("index ")), \
                max(1, len(rates.copies[name]), dict(recording.copies).get(name, 0))
            if where == "racer":  # a rider's own partition (its mean second; the peak is racer_peak's)
                add(name, wcu * hz, rcu * hz, sc.total)
            elif where == "race":  # each race's own, its load spread over its copies
                add(name, wcu * per_race / copies, rcu * per_race / copies, N * copies)
            else:  # one partition every race shares
                add(name, wcu * per_race * N, rcu * per_race * N, 1)
    peak_wcu, peak_rcu = recording.racer_peak
    if "RACER#<racer>" in partitions:
        row = partitions["RACER#<racer>"]
        row["wcu"], row["rcu"] = max(peak_wcu * hz, row["wcu"]), max(peak_rcu * hz, row["rcu"])
    add("RACE#<race>", race_invocations * board_writes(board, R, R / race_invocations),
        sc.origin_fetches * board_read_rcu(board, R), N)
    requests = {"post_telemetry": posts, "get_race_leaderboard (origin)": N * sc.origin_fetches}
    busy = per_shard * recording.stream_ms_per_invocation / 1000 \
        + posts / shards * recording.stream_ms_per_record / 1000
    concurrency = posts * recording.post_ms / 1000 + shards  # a shard's processor: one at a time (factor 1)
    return Load(shards, partitions, totals["table wcu"], totals["table rcu"], totals["index wcu"], requests,
                concurrency, busy, (totals["table wcu"] + totals["index wcu"]) / max(posts, 1e-9))


# --- limits and quotas ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Limit:
    name: str
    value: float
    unit: str
    page: str
    load: Callable[[Load], float]
    adjustable: bool


def limits(quotas: Quotas) -> list[Limit]:
    return [
        Limit("telemetry route throttle", quotas.telemetry_route_rps, "requests/s", PAGES["route"],
              lambda x: x.requests["post_telemetry"], True),
        Limit("API Gateway account throttle", quotas.account_rps, "requests/s", PAGES["account_api"],
              lambda x: sum(x.requests.values()), True),
        Limit("Lambda concurrent executions", quotas.lambda_concurrency, "executions", PAGES["lambda"],
              lambda x: x.concurrency, True),
        Limit("DynamoDB table write units (on-demand)", quotas.table_wru, "WRU/s", PAGES["table"],
              lambda x: x.table_wcu, True),
        Limit("DynamoDB table read units (on-demand)", quotas.table_rru, "RRU/s", PAGES["table"],
              lambda x: x.table_rcu, True),
        Limit("a partition's writes: the race's board partition", PARTITION_WCU, "WCU/s", PAGES["partition"],
              lambda x: x.partitions["RACE#<race>"]["wcu"], False),
        Limit("a partition's writes: any other table partition", PARTITION_WCU, "WCU/s", PAGES["partition"],
              lambda x: max((r["wcu"] for n, r in x.partitions.items() if r["kind"] == "table" and n != "RACE#<race>"),
                            default=0.0), False),
        Limit("a partition's reads: any table partition", PARTITION_RCU, "RCU/s", PAGES["partition"],
              lambda x: x.hottest("rcu")[1], False),
        Limit("a partition's writes: the inverted index", PARTITION_WCU, "WCU/s", PAGES["partition"],
              lambda x: x.hottest("wcu", "index")[1], False),
        Limit("a stream shard's processor (parallelization factor 1)", 1.0, "s of work a second", PAGES["mapping"],
              lambda x: x.stream_busy, False),
    ]


def wall(recording: Recording, quotas: Quotas, shape: Callable[[int], Scenario], limit: Limit,
         most: int = 1_000_000) -> int | None:
    """The fewest riders (in all) at which ``limit`` is passed, riders placed by ``shape``; None: not by ``most``."""
    over = lambda riders: limit.load(evaluate(recording, quotas, shape(riders))) > limit.value
    if not over(most):
        return None
    lo, hi = 1, most  # over(hi), the loads grow with riders
    if over(lo):
        return lo
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if over(mid) else (mid, hi)
    return hi


def walls(recording: Recording, quotas: Quotas, shape: Callable[[int], Scenario]) -> list[dict]:
    """Every limit's wall for riders placed by ``shape``, the first first."""
    rows = []
    for limit in limits(quotas):
        riders = wall(recording, quotas, shape, limit)
        at = evaluate(recording, quotas, shape(riders)) if riders else None
        rows.append({"limit": limit.name, "value": limit.value, "unit": limit.unit, "page": limit.page,
                     "adjustable": limit.adjustable, "riders": riders, "shards_there": at.shards if at else None})
    return sorted(rows, key=lambda row: (row["riders"] is None, row["riders"] or 0))


def one_race(riders: int) -> Scenario:
    return Scenario(1, riders)


def races_of(size: int) -> Callable[[int], Scenario]:
    return lambda riders: Scenario(riders / size, size)


# --- joins ---------------------------------------------------------------------------------------

ROSTER_PREFIX = "JOINED#"
JOIN_HEADROOM = 0.8  # the share of a partition's limit a join phase may take: the rest for everything else on it


def roster_item_wcu(recording: Recording, joins: float) -> float:
    """WCU of the roster items one stream invocation carrying ``joins`` of a race's joins writes: one item per
    ``per_write`` racers, each a transactional put of its size (twice its units)."""
    if joins <= 0:
        return 0.0
    roster = recording.roster
    writes = math.ceil(joins / roster.per_write)
    return writes * 2 * math.ceil((roster.base + joins / writes * roster.per_racer) / KB)


def _is_roster_item(r: Request) -> bool:
    return r.item.startswith(ROSTER_PREFIX)


def join_second(recording: Recording, quotas: Quotas, rate: float, races: float = 1, shards: int | None = None) -> Load:
    """A second of a mass start: ``rate`` joins a second in each of ``races`` races. A join's own requests (its
    read, its transaction: the racer's entry and first chunk, the check of a gate copy) scale per join, by partition
    family as posts do; the stream's roster work per join (the entry read and marked) too; its per-invocation work
    (the roster item, the race's count, the race read, the card) per stream invocation, S a second per race (each
    shard's batch carries some of every race's joins), the roster item sized for the joins it carries."""
    per_join = _rates(recording, {"join"}, recording.joins, lambda r: True)
    roster_joins = _rates(recording, {"roster"}, recording.joins,
                          lambda r: r.index or scope(recording.families[r.partition]) == "racer")
    roster_calls = _rates(recording, {"roster"}, max(recording.roster_invocations, 1),
                          lambda r: not r.index and scope(recording.families[r.partition]) != "racer"
                          and not _is_roster_item(r))
    shards = shards or max(1, math.ceil(quotas.new_table_wcu / PARTITION_WCU))
    for _ in range(100):
        invocations = min(float(shards), rate)  # a race's invocations a second (one per shard carrying its joins)
        tally = _Tally()
        partitions, totals, add = tally.partitions, tally.totals, tally.add

        for rates, per_race in ((per_join, rate), (roster_joins, rate), (roster_calls, invocations)):
            for name in rates.wcu.keys() | rates.rcu.keys():
                wcu, rcu, where = rates.wcu[name], rates.rcu[name], scope(name.removeprefix("index "))
                copies = max(1, len(rates.copies[name]), dict(recording.copies).get(name, 0))
                if where == "racer":  # a racer joins once: their own partitions take one join's units
                    add(name, wcu, rcu, rate * races)
                elif where == "race":
                    add(name, wcu * per_race / copies, rcu * per_race / copies, races * copies)
                else:
                    add(name, wcu * per_race * races, rcu * per_race * races, 1)
        add("RACE#<race>", invocations * roster_item_wcu(recording, rate / invocations), 0.0, races)
        needed = max(shards, math.ceil(totals["table wcu"] / PARTITION_WCU), math.ceil(totals["table rcu"] / PARTITION_RCU))
        if needed == shards:
            break
        shards = needed
    requests = {"join_race": rate * races}
    concurrency = rate * races * recording.join_ms / 1000 + shards
    return Load(shards, partitions, totals["table wcu"], totals["table rcu"], totals["index wcu"], requests, concurrency,
                0.0, (totals["table wcu"] + totals["index wcu"]) / max(rate * races, 1e-9))


def _join_fits(load: Load) -> bool:
    return all(row["wcu"] <= PARTITION_WCU * JOIN_HEADROOM and row["rcu"] <= PARTITION_RCU * JOIN_HEADROOM
               for row in load.partitions.values())


def join_phase(recording: Recording, quotas: Quotas, riders: int, races: int = 1) -> dict:
    """``riders`` joining each of ``races`` races as fast as the walls let them: the join route's throttle (all races
    share it) or the first partition to reach ``JOIN_HEADROOM`` of its limit, whichever comes first. The figures
    of that second: each partition's units, S, Lambda's concurrency."""
    top = quotas.join_route_rps / races
    lo, hi = 0.0, top
    if _join_fits(join_second(recording, quotas, top, races)):
        lo = top
    else:
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _join_fits(join_second(recording, quotas, mid, races)) else (lo, mid)
    rate = lo
    load = join_second(recording, quotas, rate, races)
    share = lambda row: max(row["wcu"] / PARTITION_WCU, row["rcu"] / PARTITION_RCU)
    binding = max(load.partitions, key=lambda name: share(load.partitions[name]))
    name_w, wcu = max(((n, r["wcu"]) for n, r in load.partitions.items()), key=lambda row: row[1])
    name_r, rcu = max(((n, r["rcu"]) for n, r in load.partitions.items()), key=lambda row: row[1])
    return {"riders": riders, "races": races, "joins_per_second": round(rate, 1),
            "seconds": round(riders / rate, 1) if rate else None,
            "by": "join route throttle" if rate == top else f"partition {binding} at {JOIN_HEADROOM:.0%} of its limit",
            "route_seconds": round(riders * races / quotas.join_route_rps, 1), "stream_shards": load.shards,
            "hottest_partition_wcu": round(wcu, 1), "hottest_partition_wcu_is": name_w,
            "hottest_partition_rcu": round(rcu, 1), "hottest_partition_rcu_is": name_r,
            "race_partition_wcu": round(load.partitions["RACE#<race>"]["wcu"], 1),
            "table_wcu": round(load.table_wcu), "index_wcu": round(load.index_wcu),
            "lambda_concurrency": round(load.concurrency), "api_requests_per_second": round(rate * races),
            "partitions": {n: {"wcu": round(r["wcu"], 2), "rcu": round(r["rcu"], 2)} for n, r in sorted(load.partitions.items())}}


# --- from the bench's ledger ---------------------------------------------------------------------

def requests_of(source: str, calls: Iterable, second: int | None = None) -> list[Request]:
    """``Request``s of ledger calls (``bench.ledger.Call``): a write per item and index entry, a read per partition."""
    out = []
    for call in calls:
        at = call.label if isinstance(call.label, int) else second
        for w in call.writes:
            out.append(Request(source, call.operation, w.partition, wcu=w.units, item=w.item or "", second=at))
            out += [Request(source, call.operation, p, wcu=u, index=True, second=at) for p, u in w.index]
        out += [Request(source, call.operation, r.partition, rcu=r.units, index=r.index, second=at) for r in call.reads]
    return out


def at_scale(recording: Recording, quotas: Quotas, sc: Scenario) -> dict:
    """The figures performance.json keeps for a scenario."""
    load = evaluate(recording, quotas, sc)
    name_w, wcu = max(((n, r["wcu"]) for n, r in load.partitions.items()), key=lambda row: row[1])
    name_r, rcu = max(((n, r["rcu"]) for n, r in load.partitions.items()), key=lambda row: row[1])
    over = [{"limit": limit.name, "load": round(limit.load(load), 2), "value": limit.value}
            for limit in limits(quotas) if limit.load(load) > limit.value]
    return {"races": sc.races, "riders_per_race": sc.riders, "riders": sc.total, "hz": sc.hz, "stream_shards": load.shards,
            "hottest_partition_wcu": round(wcu, 1), "hottest_partition_wcu_is": name_w,
            "hottest_partition_rcu": round(rcu, 1), "hottest_partition_rcu_is": name_r,
            "board_partition_wcu": round(load.partitions["RACE#<race>"]["wcu"], 1),
            "table_wcu": round(load.table_wcu), "table_rcu": round(load.table_rcu), "index_wcu": round(load.index_wcu),
            "wcu_per_racer_second": round(load.wcu_per_racer_second, 3),
            "lambda_concurrency": round(load.concurrency), "stream_shard_busy_s": round(load.stream_busy, 3),
            "over": over}


def with_shards(sc: Scenario, shards: int) -> Scenario:
    return replace(sc, shards=shards)


# --- the bench's stage: a race recorded through the real handlers ----------------------------------

RECORD_RACERS, RECORD_SECONDS = 50, 61  # seconds 1-60 steady: two chunk turns (30 s each), as a whole race has
STEADY = range(1, RECORD_SECONDS)
TARGETS = {"today: one race of 1,000": Scenario(1, 1000), "100 races of 1,000": Scenario(100, 1000),
           "one race of 10,000": Scenario(1, 10_000)}


def deployed_quotas() -> Quotas:
    """The route throttles and the stream's batch as synthesized (stacks/api.py, stacks/settings.py)."""
    from . import env

    resources = env.template()["Resources"]
    [stage] = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::ApiGatewayV2::Stage"]
    routes = stage.get("RouteSettings", {})
    rate = lambda suffix: next(s["ThrottlingRateLimit"] for route, s in routes.items() if route.endswith(suffix))
    return Quotas(telemetry_route_rps=rate("/telemetry"), join_route_rps=rate("/races/{raceId}/racers/{racerId}"),
                  stream_batch=env.stack()["stream_batch_size"])


def record(racers: int = RECORD_RACERS, seconds: int = RECORD_SECONDS, stream_cpu_ms_per_record: float | None = None
           ) -> Recording:
    """A race through the real handlers on DynamoDB Local, bikes posting their own samples (``raceday.replay``):
    every DynamoDB request by source, the sizes of the race's stored board shards and race item. The processor's
    CPU a record is the recording's (its 50-record invocations: an upper bound, each invocation's own cost
    spread over few records) unless ``stream_cpu_ms_per_record`` is given (the 1,000-racer replay's)."""
    from alleycat.rules.board import Standing
    from alleycat.storage import dynamo, races, sizing
    from alleycat.storage import entities as e
    from alleycat.stream import joins

    from . import env, raceday
    from .ledger import Ledger
    from .pricing import ASSUMED

    table = "bench-scale"
    with env.Dynamo() as db:
        with Ledger() as ledger:
            result = raceday.replay(db, ledger, table, racers, seconds, bikes_post=True)
        race_id, measured = result["race_id"], result["measured"]
        pages = dynamo.client().get_paginator("query").paginate(
            TableName=table, KeyConditionExpression="PK = :pk", ExpressionAttributeValues={":pk": {"S": f"RACE#{race_id}"}})
        stored = [item for page in pages for item in page["Items"] if item["SK"]["S"] < "REPLAY#"]
    boards = [i for i in stored if i["SK"]["S"].startswith(BOARD_PREFIX)]
    base = sizing.item_size(e.RaceBoard(race_id, 0).to_item())
    standings = sum(len(i["standings"]["M"]) for i in boards)
    racing = (sum(sizing.item_size(i) for i in boards) - base * len(boards)) / standings
    one = e.RaceBoard(race_id, 0)
    one.standings[raceday.racer_id(0)] = Standing.joined(raceday.racer_id(0), "Racer 0").item()
    joined = sizing.item_size(one.to_item()) - base
    batch = "4" * 21  # a stream record's sequence number: 21 digits or more
    empty = sizing.item_size(e.RaceRoster(race_id, batch).to_item())
    rows = {raceday.racer_id(n): [f"Racer {n}", "bike"] for n in range(racers)}
    roster = Roster(empty, (sizing.item_size(e.RaceRoster(race_id, batch, rows).to_item()) - empty) / racers,
                    joins.ROSTER_PER_WRITE)
    board = Board(e.BOARD_SHARDS, base, racing, joined, sum(sizing.item_size(i) for i in stored if i not in boards),
                  races.STANDINGS_PER_WRITE, roster.per_racer)

    memory, rtt = env.stack()["memory_mb"], ASSUMED["dynamodb_round_trip_ms"]["value"]
    stretch = lambda function: max(1.0, 1769 / memory[function])  # one vCPU at 1,769 MB
    posts = [run for run in measured["post"] if run["label"] in STEADY]
    streams = [run for run in measured["stream"] if run["label"] in STEADY]
    mean = lambda runs, key: sum(run[key] for run in runs) / len(runs)
    requests = [*(q for run in posts for q in requests_of("post", run["calls"], run["label"])),
                *(q for run in streams for q in requests_of("stream", run["calls"], run["label"])),
                *(q for run in measured["join"] for q in requests_of("join", run["calls"])),
                *(q for run in measured["roster"] for q in requests_of("roster", run["calls"])),
                *requests_of("view", [c for c in result["calls"] if c.label == "viewer"])]
    return Recording(tuple(requests), race_id, frozenset(raceday.racer_id(n) for n in range(racers)), len(posts),
                     len(streams), len(measured["join"]), 1, board,
                     post_ms=mean(posts, "cpu_ms") * stretch("post_telemetry") + mean(posts, "waves") * rtt,
                     join_ms=mean(measured["join"], "cpu_ms") * stretch("join_race") + mean(measured["join"], "waves") * rtt,
                     stream_ms_per_record=(stream_cpu_ms_per_record or sum(r["cpu_ms"] for r in streams)
                                           / sum(r["records"] for r in streams)) * stretch("stream_processor"),
                     stream_ms_per_invocation=mean(streams, "waves") * rtt, copies=(("GATE#<race>#<n>", e.GATE_COPIES),),
                     roster=roster, roster_invocations=sum(1 for run in measured["roster"] if any(
                         (w.item or "").startswith(ROSTER_PREFIX) for call in run["calls"] for w in call.writes)))


def checks(rec: Recording) -> dict:
    """The model against the recording it was fed: board writes, the board read, the joins' roster writes; and what
    a join writes on the race's partition (nothing)."""
    board_recorded = sum(r.wcu for r in rec.requests if r.source == "stream" and r.item.startswith(BOARD_PREFIX))
    racers = len(rec.racer_ids)
    view = sum(r.rcu for r in rec.requests if r.source == "view")
    roster = sum(r.wcu for r in rec.requests if r.source == "roster" and _is_roster_item(r))
    return {"board_wcu_per_invocation": {"recorded": board_recorded / rec.invocations,
                                         "model": board_writes(rec.board, racers, racers)},
            "board_read_rcu": {"recorded": view, "model": board_read_rcu(rec.board, racers)},
            "roster_wcu_per_invocation": {"recorded": roster / max(rec.roster_invocations, 1),
                                          "model": roster_item_wcu(rec, rec.joins / max(rec.roster_invocations, 1))},
            "join_wcu_on_race_partition": sum(r.wcu for r in rec.requests if r.source == "join"
                                              and rec.families[r.partition] == "RACE#<race>" and not r.index)}


def figures(rec: Recording, quotas: Quotas) -> dict:
    many, one = walls(rec, quotas, races_of(1000)), walls(rec, quotas, one_race)
    first = lambda rows: next(row for row in rows if row["riders"])
    one_partitions = [row for row in one if not row["adjustable"] and row["riders"]]
    targets = {name: at_scale(rec, quotas, sc) for name, sc in TARGETS.items()}
    at_targets = [targets["100 races of 1,000"], targets["one race of 10,000"]]
    by_shards = {s: at_scale(rec, quotas, with_shards(Scenario(1, 1000), s)) for s in (4, 8, 20, 240)}
    board_one = lambda s: evaluate(rec, quotas, Scenario(1, 1000, shards=s)).partitions["RACE#<race>"]["wcu"]
    return {
        "riders": first(many)["riders"] - 1, "largest_race": first(one)["riders"] - 1,
        "largest_race_partitions_only": one_partitions[0]["riders"] - 1 if one_partitions else None,
        "hottest_partition_wcu": max(t["hottest_partition_wcu"] for t in at_targets),
        "hottest_partition_rcu": max(t["hottest_partition_rcu"] for t in at_targets),
        "wcu_per_racer_second": targets["100 races of 1,000"]["wcu_per_racer_second"],
        "wcu_per_racer_second_today": targets["today: one race of 1,000"]["wcu_per_racer_second"],
        "walls_races_of_1000": many, "walls_one_race": one, "scenarios": targets,
        "joins": {str(n): join_phase(rec, quotas, n) for n in (1000, 10_000)},
        "join_seconds_10000": join_phase(rec, quotas, 10_000)["seconds"],
        "board_partition_wcu_race_of_1000_by_shards": {str(s): round(board_one(s), 1) for s in (1, 4, 8, 12, 20)},
        "wcu_per_racer_second_by_shards": {str(s): f["wcu_per_racer_second"] for s, f in by_shards.items()},
        "checks": checks(rec), "quotas": vars(quotas), "board_bytes": vars(rec.board),
        "recorded": {"racers": len(rec.racer_ids), "seconds": RECORD_SECONDS, "steady_seconds": len(STEADY),
                     "rider_seconds": rec.rider_seconds, "stream_invocations": rec.invocations, "joins": rec.joins,
                     "requests": len(rec.requests), "post_ms": round(rec.post_ms, 2), "join_ms": round(rec.join_ms, 2),
                     "stream_ms_per_record": round(rec.stream_ms_per_record, 4)},
    }


def say_walls(f: dict) -> None:
    from .env import say

    fmt = lambda n: f"{n:,}" if n else "not by 1,000,000"
    say("scale: walls today (the first passed first), riders at 1 Hz, modelled from a recorded race of "
        f"{f['recorded']['racers']} riders x {f['recorded']['seconds']} s through the real handlers")
    for title, rows in (("races of 1,000", f["walls_races_of_1000"]), ("one race", f["walls_one_race"])):
        for row in rows:
            say(f"scale: {title}: {row['limit']} ({row['value']:,.0f} {row['unit']}): {fmt(row['riders'])} riders"
                + (f" (S = {row['shards_there']})" if row["riders"] else ""))
    for n, j in f["joins"].items():
        say(f"scale: joins: {int(n):,} in one race in {j['seconds']:.1f} s ({j['joins_per_second']:,.0f}/s, by the {j['by']}; "
            f"S = {j['stream_shards']}, hottest partition {j['hottest_partition_wcu']:,.0f} WCU/s ({j['hottest_partition_wcu_is']}), "
            f"{j['hottest_partition_rcu']:,.0f} RCU/s ({j['hottest_partition_rcu_is']}), race partition "
            f"{j['race_partition_wcu']:,.0f} WCU/s, Lambda {j['lambda_concurrency']:,} concurrent)")
    for name, t in f["scenarios"].items():
        say(f"scale: {name}: S = {t['stream_shards']}, hottest partition {t['hottest_partition_wcu']:,.0f} WCU/s "
            f"({t['hottest_partition_wcu_is']}), {t['hottest_partition_rcu']:,.0f} RCU/s ({t['hottest_partition_rcu_is']}), "
            f"{t['wcu_per_racer_second']:.2f} WCU per racer-second; over: {', '.join(o['limit'] for o in t['over']) or 'none'}")
    say(f"scale: riders {f['riders']:,}, largest race {f['largest_race']:,} (partitions alone: "
        f"{f['largest_race_partitions_only']:,}); checks {f['checks']}")


def stage(measured: dict | None = None) -> dict:
    """``measured``: performance.json's figures (the 1,000-racer replay's stream invocations, where present)."""
    from .env import say

    stream = ((measured or {}).get("race_day") or {}).get("bikes", {}).get("stream_processor")
    per_record = stream["cpu_ms"]["mean"] / stream["records_per_invocation"] if stream else None
    say(f"scale: recording a race of {RECORD_RACERS} riders for {RECORD_SECONDS} s through the real handlers (fan-in off)")
    f = figures(record(stream_cpu_ms_per_record=per_record), deployed_quotas())
    f["stream_cpu_from"] = "race_day.bikes.stream_processor (1,000 records an invocation)" if stream else "the recording"
    say_walls(f)
    return judged_with_fan_in(f)


JUDGED = ("riders", "largest_race", "hottest_partition_wcu", "hottest_partition_rcu", "wcu_per_racer_second")


def sizing():
    """The fan-in's mapping as synthesized (batch, lanes) and a round trip's time as priced."""
    from .capacity_fanin import Sizing
    from .env import stack
    from .pricing import ASSUMED

    settings = stack()
    return Sizing(batch=settings["ingest_batch_size"], lanes=settings["ingest_parallelization"],
                  rtt_ms=ASSUMED["dynamodb_round_trip_ms"]["value"], window_s=settings["ingest_window_seconds"],
                  pushed=settings["ingest_pushed"])


def judged_with_fan_in(chunk_path: dict) -> dict:
    """The walls today (the chunk path, the reproduction check) kept as ``chunk_path_<figure>``; the judged figures
    the fan-in's (``bench.capacity_fanin``: the MQTT path with ``ALLEYCAT_FAN_IN=on``)."""
    from . import capacity_fanin

    fan_in = capacity_fanin.stage(sizing())
    return {**chunk_path, **{f"chunk_path_{name}": chunk_path[name] for name in JUDGED},
            **{name: fan_in[name] for name in JUDGED}, "fan_in": fan_in}
