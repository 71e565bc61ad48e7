"""Race day: 1,000 racers through the real ingest and stream code, and the naive design beside it."""

from __future__ import annotations

import random
import time
from collections import defaultdict
from decimal import Decimal

from alleycat import entities as e
from alleycat import ids, store
from alleycat.views import output

from . import env
from .ledger import Ledger, index_writes, per_partition, write_units
from .progress import say

CLASS_ID = "hill-climb"
DURATION = 300
STREAM_BATCH = 1000  # stacks/stream.py BATCH_SIZE
JOINS_REPLAYED = 20  # moto copies the whole table for every transaction action; the rest are written as a join would


def sample(racer: int, second: int) -> tuple[Decimal, int]:
    """The (cadence, resistance) racer `racer` sends at `second`: deterministic, 2-decimal cadence."""
    rng = random.Random(racer * 100_003 + second)
    return Decimal(f"{rng.uniform(60, 110):.2f}"), rng.randint(30, 70)


def racer_id(n: int) -> str:
    return f"racer-{n:04d}"


class Stream:
    """The embedded table's one stream shard, read from where the last read stopped."""

    def __init__(self, dynamo: env.Dynamo, table: str):
        import boto3

        self.client = boto3.client("dynamodbstreams", endpoint_url=dynamo.server.url)
        self.arn = dynamo.raw.describe_table(TableName=table)["Table"]["LatestStreamArn"]
        shard = self.client.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"][0]["ShardId"]
        self.iterator = self.client.get_shard_iterator(StreamArn=self.arn, ShardId=shard,
                                                       ShardIteratorType="TRIM_HORIZON")["ShardIterator"]

    def new_records(self) -> list[dict]:
        from local.streams import lambda_record

        out = []
        while True:
            response = self.client.get_records(ShardIterator=self.iterator, Limit=1000)
            self.iterator = response["NextShardIterator"]
            out += [lambda_record(r, self.arn) for r in response["Records"]]
            if not response["Records"]:
                return out


