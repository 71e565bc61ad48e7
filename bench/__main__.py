"""`make bench`: cold start, requests per route, handler overhead, race day, its cost, live boards pushed; into
docs/performance.md and .json. ``BENCH_QUICK=1``: every stage small (not figures to publish). ``BENCH_ONLY=coldstart``,
``mqtt``, ``push``, ``realtime`` or ``scale``: that stage alone, the rest as docs/performance.json has it; ``BENCH_ONLY=price``: priced
again."""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from collections import Counter
from datetime import UTC, datetime
from decimal import Decimal

from alleycat import ids
from alleycat.rules.board import ClassBoard, ClassStanding, Standing
from alleycat.rules.samples import Sample, Totals
from alleycat.storage import entities as e
from alleycat.storage.dynamo import client

from . import bikes, capacity, coldstart, env, memory, pricing, push, raceday, realtime, report
from .bikes import percentile
from .coldstart import CLASS_ID, RACE_ID, RACER_ID
from .env import say
from .ledger import Ledger, busy_seconds, size

QUICK, ONLY = os.environ.get("BENCH_QUICK") == "1", os.environ.get("BENCH_ONLY")
COLD_RUNS, OVERHEAD_RUNS, LEADERBOARD_RUNS = (1, 10, 5) if QUICK else (9, 30, 50)
RACERS = 1000
FULL_RACERS, FULL_SECONDS = (50, 3) if QUICK else (RACERS, 10)  # every bike posting its own samples: 10,000 posts
LONG_RACERS, LONG_SECONDS = (10, 60) if QUICK else (100, raceday.DURATION)  # the whole race, fewer racers
MQTT_FUNCTIONS = ("authorize_ingest", "ingest_telemetry", "tick_race")  # the MQTT path's (contract v1.3)
MQTT_FAN_IN = os.environ.get("BENCH_FAN_IN", "on") == "on"  # the MQTT replay with ALLEYCAT_FAN_IN=on (docs/fan-in.md)
MQTT_RACERS, MQTT_SECONDS = (50, 3) if QUICK else (int(os.environ.get("BENCH_MQTT_RACERS", RACERS)), FULL_SECONDS)
ROUTE_ORDER = ("put_racer", "put_class", "create_race", "join_race", "post_telemetry", "get_race",
               "get_race_leaderboard", "get_racer_results", "get_racer_history", "get_class_races",
               "get_class_leaderboard", "finish_race")


def cold_start(dynamo: env.Dynamo) -> dict:
    say(f"cold starts: {COLD_RUNS} fresh python3.13 interpreters per function, with and without bytecode")
    figures = coldstart.measure(dynamo, COLD_RUNS)
    figures["cold_start_run"] = {"generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
                                 "machine": report.machine(), "python": figures.pop("cold_start_python"),
                                 "quick": QUICK, "alone": ONLY == "coldstart"}
    return figures


def _race_items(race_id: str, class_id: str, racer_ids: list[str]) -> list[dict]:
    race = e.Race(race_id, class_id, "Hill climb" if class_id == CLASS_ID else class_id, "2026-11-22T10:00:00Z", 300,
                  racerCount=len(racer_ids))
    created = e.new_race_items(race)
    boards = [item for item in created if isinstance(item, e.RaceBoard)]
    for n, racer_id in enumerate(racer_ids):
        boards[e.RaceBoard.shard_of(racer_id)].standings[racer_id] = \
            Standing(racer_id, Decimal(n * 311) / 7, 59, f"Racer {n}").item()
    entries = [e.Entry(race_id, r, f"Racer {n}", class_id, race.startsAt, chunks={"0": Totals(Decimal("5200.1234"), 59)})
               for n, r in enumerate(racer_ids)]
    return [x.to_item() for x in (*created, *entries)]


def seed(dynamo: env.Dynamo, table: str, scale: int) -> dict:
    """A table whose partitions the events read hold `scale` x 12 races, results and chunks: items, bytes."""
    dynamo.create(table)
    field = [f"racer-{n}" for n in range(2, 12)]
    items = [e.Racer(f"racer-{n}", f"Racer {n}").to_item() for n in range(1, 10 * scale + 12)]
    items += [e.Class(c, name).to_item() for c, name in [(CLASS_ID, "Hill climb")] + [(f"class-{n}", f"Class {n}")
                                                                                        for n in range(2 * scale)]]
    items += _race_items(RACE_ID, CLASS_ID, field)
    for n in range(12 * scale):  # racer-1's history
        race_id = ids.new_race_id()
        entry = e.Entry(race_id, RACER_ID, "Racer One", CLASS_ID, "2026-11-22T10:00:00Z", chunks={"0": Totals(Decimal(900 + n), 59)})
        chunk = e.Chunk(race_id, RACER_ID, 0, CLASS_ID, Decimal("5200.1234"), {s: Sample(Decimal("84.25"), 47) for s in range(60)})
        items += _race_items(race_id, CLASS_ID, field) + [entry.to_item(), chunk.to_item()]
    items += [i for n in range(2 * scale) for _ in range(4) for i in _race_items(ids.new_race_id(), f"class-{n}", field)]
    board = e.ClassBoard(CLASS_ID, ClassBoard(ClassStanding(f"racer-{n}", Decimal(n * 97) / 3, RACE_ID, f"Racer {n}")
                                               for n in range(2, 10 * scale + 12)).item())
    items.append({**board.to_item(), "version": {"N": "1"}})
    dynamo.put_all(items)
    pages = client().get_paginator("scan").paginate(TableName=table)
    stored = [item for page in pages for item in page["Items"]]
    return {"items": len(stored), "bytes": sum(map(size, stored))}


