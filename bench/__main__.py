"""`make bench`: cold start, requests per route, handler overhead, race-day capacity and cost.

Prints a progress line per stage; writes docs/performance.md and docs/performance.json.
``BENCH_QUICK=1`` shrinks every stage (a smoke run, not figures to publish). ``BENCH_ONLY=coldstart``
or ``BENCH_ONLY=push`` runs that stage alone, prices the race again and keeps every other
measurement of docs/performance.json; ``BENCH_ONLY=price`` only prices it again.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from datetime import datetime, timezone

from . import backtoback, bikes, coldstart, env, pricing, push, raceday, report, routes
from .ledger import Ledger
from .progress import say

from stacks.settings import memory_mb

QUICK = os.environ.get("BENCH_QUICK") == "1"
ONLY = os.environ.get("BENCH_ONLY")  # "coldstart", or every stage
COLD_RUNS = 1 if QUICK else 9
OVERHEAD_RUNS = 10 if QUICK else 30
LEADERBOARD_RUNS = 20 if QUICK else 200
RACERS = 1000
# every racer posting its own samples for the first seconds: 10,000 one-sample requests at full size
FULL_RACERS, FULL_SECONDS = (50, 3) if QUICK else (RACERS, 10)
LONG_RACERS, LONG_SECONDS = (10, 60) if QUICK else (100, raceday.DURATION)  # the whole race, fewer racers
MODEL_SAMPLED_RACERS = 20 if QUICK else 100


def cold_start(dynamo: env.Dynamo) -> dict:
    """Stage 1: ``cold_start``, ``import_time`` and when, where and on which python3.13 they were measured."""
    say(f"cold starts: {COLD_RUNS} fresh python3.13 interpreters per function, with and without bytecode")
    figures = coldstart.measure(dynamo, COLD_RUNS)
    figures["cold_start_run"] = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                                 "machine": report.machine(), "python": figures.pop("cold_start_python"),
                                 "quick": QUICK, "alone": ONLY == "coldstart"}
    return figures


def stage_alone(name: str, measure) -> None:
    """``BENCH_ONLY=<name>``: one stage measured again and the race priced again; every other
    measurement as docs/performance.json has it."""
    started = time.perf_counter()
    figures = json.loads((env.ROOT / "docs" / "performance.json").read_text())
    figures.update(measure())
    price(figures)
    report.write(figures, header=False)
    say(f"wrote docs/performance.md and docs/performance.json ({name} measured again) in "
        f"{time.perf_counter() - started:.0f} s")


def cold_start_only() -> dict:
    dynamo = env.Dynamo()
    try:
        return cold_start(dynamo)
    finally:
        dynamo.stop()


ALONE = {"coldstart": cold_start_only, "push": lambda: {"push": push.stage()},
         "price": lambda: {}}  # nothing measured: the race priced again (pricing.py changed)


def price(figures: dict) -> None:
    """The race's bill, the fixed costs, the levers and push beside polling, from the measured figures."""
    memory = {function: memory_mb(function) for function in env.functions()}
    figures["memory_mb"] = memory
    figures["cost"] = pricing.race_cost(figures, memory)
    figures["fixed_monthly"] = pricing.fixed_monthly(figures, env.functions())
    figures["levers"] = pricing.levers(figures, memory, figures["cost"]["total"])
    figures["prices"] = pricing.PRICES
    figures["assumed"] = {name: {"value": value, "why": why} for name, (value, why) in pricing.ASSUMED.items()}
    if "push" in figures:
        figures["push"].update(push.priced(figures))


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    if ONLY in ALONE:
        return stage_alone(ONLY, ALONE[ONLY])
    if ONLY:
        sys.exit(f"BENCH_ONLY={ONLY}: one of {', '.join(ALONE)} (or unset for every stage)")
    started = time.perf_counter()
    dynamo = env.Dynamo()
    figures: dict = {}
    try:
        figures.update(cold_start(dynamo))
        dynamo.restart()
        with Ledger(env.client(), dynamo.lookup) as ledger:
            figures["tables"], figures["requests"] = {}, {}
            for name, scale in (("small", 1), ("large", 10)):
                figures["tables"][name] = dict(zip(("items", "bytes"), routes.seed(dynamo, f"bench-{name}", scale)))
                figures["requests"][name] = routes.per_route(ledger)
                say(f"requests per route on the {name} table ({figures['tables'][name]['items']} items): "
                    + ", ".join(f"{r} {f['requests']}" for r, f in figures["requests"][name].items()))
        dynamo.restart()
        with Ledger(env.client(), dynamo.lookup) as ledger:
            coldstart.seed_event_fixtures(dynamo, "bench-warm")
            figures["overhead"] = routes.overheads(ledger, OVERHEAD_RUNS)
            small_board = env.event("get_race_leaderboard", query={"limit": "10"})
            figures["leaderboard_10"] = routes.overhead(ledger, "get_race_leaderboard", small_board, LEADERBOARD_RUNS)
            say(f"leaderboard 10 rows: p50 {figures['leaderboard_10']['p50_ms']:.2f} ms outside DynamoDB")
        dynamo.restart()
        with Ledger(env.client(), dynamo.lookup) as ledger:
            say(f"race day: {LONG_RACERS} racers for the whole {LONG_SECONDS} s, then finished")
            long = raceday.replay(dynamo, ledger, "bench-long", LONG_RACERS, LONG_SECONDS, finish=True)
        dynamo.restart()
        with Ledger(env.client(), dynamo.lookup) as ledger:
            say(f"race day: {FULL_RACERS:,} racers for the first {FULL_SECONDS} s, then finished")
            say(f"race day: bikes post their own samples, {bikes.WORKERS} worker processes as execution environments")
            result = raceday.replay(dynamo, ledger, "bench-race", FULL_RACERS, FULL_SECONDS, finish=True,
                                    settings=bikes.deployed_settings())
            race = raceday.summarise(result, FULL_RACERS)
            race["long"] = raceday.summarise(long, LONG_RACERS)
            race["late_race_extra_wcu"] = raceday.growth(long, FULL_SECONDS)
            race["wcu_per_racer_second"] = race["wcu_per_racer_second_replayed"] + race["late_race_extra_wcu"]
            big_board = env.event("get_race_leaderboard", {"raceId": result["race_id"]}, query={"limit": "1000"})
            figures["leaderboard_1000"] = routes.overhead(ledger, "get_race_leaderboard", big_board, LEADERBOARD_RUNS // 4)
            race["leaderboard_1000_ms"] = figures["leaderboard_1000"]["p50_ms"]
            say(f"leaderboard 1,000 rows: p50 {figures['leaderboard_1000']['p50_ms']:.2f} ms outside DynamoDB")
            items = env.client().query(TableName="bench-race", KeyConditionExpression="PK = :pk",
                                       ExpressionAttributeValues={":pk": {"S": f"RACE#{result['race_id']}"}})["Items"]
            figures["mapping"] = routes.mapping(items)
        say(f"model: {DURATION_TEXT} for {MODEL_SAMPLED_RACERS} sampled racers, chosen and naive designs")
        figures["model"] = raceday.model(RACERS, MODEL_SAMPLED_RACERS)
        figures["race_day"] = race
        figures["interpreter_start"] = bikes.interpreter_start_cpu_ms()
        if os.environ.get("BENCH_SAVE"):  # the measurements alone, to price and report again while developing
            import pickle

            with open(os.environ["BENCH_SAVE"], "wb") as saved:
                pickle.dump(figures, saved)
    finally:
        dynamo.stop()
    figures["local_stack"] = backtoback.measure()
    figures["push"] = push.stage()
    price(figures)
    for row in figures["cost"]["lines"]:
        say(f"cost: {row['item']}: {row['quantity']:,.2f} {row['unit']} = ${row['usd']:.3f}")
    say(f"push: the race ${figures['push']['dollars_per_race']:.2f} pushed, "
        f"${figures['push']['polling_dollars_per_race']:.2f} polled")
    figures["elapsed_seconds"] = time.perf_counter() - started
    figures["quick"] = QUICK
    report.write(figures)
    say(f"cost of one race ≈ ${figures['cost']['total']:.2f}; wrote docs/performance.md and docs/performance.json "
        f"in {figures['elapsed_seconds']:.0f} s")


DURATION_TEXT = f"{raceday.DURATION} s"

if __name__ == "__main__":
    main()
