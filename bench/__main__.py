"""`make bench`: cold start, requests per route, handler overhead, race-day capacity and cost.

Prints a progress line per stage; writes docs/performance.md and docs/performance.json.
``BENCH_QUICK=1`` shrinks every stage (a smoke run, not figures to publish).
"""

from __future__ import annotations

import os
import time
import warnings

from . import coldstart, env, pricing, raceday, report, routes
from .ledger import Ledger
from .progress import say

QUICK = os.environ.get("BENCH_QUICK") == "1"
COLD_RUNS = 1 if QUICK else 10
OVERHEAD_RUNS = 10 if QUICK else 30
LEADERBOARD_RUNS = 20 if QUICK else 200
RACERS = 1000
RACE_BUDGET_SECONDS = 20 if QUICK else 120   # wall time for the replayed seconds
RACE_MAX_SECONDS = 2 if QUICK else 30
MODEL_SAMPLED_RACERS = 20 if QUICK else 50


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    started = time.perf_counter()
    dynamo = env.Dynamo()
    figures: dict = {}
    try:
        say(f"cold starts: {COLD_RUNS} fresh interpreters per function")
        figures["cold_start"] = coldstart.measure(dynamo, COLD_RUNS)
        figures["import_time"] = coldstart.import_time("get_race_leaderboard")
        with Ledger(env.client(), dynamo.lookup) as ledger:
            figures["tables"], figures["requests"] = {}, {}
            for name, scale in (("small", 1), ("large", 10)):
                figures["tables"][name] = dict(zip(("items", "bytes"), routes.seed(dynamo, f"bench-{name}", scale)))
                figures["requests"][name] = routes.per_route(ledger)
                say(f"requests per route on the {name} table ({figures['tables'][name]['items']} items): "
                    + ", ".join(f"{r} {f['requests']}" for r, f in figures["requests"][name].items()))
            for table in ("bench-large", "bench-small", "bench-events"):
                dynamo.drop(table)  # moto deep-copies a table (and its stream) for every transaction action
            coldstart.seed_event_fixtures(dynamo, "bench-warm")
            figures["overhead"] = routes.overheads(ledger, OVERHEAD_RUNS)
            small_board = env.event("get_race_leaderboard", query={"limit": "10"})
            figures["leaderboard_10"] = routes.overhead(ledger, "get_race_leaderboard", small_board, LEADERBOARD_RUNS)
            say(f"leaderboard 10 rows: p50 {figures['leaderboard_10']['p50_ms']:.2f} ms outside DynamoDB")

            dynamo.drop("bench-warm")
            say(f"race day: {RACERS} racers, replay budget {RACE_BUDGET_SECONDS} s")
            result = raceday.replay(dynamo, ledger, RACERS, RACE_BUDGET_SECONDS, RACE_MAX_SECONDS)
            race = raceday.summarise(result, RACERS)
            big_board = env.event("get_race_leaderboard", {"raceId": result["race"].raceId}, query={"limit": "1000"})
            figures["leaderboard_1000"] = routes.overhead(ledger, "get_race_leaderboard", big_board, LEADERBOARD_RUNS // 4)
            say(f"leaderboard 1,000 rows: p50 {figures['leaderboard_1000']['p50_ms']:.2f} ms outside DynamoDB")
            items = env.client().query(TableName="bench-race", KeyConditionExpression="PK = :pk",
                                       ExpressionAttributeValues={":pk": {"S": f"RACE#{result['race'].raceId}"}})["Items"]
            figures["mapping"] = routes.mapping(items)
        say(f"model: {DURATION_TEXT} for {MODEL_SAMPLED_RACERS} sampled racers, chosen and naive designs")
        figures["model"] = raceday.model(RACERS, MODEL_SAMPLED_RACERS)
        replayed = figures["model"]["racer_partitions_wcu_per_second"][1:race["simulated_seconds"]] or [1]
        full = figures["model"]["racer_partitions_wcu_per_second"]
        race["late_race_factor"] = (sum(full) / len(full)) / (sum(replayed) / len(replayed))
        figures["race_day"] = race
        figures["cost"] = pricing.race_cost(race, figures["overhead"], RACERS, raceday.DURATION)
        figures["prices"] = pricing.PRICES
    finally:
        dynamo.stop()
    figures["elapsed_seconds"] = time.perf_counter() - started
    figures["quick"] = QUICK
    report.write(figures)
    say(f"cost of one race ≈ ${figures['cost']['total']:.2f}; wrote docs/performance.md and docs/performance.json "
        f"in {figures['elapsed_seconds']:.0f} s")


DURATION_TEXT = f"{raceday.DURATION} s"

if __name__ == "__main__":
    main()
