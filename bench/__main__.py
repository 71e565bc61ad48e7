"""`make bench`: cold start, requests per route, handler overhead, race-day capacity and cost, push.

Writes docs/performance.md and docs/performance.json. ``BENCH_QUICK=1`` shrinks every stage (a smoke
run, not figures to publish). ``BENCH_ONLY=coldstart`` or ``push`` measures that stage alone and keeps
every other measurement of docs/performance.json; ``BENCH_ONLY=price`` only prices the race again.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from datetime import datetime, timezone

from . import backtoback, bikes, coldstart, env, pricing, push, raceday, report, routes
from .env import say
from .ledger import Ledger

QUICK = os.environ.get("BENCH_QUICK") == "1"
ONLY = os.environ.get("BENCH_ONLY")
COLD_RUNS, OVERHEAD_RUNS, LEADERBOARD_RUNS = (1, 10, 20) if QUICK else (9, 30, 200)
RACERS = 1000
# every racer posting its own samples for the first seconds: 10,000 one-sample requests at full size
FULL_RACERS, FULL_SECONDS = (50, 3) if QUICK else (RACERS, 10)
LONG_RACERS, LONG_SECONDS = (10, 60) if QUICK else (100, raceday.DURATION)  # the whole race, fewer racers
MODEL_SAMPLED_RACERS = 20 if QUICK else 100


def cold_start(dynamo: env.Dynamo) -> dict:
    say(f"cold starts: {COLD_RUNS} fresh python3.13 interpreters per function, with and without bytecode")
    figures = coldstart.measure(dynamo, COLD_RUNS)
    figures["cold_start_run"] = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                                 "machine": report.machine(), "python": figures.pop("cold_start_python"),
                                 "quick": QUICK, "alone": ONLY == "coldstart"}
    return figures


def cold_start_only() -> dict:
    dynamo = env.Dynamo()
    try:
        return cold_start(dynamo)
    finally:
        dynamo.stop()


ALONE = {"coldstart": cold_start_only, "push": lambda: {"push": push.stage()}, "price": dict}


def price(figures: dict) -> None:
    """The race's bill, the fixed costs, the levers and push beside polling, from the measured figures."""
    figures["stack"] = {k: v for k, v in env.stack().items() if k != "settings"}
    figures["cost"] = pricing.race_cost(figures)
    figures["fixed_monthly"] = pricing.fixed_monthly(figures)
    figures["levers"] = pricing.levers(figures, figures["cost"]["total"])
    figures["prices"], figures["assumed"] = pricing.PRICES, pricing.ASSUMED
    if "push" in figures:
        figures["push"].update(push.priced(figures))


def measure(dynamo: env.Dynamo) -> dict:
    figures = cold_start(dynamo)
    figures["tables"], figures["requests"] = {}, {}
    for name, scale in (("small", 1), ("large", 10)):
        dynamo.restart()  # DynamoDB Local slows for good once it has held many items
        figures["tables"][name] = routes.seed(dynamo, f"bench-{name}", scale)
        with Ledger() as ledger:
            figures["requests"][name] = routes.per_route(ledger)
        say(f"requests per route on the {name} table ({figures['tables'][name]['items']} items): "
            + ", ".join(f"{r} {f['requests']}" for r, f in figures["requests"][name].items()))
    dynamo.restart()
    routes.seed_event_fixtures(dynamo, "bench-warm")
    with Ledger() as ledger:
        figures["overhead"] = routes.overheads(ledger, OVERHEAD_RUNS)
        small_board = env.event("get_race_leaderboard", query={"limit": "10"})
        figures["leaderboard_10"] = routes.overhead(ledger, "get_race_leaderboard", small_board, LEADERBOARD_RUNS)
    dynamo.restart()
    with Ledger() as ledger:
        say(f"race day: {LONG_RACERS} racers for the whole {LONG_SECONDS} s, then finished")
        long = raceday.replay(dynamo, ledger, "bench-long", LONG_RACERS, LONG_SECONDS, bikes_post=False)
    dynamo.restart()
    with Ledger() as ledger:
        say(f"race day: {FULL_RACERS:,} racers for the first {FULL_SECONDS} s, each bike posting its own samples "
            f"({bikes.WORKERS} worker processes as execution environments), then finished")
        full = raceday.replay(dynamo, ledger, "bench-race", FULL_RACERS, FULL_SECONDS, bikes_post=True)
        race = raceday.summarise(full)
        race["long"] = raceday.summarise(long)
        race["late_race_extra_wcu"] = raceday.growth(long, FULL_SECONDS)
        race["wcu_per_racer_second"] = race["wcu_per_racer_second_replayed"] + race["late_race_extra_wcu"]
        big_board = env.event("get_race_leaderboard", {"raceId": full["race_id"]}, query={"limit": "1000"})
        figures["leaderboard_1000"] = routes.overhead(ledger, "get_race_leaderboard", big_board, LEADERBOARD_RUNS // 4)
        items = env.dynamo.client().query(TableName="bench-race", KeyConditionExpression="PK = :pk",
                                          ExpressionAttributeValues={":pk": {"S": f"RACE#{full['race_id']}"}})["Items"]
        figures["mapping"] = routes.mapping(items)
    say(f"leaderboard p50 outside DynamoDB: 10 rows {figures['leaderboard_10']['p50_ms']:.2f} ms, "
        f"1,000 rows {figures['leaderboard_1000']['p50_ms']:.2f} ms")
    figures["model"] = raceday.whole_race(long, full, RACERS, MODEL_SAMPLED_RACERS)
    figures["race_day"] = race
    figures["interpreter_start"] = bikes.interpreter_start_cpu_ms()
    return figures


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    started = time.perf_counter()
    if ONLY in ALONE:  # one stage again; every other measurement as docs/performance.json has it
        figures = json.loads((env.ROOT / "docs" / "performance.json").read_text())
        figures.update(ALONE[ONLY]())
        price(figures)
        report.write(figures, header=False)
        return say(f"wrote docs/performance.md and .json ({ONLY} again) in {time.perf_counter() - started:.0f} s")
    if ONLY:
        sys.exit(f"BENCH_ONLY={ONLY}: one of {', '.join(ALONE)} (or unset for every stage)")
    dynamo = env.Dynamo()
    try:
        figures = measure(dynamo)
    finally:
        dynamo.stop()
    figures["local_stack"] = backtoback.measure()
    figures["push"] = push.stage()
    price(figures)
    for row in figures["cost"]["lines"]:
        say(f"cost: {row['item']}: {row['quantity']:,.2f} {row['unit']} = ${row['usd']:.3f}")
    figures["elapsed_seconds"], figures["quick"] = time.perf_counter() - started, QUICK
    report.write(figures)
    say(f"a race ≈ ${figures['cost']['total']:.2f} polled, ${figures['push']['dollars_per_race']:.2f} pushed; "
        f"wrote docs/performance.md and docs/performance.json in {figures['elapsed_seconds']:.0f} s")


if __name__ == "__main__":
    main()
