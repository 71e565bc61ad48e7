"""`python -m bench.http_fan_in [RACERS] [SECONDS]`: the HTTP telemetry route with the fan-in off and on, side by side.

The race day's HTTP replays (``bench/__main__.py``: ``race_day``, the fallback's price, the capacity model's walls)
run the chunk path; with ``ALLEYCAT_FAN_IN=on``, the default, the same route counts through the second blocks and
writes the racer's slice board, in the race's partition, once a request. Each bike posts its own second
(``raceday.replay``, ``bikes_post``); with the fan-in on, the history writer then takes the race's blocks. Prints,
for each, the write and read units a racer-second on the hot path (the seconds after the first), the history
writer's, the requests and CPU a post, and the hottest partition of each kind (WCU/s, table and index)."""

from __future__ import annotations

import json
import sys

from . import env, raceday
from .ledger import Ledger

RACERS, SECONDS = 200, 10


def measure(dynamo: env.Dynamo, racers: int, seconds: int, fan_in: bool) -> dict:
    dynamo.restart()
    with Ledger() as ledger:
        result = raceday.replay(dynamo, ledger, f"http-fan-in-{'on' if fan_in else 'off'}", racers, seconds,
                                bikes_post=True, fan_in=fan_in, history=fan_in)
    hot = [c for c in result["calls"] if isinstance(c.label, int) and c.label >= 1]
    history = [c for c in result["calls"] if c.label == "history"]
    posts, racer_seconds, steady = result["measured"]["post"], racers * (seconds - 1), set(range(1, seconds))
    figures = {
        "wcu_per_racer_second": sum(c.write_units + c.index_units for c in hot) / racer_seconds,
        "rcu_per_racer_second": sum(c.read_units for c in hot) / racer_seconds,
        "history_wcu_per_racer_second": sum(c.write_units + c.index_units for c in history) / (racers * seconds),
        "history_rcu_per_racer_second": sum(c.read_units for c in history) / (racers * seconds),
        "requests_per_post": sum(len(run["calls"]) for run in posts) / len(posts),
        "cpu_ms_per_post": sum(run["cpu_ms"] for run in posts) / len(posts),
        "stream_invocations_per_second": sum(result["stream_invocations"]) / len(result["stream_invocations"]),
        "table_peaks_wcu": raceday.peaks(result["calls"], steady, index=False),
        "index_peaks_wcu": raceday.peaks(result["calls"], steady, index=True),
    }
    return {name: {k: round(v, 3) for k, v in value.items()} if isinstance(value, dict) else round(value, 3)
            for name, value in figures.items()}


def main() -> None:
    racers = int(sys.argv[1]) if len(sys.argv) > 1 else RACERS
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else SECONDS
    with env.Dynamo() as dynamo:
        figures = {f"fan_in_{'on' if on else 'off'}": measure(dynamo, racers, seconds, on) for on in (False, True)}
    print(json.dumps({"racers": racers, "seconds": seconds, **figures}, indent=1))


if __name__ == "__main__":
    main()