def deliver(stream: Stream) -> int:
    """Everything new on the stream to the stream handler, in batches as the event source mapping sends them."""
    records = stream.new_records()
    for start in range(0, len(records), STREAM_BATCH):
        response = env.invoke("stream_processor", {"Records": records[start:start + STREAM_BATCH]})
        assert not response["batchItemFailures"], response
    return -(-len(records) // STREAM_BATCH)


def replay(dynamo: env.Dynamo, ledger: Ledger, racers: int, budget: float, max_seconds: int) -> dict:
    table = "bench-race"
    dynamo.create(table)
    dynamo.use(table)
    dynamo.put_all([e.Class(CLASS_ID, "Hill climb").to_item()])
    ledger.label = "create"
    race = store.create_race(e.Race(ids.new_race_id(), CLASS_ID, "Hill climb", "2026-11-22T10:00:00Z", DURATION))
    ledger.label = "join"
    started = time.perf_counter()
    for n in range(JOINS_REPLAYED):
        store.join_race(race, e.Racer(racer_id(n), f"Racer {n}"))
    ledger.label = "seed"
    dynamo.put_all(_joined(race, racers))
    stream = Stream(dynamo, table)
    deliver(stream)
    say(f"race day: {racers} racers joined in {time.perf_counter() - started:.1f} s")

    per_second, invocations = [], []
    started = time.perf_counter()
    second = 0
    while second < max_seconds and (second == 0 or time.perf_counter() - started + per_second[-1] < budget):
        tick = time.perf_counter()
        ledger.label = second
        body = {"samples": [{"racerId": racer_id(n), "second": second, "cadence": float(c), "resistance": r}
                            for n in range(racers) for c, r in [sample(n, second)]]}
        response = env.invoke("post_telemetry", env.event("post_telemetry", {"raceId": race.raceId}, body=body))
        assert response["statusCode"] == 200, response
        invocations.append(deliver(stream))
        per_second.append(time.perf_counter() - tick)
        say(f"race day: simulated second {second:3d} replayed in {per_second[-1]:.1f} s "
            f"({invocations[-1]} stream invocation(s))")
        second += 1
    ledger.label = "viewer"
    view = env.invoke("get_race_leaderboard", env.event("get_race_leaderboard", {"raceId": race.raceId}, query={"limit": "1000"}))
    assert view["statusCode"] == 200
    return {"race": race, "seconds": second, "wall_per_second": per_second, "stream_invocations": invocations,
            "calls": ledger.take()}


def _joined(race: e.Race, racers: int) -> list[dict]:
    """The items `racers` joins leave behind (racers, entries, first chunks, boards, count), written in bulk."""
    boards = [e.RaceBoard(race.raceId, shard) for shard in range(e.BOARD_SHARDS)]
    items = []
    for n in range(racers):
        rid, name = racer_id(n), f"Racer {n}"
        boards[e.RaceBoard.shard_of(rid)].standings[rid] = [0, None, name]
        items += [e.Racer(rid, name).to_item(), e.Entry(race.raceId, rid, name, CLASS_ID, race.startsAt).to_item(),
                  e.Chunk(race.raceId, rid, 0, CLASS_ID).to_item()]
    race = e.Race(race.raceId, race.classId, race.className, race.startsAt, race.durationSeconds, racerCount=racers)
    return items + [b.to_item() for b in boards] + [race.to_item()]


def _kind(partition: str) -> str:
    head = partition.split("#", 1)[0]
    return {"RACER": "racer RACER#<racer>", "RACE": "race RACE#<race>", "CLASS": "class CLASS#<class>",
            "HIST": "chunk HIST#<race>#<racer>#<n>", "BEST": "BEST#<class>"}.get(head, head)


def peaks(calls, labels, index: bool) -> dict:
    """Peak WCU/s per partition kind over the given labels (simulated seconds)."""
    out: dict = defaultdict(float)
    for label, partitions in per_partition([c for c in calls if c.label in labels], index).items():
        for partition, units in partitions.items():
            kind = _kind(partition)
            out[kind] = max(out[kind], units)
    return dict(out)


def summarise(result: dict, racers: int) -> dict:
    calls = result["calls"]
    seconds = list(range(result["seconds"]))
    steady = seconds[1:] or seconds
    by_op: dict = defaultdict(lambda: {"requests": 0, "wcu": 0, "index_wcu": 0, "rcu": 0.0})
    for call in calls:
        if call.label in steady:
            row = by_op[call.operation]
            row["requests"] += 1
            row["wcu"] += call.write_units
            row["index_wcu"] += call.index_units
            row["rcu"] += call.read_units
    per_second_ops = {op: {k: v / len(steady) for k, v in row.items()} for op, row in by_op.items()}
    joins = [c for c in calls if c.label == "join"]
    join_table = per_partition(joins)["join"]
    join_index = per_partition(joins, index=True)["join"]
    race_partition = f"RACE#{result['race'].raceId}"
    telemetry_reads = [c for c in calls if c.label in steady and c.operation == "Query"]
    viewer = [c for c in calls if c.label == "viewer"][0]
    return {
        "racers": racers, "simulated_seconds": result["seconds"], "join_wcu_total": sum(c.write_units + c.index_units for c in joins) * racers / JOINS_REPLAYED,
        "wall_seconds_per_simulated_second": sum(result["wall_per_second"]) / len(result["wall_per_second"]),
        "stream_invocations_per_second": sum(result["stream_invocations"]) / len(result["stream_invocations"]),
        "per_second_by_operation": per_second_ops,
        "table_peaks": peaks(calls, set(steady), index=False),
        "index_peaks": peaks(calls, set(steady), index=True),
        "joins_replayed": JOINS_REPLAYED, "join_requests": len(joins),
        "race_partition_wcu_per_join": join_table.get(race_partition, 0) / JOINS_REPLAYED,
        "racer_partition_wcu_per_join": sum(v for k, v in join_table.items() if k.startswith("RACER#")) / JOINS_REPLAYED,
        "index_wcu_per_join_by_partition": {_kind(k): v / JOINS_REPLAYED for k, v in _merge_kinds(join_index).items()},
        "index_peak_partition_wcu_per_join": max(join_index.values()) / JOINS_REPLAYED,
        "telemetry_query_rcu": sum(c.read_units for c in telemetry_reads) / max(1, len(telemetry_reads)),
        "leaderboard_read_rcu": viewer.read_units, "leaderboard_read_bytes": viewer.read_bytes,
    }


def _merge_kinds(per_partition_units: dict) -> dict:
    merged: dict = defaultdict(int)
    for partition, units in per_partition_units.items():
        merged[_kind(partition) if not partition.startswith(("RACE#", "CLASS#")) else partition] += units
    return merged


def model(racers: int, sampled: int, seconds: int = DURATION) -> dict:
    """Per-second WCU of the chosen design and of the naive one, from the same sample stream.

    Chosen: each sample's chunk write and its entry write (racer partition), new chunks'
    index inserts, one write per board shard per stream invocation (race partition). Naive: one
    score item per racer in the race partition, ``ADD score``, an LSI keyed on score
    (KEYS_ONLY). Every `racers // sampled`-th racer is sized and the sums scaled up.
    """
    step = max(1, racers // sampled)
    chosen_racer = defaultdict(int)   # second -> max WCU on one racer partition
    chosen_total = defaultdict(int)   # second -> racer-partition WCU summed over racers (scaled)
    naive_race = defaultdict(int)     # second -> WCU on the race partition (table + LSI, scaled)
    chunk_index = defaultdict(int)
    standings: dict[str, list] = {}
    race_id = "01JD5Z6Q8X0000000000000000"
    for n in range(0, racers, step):
        rid = racer_id(n)
        chunk = e.Chunk(race_id, rid, 0, CLASS_ID)
        entry = e.Entry(race_id, rid, f"Racer {n}", CLASS_ID, "2026-11-22T10:00:00Z")
        score_before, total = None, Decimal(0)
        for second in range(seconds):
            cadence, resistance = sample(n, second)
            points = output(cadence, resistance)
            total += points
            number = second // e.Chunk.SECONDS
            old_chunk = chunk.to_item() if chunk.chunk == number else None
            if chunk.chunk != number:
                chunk = e.Chunk(race_id, rid, number, CLASS_ID)
            chunk.samples[second] = [cadence, resistance]
            chunk.points += points
            new_chunk = chunk.to_item()
            old_entry = entry.to_item()
            entry.chunks[str(number)] = [chunk.points, second]
            units = write_units(old_chunk, new_chunk) + write_units(old_entry, entry.to_item())
            chosen_racer[second] = max(chosen_racer[second], units)
            chosen_total[second] += units * step
            chunk_index[second] = max(chunk_index[second], sum(u for _, u in index_writes(old_chunk, new_chunk)))
            score = {"PK": {"S": f"RACE#{race_id}"}, "SK": {"S": f"RACER#{rid}"}, "type": {"S": "Score"},
                     "racerId": {"S": rid}, "name": {"S": f"Racer {n}"}, "score": {"N": str(total)}, "lastSecond": {"N": str(second)}}
            lsi = index_writes(score_before, score, index_key=("PK", "score"), projection=())
            naive_race[second] += (write_units(score_before, score) + sum(u for _, u in lsi)) * step
            score_before = score
        standings[rid] = [total, seconds - 1, f"Racer {n}"]
    board_units = write_units(None, _board_of(race_id, standings, racers, step))
    return {"sampled_racers": len(range(0, racers, step)), "board_shards": e.BOARD_SHARDS,
            "racer_partition_peak_wcu": max(chosen_racer.values()),
            "racer_partitions_total_wcu_peak": max(chosen_total.values()),
            "racer_partitions_total_wcu_race": sum(chosen_total.values()),
            "racer_partitions_wcu_per_second": [chosen_total[s] for s in range(seconds)],
            "chunk_index_peak_wcu": max(chunk_index.values()),
            "board_write_wcu_at_finish": board_units,
            "naive_race_partition_peak_wcu": max(naive_race.values()),
            "naive_race_partition_steady_wcu": naive_race[seconds // 2],
            "naive_total_wcu_race": sum(naive_race.values())}


def _board_of(race_id: str, standings: dict, racers: int, step: int) -> dict:
    """Board shard 0 as it stands at the end: its share of the racers (sampled standings repeated)."""
    values = list(standings.values())
    board = e.RaceBoard(race_id, 0, {racer_id(n): values[(n // step) % len(values)]
                                    for n in range(racers) if e.RaceBoard.shard_of(racer_id(n)) == 0})
    return board.to_item()
