"""`make bench`: cold start, requests per route, handler overhead, race-day capacity and cost, push.

Writes docs/performance.md and .json. ``BENCH_QUICK=1`` shrinks every stage (a smoke run, not figures to
publish). ``BENCH_ONLY=coldstart`` or ``push`` measures that stage alone and keeps every other measurement
of docs/performance.json; ``BENCH_ONLY=price`` only prices the race again.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from datetime import datetime, timezone

from local.server import LocalStack
from simulator.backtoback import post_race

from . import bikes, coldstart, env, pricing, push, raceday, report, routes
from .env import say
from .ledger import Ledger

QUICK, ONLY = os.environ.get("BENCH_QUICK") == "1", os.environ.get("BENCH_ONLY")
COLD_RUNS, OVERHEAD_RUNS, LEADERBOARD_RUNS = (1, 10, 20) if QUICK else (9, 30, 200)
RACERS = 1000
FULL_RACERS, FULL_SECONDS = (50, 3) if QUICK else (RACERS, 10)  # every bike posting its own samples: 10,000 posts
LONG_RACERS, LONG_SECONDS = (10, 60) if QUICK else (100, raceday.DURATION)  # the whole race, fewer racers


def cold_start(dynamo: env.Dynamo) -> dict:
    say(f"cold starts: {COLD_RUNS} fresh python3.13 interpreters per function, with and without bytecode")
    figures = coldstart.measure(dynamo, COLD_RUNS)
    figures["cold_start_run"] = {"generated": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                                 "machine": report.machine(), "python": figures.pop("cold_start_python"),
                                 "quick": QUICK, "alone": ONLY == "coldstart"}
    return figures


def measure(dynamo: env.Dynamo) -> dict:
    figures = {**cold_start(dynamo), "tables": {}, "requests": {}}
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
        figures["leaderboard_10"] = routes.overhead(ledger, "get_race_leaderboard", env.event(
            "get_race_leaderboard", query={"limit": "10"}), LEADERBOARD_RUNS)
    for ordinal, (table, racers, seconds) in enumerate((("bench-long", LONG_RACERS, LONG_SECONDS),
                                                        ("bench-race", FULL_RACERS, FULL_SECONDS))):
        dynamo.restart()
        with Ledger() as ledger:
            say(f"race day: {racers:,} racers for {seconds} s, then finished"
                + (f"; each bike posting its own samples, {bikes.WORKERS} workers as execution environments" if ordinal else ""))
            figures[table] = raceday.replay(dynamo, ledger, table, racers, seconds, bikes_post=bool(ordinal))
    long, full = figures.pop("bench-long"), figures.pop("bench-race")
    with Ledger() as ledger:  # on the full race's engine
        figures["leaderboard_1000"] = routes.overhead(ledger, "get_race_leaderboard", env.event(
            "get_race_leaderboard", {"raceId": full["race_id"]}, query={"limit": "1000"}), LEADERBOARD_RUNS // 4)
    race = {**raceday.summarise(full), "long": raceday.summarise(long), "late_race_extra_wcu": raceday.growth(long, FULL_SECONDS)}
    race["wcu_per_racer_second"] = race["wcu_per_racer_second_replayed"] + race["late_race_extra_wcu"]
    return {**figures, "race_day": race, "model": raceday.whole_race(long, full, RACERS),
            "interpreter_start": bikes.interpreter_start_cpu_ms()}


def local_stack(races: int = 2) -> list[dict]:
    """Races posted back to back into a fresh local stack (``simulator.backtoback``): times, memory after each."""
    stack, out = LocalStack(port=0).start(), []
    try:
        for race in (post_race(stack.url) for _ in range(races)):
            out.append({**{k: v for k, v in race.items() if k not in ("board", "expected")}, "memory": stack.memory()})
            say(f"local stack: {race['racers']} racers x {race['seconds']} s posted in {race['post_seconds']:.1f} s, "
                f"settled {race['settle_seconds']:.1f} s after ({'equal to' if race['settled'] else 'NOT'} the "
                f"independent sums); {out[-1]['memory']}")
        return out
    finally:
        stack.stop()


def price(figures: dict) -> None:
    """The race's bill, the fixed costs, the levers and push beside polling, from the measured figures."""
    figures["stack"] = {k: v for k, v in env.stack().items() if k != "settings"}
    figures["cost"] = pricing.race_cost(figures)
    figures["fixed_monthly"] = pricing.fixed_monthly(figures)
    figures["levers"] = pricing.levers(figures, figures["cost"]["total"])
    figures["prices"], figures["assumed"] = pricing.PRICES, pricing.ASSUMED
    if "push" in figures:
        figures["push"].update(push.priced(figures))


def alone(stage: str) -> dict:
    if stage == "coldstart":
        dynamo = env.Dynamo()
        try:
            return cold_start(dynamo)
        finally:
            dynamo.stop()
    return {"push": push.stage()} if stage == "push" else {}


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    started = time.perf_counter()
    if ONLY:  # one stage again; every other measurement as docs/performance.json has it
        if ONLY not in ("coldstart", "push", "price"):
            sys.exit(f"BENCH_ONLY={ONLY}: one of coldstart, push, price (or unset for every stage)")
        figures = {**json.loads((env.ROOT / "docs" / "performance.json").read_text()), **alone(ONLY)}
        price(figures)
        report.write(figures, header=False)
        return say(f"wrote docs/performance.md and .json ({ONLY} again) in {time.perf_counter() - started:.0f} s")
    dynamo = env.Dynamo()
    try:
        figures = measure(dynamo)
    finally:
        dynamo.stop()
    figures.update(local_stack=local_stack(), push=push.stage())
    price(figures)
    for row in figures["cost"]["lines"]:
        say(f"cost: {row['item']}: {row['quantity']:,.2f} {row['unit']} = ${row['usd']:.3f}")
    figures["elapsed_seconds"], figures["quick"] = time.perf_counter() - started, QUICK
    report.write(figures)
    say(f"a race ≈ ${figures['cost']['total']:.2f} polled, ${figures['push']['dollars_per_race']:.2f} pushed; "
        f"wrote docs/performance.md and docs/performance.json in {figures['elapsed_seconds']:.0f} s")


if __name__ == "__main__":
    main()
