"""Race day: 1,000 racers through the real ingest and stream code, and the naive design beside it."""

from __future__ import annotations

import gzip
import json
import random
import time
import uuid
from collections import defaultdict
from decimal import Decimal

from alleycat import entities as e
from alleycat.scores import output
from stacks.settings import STREAM_BATCH_SIZE
from local.streams import StreamTail, passes_filter

from . import bikes, env, pricing
from .ledger import Ledger, index_writes, per_partition, write_units
from .progress import say

CLASS_ID = "hill-climb"
DURATION = 300


def sample(racer: int, second: int) -> tuple[Decimal, int]:
    """The (cadence, resistance) racer `racer` sends at `second`: deterministic, 2-decimal cadence."""
    rng = random.Random(racer * 100_003 + second)
    return Decimal(f"{rng.uniform(60, 110):.2f}"), rng.randint(30, 70)


def racer_id(n: int) -> str:
    """A Cognito ``sub``-shaped id (36 characters), as deployed racers have: item sizes follow it."""
    return str(uuid.UUID(int=random.Random(n).getrandbits(128), version=4))


def deliver(stream: StreamTail, runner: bikes.Runner | None = None, ledger: Ledger | None = None,
            label=None, runs: list | None = None) -> int:
    """Everything new on the stream that passes the mapping's filter, to the real stream handler, in
    batches of the mapping's size (as the 1-second batching window would gather them). With a
    ``runner`` each invocation is measured in its worker; its requests join ``ledger``, its figures ``runs``."""
    records = [r for r in stream.read() if passes_filter(r)]
    for start in range(0, len(records), STREAM_BATCH_SIZE):
        event = {"Records": records[start:start + STREAM_BATCH_SIZE]}
        if runner is None:
            response = env.invoke("stream_processor", event)
            assert not response["batchItemFailures"], response
            continue
        run = runner.invoke("stream_processor", event, label)
        assert run["status"] is None and not run["failures"], run
        ledger.calls.extend(run["calls"])
        run["records"] = len(event["Records"])
        if runs is not None:
            runs.append(run)
    return -(-len(records) // STREAM_BATCH_SIZE)


ADMIN = {"sub": "ops", "cognito:groups": "admin"}


def _ok(function: str, path: dict | None = None, body=..., query=...) -> dict:
    response = env.invoke(function, env.event(function, path, body=body, query=query, claims=ADMIN))
    assert response["statusCode"] in (200, 201), (function, response)
    return json.loads(response["body"])


def replay(dynamo: env.Dynamo, ledger: Ledger, table: str, racers: int, seconds: int, finish: bool,
           settings: dict | None = None) -> dict:
    """A race through the real handlers on a fresh table: racers registered, every one joined,
    ``seconds`` of telemetry with the stream delivered after each, viewers' leaderboard reads, then
    optionally the finish.

    Without ``settings`` telemetry is one request a second carrying every racer (the simulator's
    batches). With them (the deployed functions' environment) the race runs as bikes post it
    (``bench.bikes``): every racer joins itself and posts its own one-sample request each second,
    all at once, each invocation measured in a worker process, the stream's too."""
    dynamo.create(table)
    dynamo.use(table)
    ledger.label = "setup"
    _ok("put_class", {"classId": CLASS_ID}, body={"name": "Hill climb"})
    for n in range(racers):
        _ok("put_racer", {"racerId": racer_id(n)}, body={"name": f"Racer {n}"})
    race = _ok("create_race", {"classId": CLASS_ID}, body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": DURATION})
    race_id = race["raceId"]
    stream = StreamTail.of_table(dynamo.server, table)
    runner = bikes.Runner(dynamo.server.url, table, settings) if settings is not None else None
    measured: dict = {"join": [], "post": [], "stream": [], "viewer": {}}
    try:
        ledger.label = "join"
        started = time.perf_counter()
        if runner is None:
            for n in range(racers):
                _ok("join_race", {"raceId": race_id, "racerId": racer_id(n)})
        else:
            joins = [env.event("join_race", {"raceId": race_id, "racerId": racer_id(n)}, claims={"sub": racer_id(n)})
                     for n in range(racers)]
            measured["join"] = runner.invoke_all("join_race", joins, "join")
            assert all(j["status"] == 200 for j in measured["join"]), measured["join"][0]
            for j in measured["join"]:
                ledger.calls.extend(j["calls"])
        join_seconds = time.perf_counter() - started
        deliver(stream, runner, ledger, "join")
        say(f"race day: {racers:,} racers joined through join_race in {join_seconds:.1f} s")

        per_second, invocations, stream_requests, telemetry_rcu, stream_rcu = [], [], [], [], []
        for second in range(seconds):
            first = len(ledger.calls)
            tick = time.perf_counter()
            ledger.label = second
            samples = [(racer_id(n), second, float(c), r) for n in range(racers) for c, r in [sample(n, second)]]
            if runner is None:
                batch = [{"racerId": rid, "second": sec, "cadence": c, "resistance": r} for rid, sec, c, r in samples]
                for start in range(0, racers, 1000):
                    body = _ok("post_telemetry", {"raceId": race_id}, body={"samples": batch[start:start + 1000]})
                    assert body["accepted"] == len(batch[start:start + 1000]), body
            else:
                posts = runner.posts(race_id, samples, second)
                assert all(p["status"] == 200 for p in posts), next(p for p in posts if p["status"] != 200)
                for p in posts:
                    ledger.calls.extend(p["calls"])
                measured["post"] += posts
            before = len(ledger.calls)
            invocations.append(deliver(stream, runner, ledger, second, measured["stream"]))
            stream_requests.append(len(ledger.calls) - before)
            telemetry_rcu.append(sum(c.read_units for c in ledger.calls[first:before]))
            stream_rcu.append(sum(c.read_units for c in ledger.calls[before:]))
            per_second.append(time.perf_counter() - tick)
            if second % 10 == 9 or second == seconds - 1:
                say(f"race day: {racers:,} racers, second {second + 1}/{seconds}, "
                    f"{sum(per_second[-10:]) / len(per_second[-10:]):.2f} s of wall time per simulated second")
        ledger.label = "viewer"
        board_event = env.event("get_race_leaderboard", {"raceId": race_id}, query={"limit": str(racers)})
        viewed = env.invoke("get_race_leaderboard", board_event) if runner is None else \
            runner.invoke("get_race_leaderboard", board_event, "viewer")
        board = json.loads(viewed["body"])
        assert len(board["items"]) == racers
        if runner is not None:
            ledger.calls.extend(viewed["calls"])
            measured["viewer"] = _pages(runner, race_id, racers)
        body = viewed["body"].encode()
        top = json.loads(viewed["body"])
        top["items"] = top["items"][:100]
        top_gzip = len(gzip.compress(json.dumps(top, separators=(",", ":")).encode()))
        finish_seconds = None
        if finish:
            ledger.label = "finish"
            started = time.perf_counter()
            _ok("finish_race", {"raceId": race_id})
            while deliver(stream, runner, ledger, "finish"):
                pass
            finish_seconds = time.perf_counter() - started
            say(f"race day: {racers:,} racers finished and settled in {finish_seconds:.1f} s")
    finally:
        if runner is not None:
            runner.stop()
    return {"race_id": race_id, "racers": racers, "seconds": seconds, "wall_per_second": per_second,
            "stream_invocations": invocations, "stream_requests": stream_requests,
            "telemetry_rcu": telemetry_rcu, "stream_rcu": stream_rcu,
            "leaderboard_bytes": len(body), "leaderboard_gzip_bytes": len(gzip.compress(body)),
            "leaderboard_top100_gzip_bytes": top_gzip, "join_seconds": join_seconds, "finish_seconds": finish_seconds,
            "measured": measured, "calls": ledger.take()}


PAGE_ROWS = 100  # the frontend's page: the top 100, and pages below in steps of 100 (frontend/src/pages/race.js)


def _pages(runner: bikes.Runner, race_id: str, racers: int, reads: int = 5) -> dict:
    """The live board as the frontend asks it — ``limit`` = 100, 200, … — each read ``reads`` times through
    the real handler: the answer's bytes (gzip, as CloudFront sends it), and the read measured."""
    pages = {}
    for limit in range(PAGE_ROWS, racers + PAGE_ROWS, PAGE_ROWS):
        limit = min(limit, racers)
        event = env.event("get_race_leaderboard", {"raceId": race_id}, query={"limit": str(limit)})
        runs = runner.invoke_all("get_race_leaderboard", [event] * reads, "viewer-pages")
        body = runs[0]["body"].encode()
        pages[limit] = {"bytes": len(body), "gzip_bytes": pricing.gzip_size(body), "brotli_bytes": pricing.brotli_size(body),
                        "runs": runs}
    return pages


def growth(result: dict, first: int) -> float:
    """WCU per racer-second the whole race costs beyond its first ``first`` seconds: the writes made
    when a racer's chunk changes (a new chunk's index entry, the entry's totals), which a replay of
    the first seconds alone does not meet."""
    per_second = defaultdict(int)
    for call in result["calls"]:
        if isinstance(call.label, int):
            per_second[call.label] += call.write_units + call.index_units
    early = [per_second[s] for s in range(1, first)]
    whole = [per_second[s] for s in range(1, result["seconds"])]
    return (sum(whole) / len(whole) - sum(early) / len(early)) / result["racers"]


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
    race_partition = f"RACE#{result['race_id']}"
    viewer = [c for c in calls if c.label == "viewer"][0]
    return {
        "racers": racers, "simulated_seconds": result["seconds"], "join_wcu_total": sum(c.write_units + c.index_units for c in joins),
        "join_seconds": result["join_seconds"], "finish_seconds": result["finish_seconds"],
        "finish": _finish_figures([c for c in calls if c.label == "finish"]),
        "wall_seconds_per_simulated_second": sum(result["wall_per_second"]) / len(result["wall_per_second"]),
        "stream_invocations_per_second": sum(result["stream_invocations"]) / len(result["stream_invocations"]),
        "stream_requests_per_invocation": sum(result["stream_requests"][1:]) / max(1, sum(result["stream_invocations"][1:])),
        "wcu_per_racer_second_replayed": sum(c.write_units + c.index_units for c in calls if c.label in steady)
        / len(steady) / racers,
        "leaderboard_bytes": result["leaderboard_bytes"], "leaderboard_gzip_bytes": result["leaderboard_gzip_bytes"],
        "leaderboard_top100_gzip_bytes": result["leaderboard_top100_gzip_bytes"],
        # telemetry as replayed reads a gate copy and every racer's entry each second: RCU per key read
        "telemetry_rcu_per_key": _mean(result["telemetry_rcu"][1:]) / (racers + 1),
        "stream_rcu_per_second": _mean(result["stream_rcu"][1:]),
        "per_second_by_operation": per_second_ops,
        "table_peaks": peaks(calls, set(steady), index=False),
        "index_peaks": peaks(calls, set(steady), index=True),
        "joins_replayed": racers, "join_requests": len(joins),
        "race_partition_wcu_per_join": join_table.get(race_partition, 0) / racers,
        "racer_partition_wcu_per_join": sum(v for k, v in join_table.items() if k.startswith("RACER#")) / racers,
        "index_wcu_per_join_by_partition": {_kind(k): v / racers for k, v in _merge_kinds(join_index).items()},
        "index_peak_partition_wcu_per_join": max(join_index.values()) / racers,
        "leaderboard_read_rcu": viewer.read_units, "leaderboard_read_bytes": viewer.read_bytes,
        **({"bikes": _bikes(result["measured"], racers, result["race_id"])} if result["measured"]["post"] else {}),
    }


def _bikes(measured: dict, racers: int, race_id: str) -> dict:
    """What the bikes' replay measured per invocation (``bench.bikes.figures``), by function."""
    posts, stream = measured["post"], measured["stream"]
    steady = [run for run in stream if isinstance(run["calls"][0].label if run["calls"] else None, int)]
    everything = posts + measured["join"] + stream + [r for page in measured["viewer"].values() for r in page["runs"]]
    return {
        "race_id": race_id, "example_racer": posts[0]["racer"],
        "telemetry_response_bytes": sum(p["response_bytes"] for p in posts) / len(posts),
        "custom_metrics": sorted({m for r in everything for m in r["metrics"]}),
        "workers": bikes.WORKERS, "requests": len(posts), "racers": len({p["racer"] for p in posts}),
        "seconds": len({c.label for p in posts for c in p["calls"]}),
        "post_telemetry": bikes.figures(posts),
        "join_race": bikes.figures(measured["join"]),
        "stream_processor": {**bikes.figures(steady),
                             "records_per_invocation": sum(r["records"] for r in steady) / max(1, len(steady)),
                             "board_wcu_per_invocation": sum(c.write_units for r in steady for c in r["calls"]
                                                             if c.writes and c.writes[0].partition.startswith("RACE#"))
                             / max(1, len(steady))},
        "pages": {str(limit): {"bytes": page["bytes"], "gzip_bytes": page["gzip_bytes"],
                               "brotli_bytes": page["brotli_bytes"], **bikes.figures(page["runs"])}
                  for limit, page in measured["viewer"].items()},
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _finish_figures(calls) -> dict:
    """Requests and units of settling a finished race (finish, ranks, bests, class board, packing)."""
    if not calls:
        return {}
    return {"requests": len(calls), "wcu": sum(c.write_units for c in calls),
            "index_wcu": sum(c.index_units for c in calls), "rcu": sum(c.read_units for c in calls)}


def _merge_kinds(per_partition_units: dict) -> dict:
    merged: dict = defaultdict(int)
    for partition, units in per_partition_units.items():
        merged[_kind(partition) if not partition.startswith(("RACE#", "CLASS#")) else partition] += units
    return merged


def model(racers: int, sampled: int, seconds: int = DURATION) -> dict:
    """Per-second WCU of the chosen design and of the naive one, from the same sample stream.

    Chosen: each sample's chunk write, the entry's write when a chunk is done (racer partition),
    new chunks' index inserts, one write per board shard per stream invocation (race partition). Naive: one
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
            units = write_units(old_chunk, new_chunk)
            if old_chunk is None and number > 0:  # the racer's previous chunk is done: the entry takes it
                old_entry = entry.to_item()
                entry.chunks[str(number - 1)] = [previous_points, second - 1]
                units += write_units(old_entry, entry.to_item())
            previous_points = chunk.points
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