def per_route(ledger: Ledger) -> dict:
    """One invocation of each route's events/ request: status, requests by operation, units."""
    figures = {}
    for route in ROUTE_ORDER:
        ledger.take()
        status, calls = env.invoke(route, env.event(route))["statusCode"], ledger.take()
        figures[route] = {"status": status, "requests": len(calls), "operations": dict(Counter(c.operation for c in calls)),
                          "rcu": sum(c.read_units for c in calls), "read_bytes": sum(c.read_bytes for c in calls),
                          "wcu": sum(c.write_units for c in calls), "index_wcu": sum(c.index_units for c in calls)}
    return figures


def overhead(ledger: Ledger, route: str, payload: dict, runs: int) -> dict:
    """p50/p99 of a warm invocation's time outside DynamoDB (requests' time subtracted)."""
    env.invoke(route, payload)
    outside, total = [], []
    for _ in range(runs):
        ledger.take()
        start = time.perf_counter()
        env.invoke(route, payload)
        total.append((time.perf_counter() - start) * 1000)
        outside.append(total[-1] - busy_seconds([(c.start, c.stop) for c in ledger.take()]) * 1000)
    say(f"overhead {route:24s} p50 {percentile(outside, 50):6.2f} ms  p99 {percentile(outside, 99):6.2f} ms outside DynamoDB")
    return {"runs": runs, "p50_ms": percentile(outside, 50), "p99_ms": percentile(outside, 99),
            "total_p50_ms": percentile(total, 50)}


def measure(dynamo: env.Dynamo) -> dict:
    figures = {**cold_start(dynamo), "tables": {}, "requests": {}}
    for name, scale in (("small", 1), ("large", 10)):
        dynamo.restart()  # DynamoDB Local slows for good once it has held many items
        figures["tables"][name] = seed(dynamo, f"bench-{name}", scale)
        with Ledger() as ledger:
            figures["requests"][name] = per_route(ledger)
        say(f"requests per route on the {name} table ({figures['tables'][name]['items']} items): "
            + ", ".join(f"{r} {f['requests']}" for r, f in figures["requests"][name].items()))
    dynamo.restart()
    coldstart.seed_event_fixtures(dynamo, "bench-warm")
    with Ledger() as ledger:
        figures["overhead"] = {r: overhead(ledger, r, env.event(r), OVERHEAD_RUNS) for r in ROUTE_ORDER}
    for ordinal, (table, racers, seconds) in enumerate((("bench-long", LONG_RACERS, LONG_SECONDS),
                                                        ("bench-race", FULL_RACERS, FULL_SECONDS))):
        dynamo.restart()
        with Ledger() as ledger:
            say(f"race day: {racers:,} racers for {seconds} s, then finished"
                + (f"; each bike posting its own samples, {bikes.WORKERS} workers as Lambda's environments" if ordinal else ""))
            figures[table] = raceday.replay(dynamo, ledger, table, racers, seconds, bikes_post=bool(ordinal))
    long, full = figures.pop("bench-long"), figures.pop("bench-race")
    with Ledger() as ledger:  # on the full race's engine
        figures["leaderboard_1000"] = overhead(ledger, "get_race_leaderboard", env.event(
            "get_race_leaderboard", {"raceId": full["race_id"]}, query={"limit": "1000"}), LEADERBOARD_RUNS)
    race = {**raceday.summarise(full), "long": raceday.summarise(long),
            "late_race_extra_wcu": raceday.growth(long, FULL_SECONDS)}
    race["wcu_per_racer_second"] = race["wcu_per_racer_second_replayed"] + race["late_race_extra_wcu"]
    race["mqtt"] = mqtt_path(dynamo)
    return {**figures, "race_day": race, "model": raceday.whole_race(long, full, RACERS),
            "interpreter_start": bikes.interpreter_start_cpu_ms()}


