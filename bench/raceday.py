"""Race day: racers through the real handlers and stream processor on DynamoDB Local."""

from __future__ import annotations

import gzip
import json
import random
import time
import uuid
from collections import Counter, defaultdict

from alleycat.storage import entities as e
from alleycat.storage.schema import HISTORY_WRITER_TYPES
from local.streams import StreamTail, passes_filter
from stacks.settings import HISTORY_BATCH_SIZE, HISTORY_WRITER

from . import bikes, env
from .env import say
from .ledger import Ledger, per_partition
from .over_mqtt import Jwks, dropped, ticker
from .pricing import ASSUMED

CLASS_ID, DURATION, PAGE_ROWS = "hill-climb", 300, 100  # PAGE_ROWS: the frontend's page (frontend/src/pages/race.js)
STARTS_AT = "2026-11-22T10:00:00Z"  # the events/ files' race: their telemetry arrives an hour after it starts
ADMIN = {"sub": "ops", "cognito:groups": "admin"}


def sample(racer: int, second: int) -> tuple[float, int]:
    """The (cadence, resistance) racer `racer` sends at `second`: deterministic, 2-decimal cadence."""
    rng = random.Random(racer * 100_003 + second)
    return round(rng.uniform(60, 110), 2), rng.randint(30, 70)


def racer_id(n: int) -> str:
    """A Cognito ``sub``-shaped id (36 characters), as deployed racers have: item sizes follow it."""
    return str(uuid.UUID(int=random.Random(n).getrandbits(128), version=4))


def _ok(function: str, path: dict, body=...) -> dict:
    response = env.invoke(function, env.event(function, path, body=body, claims=ADMIN))
    assert response["statusCode"] in (200, 201), (function, response)
    return json.loads(response["body"])


class InProcess:
    """The handlers in this process (the ledger records their requests); telemetry in requests of 1,000 racers."""

    def invoke(self, function: str, event: dict, label=None) -> dict:
        response = env.invoke(function, event)
        return {"status": response.get("statusCode"), "body": response.get("body"), "calls": [],
                "failures": len(response.get("batchItemFailures", []))}

    def invoke_all(self, function: str, events: list[dict], label) -> list[dict]:
        return [self.invoke(function, event) for event in events]

    stop = staticmethod(lambda: None)

    def posts(self, race_id: str, samples: list[tuple], label) -> list[dict]:
        batch = [{"racerId": rid, "second": s, "cadence": c, "resistance": r} for rid, s, c, r in samples]
        return [self.invoke("post_telemetry", env.event("post_telemetry", {"raceId": race_id}, claims=ADMIN,
                                                        body={"samples": batch[start:start + 1000]}))
                for start in range(0, len(batch), 1000)]


def all_accepted(runs: list[dict], samples: int, second: int) -> None:
    """A second's telemetry answers accepted every sample: none ``not yet`` (the events' time is after the
    race's seconds), none refused otherwise; a replay that measured refusals would measure another race."""
    bodies = [json.loads(run["body"]) for run in runs]
    refused = [row for body in bodies for row in body["rejected"]]
    assert not refused and sum(body["accepted"] for body in bodies) == samples, (second, refused[:3])