def mqtt_path(dynamo: env.Dynamo) -> dict:
    """The race over MQTT (``bench.over_mqtt``): connects, messages in the mapping's batches, the ticker."""
    dynamo.restart()
    with Ledger() as ledger:
        say(f"race day over MQTT: {MQTT_RACERS:,} racers for {MQTT_SECONDS} s, each connecting through the authorizer and "
            f"publishing its second; the log's consumer in the mapping's batches; the ticker until settled; "
            f"fan-in {'on' if MQTT_FAN_IN else 'off'}")
        summary = raceday.summarise(raceday.replay(dynamo, ledger, "bench-mqtt", MQTT_RACERS, MQTT_SECONDS,
                                                   bikes_post=True, over_mqtt=True, fan_in=MQTT_FAN_IN))
    mqtt = summary.pop("mqtt")
    say(f"race day over MQTT: {summary['wcu_per_racer_second_replayed']:.3f} WCU and {summary['rcu_per_racer_second_replayed']:.2f} "
        f"RCU a racer-second; consumer {mqtt['ingest_telemetry']['records_per_invocation']:.0f} records an invocation, "
        f"{mqtt['ingest_telemetry']['cpu_ms']['mean']:.0f} ms CPU; authorizer {mqtt['authorize_ingest']['cpu_ms']['mean']:.1f} ms "
        f"CPU a connection; ticker {mqtt['tick_race']['ticks']} ticks, {mqtt['tick_race']['cpu_ms_per_tick']:.1f} ms CPU a tick; "
        f"load {os.getloadavg()[0]:.1f}")
    return {**summary, **mqtt, "fan_in": MQTT_FAN_IN, "load_average": os.getloadavg()[0], "quick": QUICK,
            "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")}


def mqtt_stage(figures: dict) -> None:
    """``BENCH_ONLY=mqtt``: the MQTT path's functions' cold starts (and peak memory) and its race day."""
    with env.Dynamo() as dynamo:
        say(f"cold starts of {', '.join(MQTT_FUNCTIONS)}: {COLD_RUNS} fresh python3.13 interpreters each")
        figures["cold_start"].update({f: c for f, c in coldstart.measure(dynamo, COLD_RUNS, MQTT_FUNCTIONS)["cold_start"].items()
                                      if f in MQTT_FUNCTIONS})
        figures["race_day"]["mqtt"] = mqtt_path(dynamo)


def price(figures: dict) -> None:
    """The race's bill, the fixed costs, the levers and push beside polling, from the measured figures."""
    figures["stack"] = {k: v for k, v in env.stack().items() if k != "settings"}
    figures["cost"] = pricing.race_cost(figures)  # the path as built: bikes over MQTT, boards pushed
    http = pricing.race_cost(figures, {"mqtt": False, "push": False})  # the path before contract v1.3, the fallback
    figures["cost"]["http"] = {"total": http["total"], "lines": http["lines"]}
    figures["fixed_monthly"] = pricing.fixed_monthly(figures)
    figures["memory"] = memory.sizes(figures, pricing.ASSUMED["dynamodb_round_trip_ms"]["value"])
    figures["levers"] = pricing.levers(figures, figures["cost"]["total"])
    figures["prices"], figures["assumed"] = pricing.PRICES, pricing.ASSUMED
    if "push" in figures:
        figures["push"].update(push.priced(figures))


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    started = time.perf_counter()
    if ONLY not in (None, "coldstart", "mqtt", "push", "realtime", "scale", "price"):
        sys.exit(f"BENCH_ONLY={ONLY}: one of coldstart, mqtt, push, realtime, scale, price (or unset for every stage)")
    figures = json.loads((env.ROOT / "docs" / "performance.json").read_text()) if ONLY else {}  # the rest as it was
    if ONLY in (None, "coldstart"):
        with env.Dynamo() as dynamo:
            figures.update(cold_start(dynamo) if ONLY else measure(dynamo))
    if ONLY == "mqtt":
        mqtt_stage(figures)
    if ONLY in (None, "push"):
        figures["push"] = push.stage()
    if ONLY in (None, "realtime"):
        figures["realtime"] = realtime.stage()
    if ONLY in (None, "scale"):
        figures["scale"] = capacity.stage(figures)
    price(figures)
    for row in [] if ONLY else figures["cost"]["lines"]:
        say(f"cost: {row['item']}: {row['quantity']:,.2f} {row['unit']} = ${row['usd']:.3f}")
    if not ONLY:
        figures["elapsed_seconds"], figures["quick"] = time.perf_counter() - started, QUICK
    report.write(figures, header=not ONLY)
    say(f"a race ≈ ${figures['cost']['total']:.2f} over MQTT and pushed (${figures['push']['polling_dollars_per_race']:.2f} "
        f"polled; ${figures['cost']['http']['total']:.2f} over HTTP and polled); wrote "
        f"docs/performance.md and .json in {time.perf_counter() - started:.0f} s" + (f" ({ONLY} again)" if ONLY else ""))


if __name__ == "__main__":
    main()