def deliver(stream: StreamTail, runner, ledger: Ledger, label, runs: list) -> int:
    """What is new on the stream and passes the mapping's filter, to the processor in the mapping's batches."""
    records, size = [r for r in stream.read() if passes_filter(r)], env.stack()["stream_batch_size"]
    for start in range(0, len(records), size):
        run = runner.invoke("stream_processor", {"Records": records[start:start + size]}, label)
        assert run["status"] is None and not run["failures"], run
        ledger.calls.extend(run["calls"])
        runs.append({**run, "records": len(records[start:start + size])})
    return -(-len(records) // size)


def write_history(tail: StreamTail, stream: StreamTail, runner, ledger: Ledger, runs: list) -> None:
    """The history writer's mapping (its own tail of the stream, second blocks alone) given what the race wrote so
    far in batches of ``HISTORY_BATCH_SIZE``, as its window gathers them, then the stream processor's scoring of the
    chunks it wrote: each run labelled ``history``."""
    records = [r for r in tail.read() if passes_filter(r, HISTORY_WRITER_TYPES)]
    for start in range(0, len(records), HISTORY_BATCH_SIZE):
        run = runner.invoke(HISTORY_WRITER, {"Records": records[start:start + HISTORY_BATCH_SIZE]}, "history")
        assert run["status"] is None and not run["failures"], run
        ledger.calls.extend(run["calls"])
        runs.append({**run, "records": len(records[start:start + HISTORY_BATCH_SIZE])})
    while deliver(stream, runner, ledger, "history", runs):
        pass


def replay(dynamo: env.Dynamo, ledger: Ledger, table: str, racers: int, seconds: int, bikes_post: bool,
           over_mqtt: bool = False, fan_in: bool = False, history: bool = False) -> dict:
    """A race on a fresh table: racers joined, ``seconds`` of telemetry, the stream delivered after each, the board
    read, the finish. ``bikes_post``: each racer joins and posts itself, each invocation measured (``bikes``);
    ``over_mqtt`` (with it): each racer connects and publishes instead, and the race's ticker runs to its
    settlement, which finishes it (``bench.over_mqtt``); ``fan_in``: every handler with ``ALLEYCAT_FAN_IN=on``
    (docs/fan-in.md), in the workers and in this process (the ticker, the finish); ``history`` (with ``fan_in`` and
    ``bikes_post``): after the seconds, the history writer given the race's blocks (``write_history``), measured
    under ``measured["history"]``."""
    switch = env.fan_in(fan_in)
    dynamo.create(table)
    ledger.label = "setup"
    _ok("put_class", {"classId": CLASS_ID}, body={"name": "Hill climb"})
    for n in range(racers):
        _ok("put_racer", {"racerId": racer_id(n)}, body={"name": f"Racer {n}"})
    # The race of the events/ files' times (events/make_events.py): created a year before it, its telemetry
    # an hour after its start, so every second posted has happened by the server's clock (contract v1.2).
    race_id = _ok("create_race", {"classId": CLASS_ID}, body={"startsAt": STARTS_AT,
                                                                "durationSeconds": DURATION})["raceId"]
    stream = StreamTail.of_table(dynamo.server, table)
    history_tail = StreamTail.of_table(dynamo.server, table) if history else None  # the shard's second reader
    jwks = Jwks() if over_mqtt else None
    runner = bikes.Runner(dynamo.server.url, table, {**env.stack()["settings"], **(jwks.environment() if jwks else {}),
                                                     **switch}) \
        if bikes_post else InProcess()
    measured: dict = {"join": [], "roster": [], "post": [], "stream": [], "viewer": {}, "connect": [], "tick": {},
                      "history": []}

    def record(runs: list[dict], kind: str | None = None) -> list[dict]:
        assert all(run["status"] == 200 for run in runs), next(run for run in runs if run["status"] != 200)
        ledger.calls.extend(c for run in runs for c in run["calls"])
        if kind and bikes_post:
            measured[kind] += runs
        return runs

    try:
        ledger.label, started = "join", time.perf_counter()
        record(runner.invoke_all("join_race", [env.event("join_race", {"raceId": race_id, "racerId": racer_id(n)},
                                                         claims={"sub": racer_id(n)}) for n in range(racers)], "join"), "join")
        join_seconds = time.perf_counter() - started
        while deliver(stream, runner, ledger, "join", measured["roster"] if bikes_post else []):
            pass  # the joins' records, then the race's count's (its card)
        say(f"race day: {racers:,} racers joined through join_race in {join_seconds:.1f} s")
        if jwks:
            ledger.label = "connect"
            connects = runner.invoke_all("authorize_ingest", [jwks.connect_event(racer_id(n)) for n in range(racers)], "connect")
            assert all(json.loads(run["body"] or "{}").get("isAuthenticated", True) for run in connects)
            measured["connect"] = connects
        per_second, invocations, arrival = [], [], env.event("post_telemetry")["requestContext"]["timeEpoch"] / 1000
        for second in range(seconds):
            tick, ledger.label = time.perf_counter(), second
            chosen = [(racer_id(n), second, *sample(n, second)) for n in range(racers)]
            if jwks:
                assert isinstance(runner, bikes.Runner)  # bikes_post
                runs = runner.publishes(race_id, chosen, second, arrival, second * racers)
                ledger.calls.extend(c for run in runs for c in run["calls"])
                assert not any(run["failures"] for run in runs) and not dropped(runs), second
                measured["post"] += runs
            else:
                all_accepted(record(runner.posts(race_id, chosen, second), "post"), racers, second)
            invocations.append(deliver(stream, runner, ledger, second, measured["stream"] if bikes_post else []))
            per_second.append(time.perf_counter() - tick)
            if second % 10 == 9 or second == seconds - 1:
                say(f"race day: {racers:,} racers, second {second + 1}/{seconds}, "
                    f"{sum(per_second[-10:]) / len(per_second[-10:]):.2f} s of wall time per simulated second")
        if history_tail:
            write_history(history_tail, stream, runner, ledger, measured["history"])
        ledger.label = "viewer"
        [viewed] = record([runner.invoke("get_race_leaderboard", env.event(
            "get_race_leaderboard", {"raceId": race_id}, query={"limit": str(racers)}), "viewer")])
        rows = json.loads(viewed["body"])["items"]
        if fan_in:  # the board the fan-in shows while open: what it lacks is a finding, not the bench's failure
            measured["board_rows"] = {"rows": len(rows), "last_seconds": dict(Counter(row["lastSecond"] for row in rows))}
            say(f"race day: the fan-in's open board: {len(rows):,} rows of {racers:,}, last seconds "
                f"{measured['board_rows']['last_seconds']}")
        else:
            assert len(rows) == racers and (not jwks or {row["lastSecond"] for row in rows} == {seconds - 1}), rows[:2]
        if isinstance(runner, bikes.Runner) and not jwks:  # bikes_post
            measured["viewer"] = _pages(runner, race_id, racers)
        if fan_in:
            measured["race_items"] = race_items(race_id)
        started = time.perf_counter()

        def finish() -> None:
            ledger.label = "finish"
            _ok("finish_race", {"raceId": race_id})
            while deliver(stream, runner, ledger, "finish", []):
                pass

        if jwks:
            measured["tick"] = ticker(race_id, ledger, finish)
        else:
            finish()
        finish_seconds = time.perf_counter() - started
        say(f"race day: {racers:,} racers finished and settled in {finish_seconds:.1f} s")
    finally:
        runner.stop()
        env.fan_in_default()
        if jwks:
            jwks.stop()
    return {"race_id": race_id, "racers": racers, "seconds": seconds, "wall_per_second": per_second,
            "stream_invocations": invocations, "join_seconds": join_seconds, "finish_seconds": finish_seconds,
            "measured": measured if bikes_post else None, "calls": ledger.take()}


def race_items(race_id: str) -> list[dict]:
    """What the board's one Query reads of the race's partition while it is open (``SK < REPLAY#``)."""
    from alleycat.storage import dynamo

    pages = dynamo.client().get_paginator("query").paginate(
        TableName=dynamo.table_name(), KeyConditionExpression="PK = :pk AND SK < :replay",
        ExpressionAttributeValues={":pk": {"S": f"RACE#{race_id}"}, ":replay": {"S": "REPLAY#"}})
    return [item for page in pages for item in page["Items"]]


def _pages(runner: bikes.Runner, race_id: str, racers: int, reads: int = 5) -> dict:
    """The board as the frontend asks it (``limit`` = 100, 200, …): bytes, gzip's, Brotli's at the quality assumed."""
    import brotli

    pages = {}
    for limit in (str(min(limit, racers)) for limit in range(PAGE_ROWS, racers + PAGE_ROWS, PAGE_ROWS)):
        event = env.event("get_race_leaderboard", {"raceId": race_id}, query={"limit": limit})
        runs = runner.invoke_all("get_race_leaderboard", [event] * reads, "viewer-pages")
        body = runs[0]["body"].encode()
        pages[limit] = {"bytes": len(body), "gzip_bytes": len(gzip.compress(body)), **bikes.figures(runs),
                        "brotli_bytes": len(brotli.compress(body, quality=ASSUMED["brotli_quality"]["value"]))}
    return pages


def growth(result: dict, first: int) -> float:
    """WCU per racer-second the whole race costs beyond its first ``first`` seconds (when chunks change)."""
    per_second: defaultdict[int, int] = defaultdict(int)
    for call in (c for c in result["calls"] if isinstance(c.label, int)):
        per_second[call.label] += call.write_units + call.index_units
    mean = lambda seconds: sum(per_second[s] for s in seconds) / len(seconds)
    return (mean(range(1, result["seconds"])) - mean(range(1, first))) / result["racers"]


def _kind(partition: str) -> str:
    head = partition.split("#", 1)[0]
    return {"RACER": "racer RACER#<racer>", "RACE": "race RACE#<race>", "CLASS": "class CLASS#<class>",
            "HIST": "chunk HIST#<race>#<racer>#<n>", "BEST": "BEST#<class>"}.get(head, head)


def peaks(calls, labels, index: bool) -> dict:
    """Peak WCU/s per partition kind over the given labels (simulated seconds)."""
    out: dict = defaultdict(float)
    for partitions in per_partition([c for c in calls if c.label in labels], index).values():
        for partition, units in partitions.items():
            out[_kind(partition)] = max(out[_kind(partition)], units)
    return dict(out)


def summarise(result: dict) -> dict:
    calls, racers = result["calls"], result["racers"]
    steady = range(1, result["seconds"]) if result["seconds"] > 1 else range(result["seconds"])
    by_op: dict = defaultdict(lambda: defaultdict(float))
    for call in (c for c in calls if c.label in steady):
        for key, value in (("requests", 1), ("wcu", call.write_units), ("index_wcu", call.index_units),
                           ("rcu", call.read_units)):
            by_op[call.operation][key] += value / len(steady)
    joins, finish = [c for c in calls if c.label == "join"], [c for c in calls if c.label == "finish"]
    join_table, join_index = per_partition(joins)["join"], per_partition(joins, index=True)["join"]
    index_by_kind: dict = defaultdict(int)
    for partition, units in join_index.items():
        index_by_kind[partition if partition.startswith(("RACE#", "CLASS#")) else _kind(partition)] += units
    viewer = next(c for c in calls if c.label == "viewer")
    return {
        "racers": racers, "simulated_seconds": result["seconds"], "join_seconds": result["join_seconds"],
        "join_wcu_total": sum(c.write_units + c.index_units for c in joins), "finish_seconds": result["finish_seconds"],
        "finish": {"requests": len(finish), "wcu": sum(c.write_units for c in finish),
                   "index_wcu": sum(c.index_units for c in finish), "rcu": sum(c.read_units for c in finish)},
        "wall_seconds_per_simulated_second": sum(result["wall_per_second"]) / len(result["wall_per_second"]),
        "stream_invocations_per_second": sum(result["stream_invocations"]) / len(result["stream_invocations"]),
        "rcu_per_racer_second_replayed": sum(c.read_units for c in calls if c.label in steady) / len(steady) / racers,
        "wcu_per_racer_second_replayed": sum(c.write_units + c.index_units for c in calls if c.label in steady)
        / len(steady) / racers,
        "per_second_by_operation": {op: dict(row) for op, row in by_op.items()},
        "table_peaks": peaks(calls, set(steady), index=False), "index_peaks": peaks(calls, set(steady), index=True),
        "joins_replayed": racers, "join_requests": len(joins),
        "race_partition_wcu_per_join": join_table.get(f"RACE#{result['race_id']}", 0) / racers,
        "racer_partition_wcu_per_join": sum(v for k, v in join_table.items() if k.startswith("RACER#")) / racers,
        "index_wcu_per_join_by_partition": {_kind(k): v / racers for k, v in index_by_kind.items()},
        "index_peak_partition_wcu_per_join": max(join_index.values()) / racers,
        "leaderboard_read_rcu": viewer.read_units, "leaderboard_read_bytes": viewer.read_bytes,
        **({"mqtt": _mqtt(result["measured"], result["seconds"], racers)} if result["measured"] and result["measured"]["connect"]
           else {"bikes": _bikes(result["measured"], result["race_id"])} if result["measured"] else {}),
    }


def _mqtt(measured: dict, seconds: int, racers: int) -> dict:
    """What the MQTT replay measured per invocation, by function: the authorizer a connection, the log's consumer
    a batch of the mapping, the stream processor, the ticker (``bench.over_mqtt``)."""
    consumer, steady = measured["post"], [run for run in measured["stream"] if isinstance(run["label"], int)]
    records = sum(run["records"] for run in consumer)
    return {
        "authorize_ingest": bikes.figures(measured["connect"]),
        "ingest_telemetry": {**bikes.figures(consumer), "records_per_invocation": records / len(consumer),
                             "invocations_per_second": len(consumer) / seconds,
                             "record_bytes": sum(run["record_bytes"] for run in consumer) / records},
        "stream_processor": {**bikes.figures(steady), "records_per_invocation": sum(r["records"] for r in steady) / max(len(steady), 1),
                             "board_wcu_per_invocation": sum(w.units for r in steady for c in r["calls"] for w in c.writes
                                                             if w.partition.startswith("RACE#")) / max(len(steady), 1)},
        "join_race": bikes.figures(measured["join"]), "tick_race": measured["tick"],
        **({"open_board": measured["board_rows"]} if "board_rows" in measured else {}),
        "custom_metrics": sorted({m for r in consumer + measured["connect"] + steady for m in r["metrics"]}),
    }


def _bikes(measured: dict, race_id: str) -> dict:
    """What the bikes' replay measured per invocation (``bikes.figures``), by function."""
    posts, steady = measured["post"], [run for run in measured["stream"] if isinstance(run["label"], int)]
    everything = posts + measured["join"] + measured["stream"]
    return {
        "race_id": race_id, "example_racer": racer_id(0), "workers": bikes.WORKERS, "requests": len(posts),
        "telemetry_response_bytes": sum(p["response_bytes"] for p in posts) / len(posts),
        "custom_metrics": sorted({m for r in everything for m in r["metrics"]}), "racers": len(measured["join"]),
        "post_telemetry": bikes.figures(posts), "join_race": bikes.figures(measured["join"]),
        "stream_processor": {**bikes.figures(steady), "records_per_invocation": sum(r["records"] for r in steady) / len(steady),
                             "board_wcu_per_invocation": sum(w.units for r in steady for c in r["calls"] for w in c.writes
                                                             if w.partition.startswith("RACE#")) / len(steady)},
        "pages": measured["viewer"],
    }


def whole_race(long: dict, full: dict, racers: int) -> dict:
    """The whole race: racer partitions and index as the long replay wrote them, a board shard as the full one."""
    seconds = range(long["seconds"])
    table = per_partition([c for c in long["calls"] if c.label in seconds])
    racer_units = [u for s in seconds for p, u in table[s].items() if p.startswith("RACER#")]
    return {"board_shards": e.BOARD_SHARDS, "racer_partition_peak_wcu": max(racer_units),
            "racer_partitions_total_wcu_race": round(sum(racer_units) * racers / long["racers"]),
            "chunk_index_peak_wcu": max(peaks(long["calls"], set(seconds), index=True).values()),
            "board_write_wcu_at_finish": max(w.units for c in full["calls"] if isinstance(c.label, int)
                                             for w in c.writes if w.partition.startswith("RACE#"))}
