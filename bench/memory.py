"""Lambda memory for the MQTT path's functions, from the bench's figures (issue 53, item 6): the smallest of
Lambda's sizes that holds the function's peak memory twice over and meets its one need of CPU, which Lambda gives in
proportion to memory (a vCPU at 1,769 MB). What each needs:

- ``ingest_telemetry``: a lane of the stream keeps up with its share of a 1,000-racer race: its records a second
  (the race's messages over the stream's shards × lanes), each the measured CPU and round trips, within a second.
- ``tick_race``: a tick's work (its claim, its board read, its message: CPU as measured with the replay's board)
  within ``TICK_BUDGET_MS``, so the message leaves at its phase; it sleeps the rest of the second either way.
- ``authorize_ingest``: CPU-bound (an RS256 check), so its GB-seconds are the same at any size; a warm connect
  within ``CONNECT_BUDGET_MS``.
"""

from __future__ import annotations

import math

SIZES = (128, 256, 512, 1024, 1536, 1769)
FULL_VCPU_MB, RACERS = 1769, 1000
TICK_BUDGET_MS, CONNECT_BUDGET_MS = 100, 50


def _smallest(need_ms: float, budget_ms: float, rss_mb: float) -> int:
    """The smallest size at which ``need_ms`` of one vCPU's CPU takes at most ``budget_ms`` and the peak fits twice."""
    return next((mb for mb in SIZES if need_ms * max(1.0, FULL_VCPU_MB / mb) <= budget_ms and mb >= 2 * rss_mb), SIZES[-1])


def sizes(figures: dict, round_trip_ms: float) -> dict:
    """Each function's chosen memory and the figures it was chosen from."""
    mq, cold, stack = figures["race_day"]["mqtt"], figures["cold_start"], figures["stack"]
    consumer = mq["ingest_telemetry"]
    per_record = consumer["cpu_ms"]["mean"] / consumer["records_per_invocation"]
    waits = consumer["waves"] / consumer["records_per_invocation"] * round_trip_ms
    lane_records = math.ceil(RACERS / (stack["ingest_shards"] * stack["ingest_parallelization"]))
    # a lane's second: its records' CPU at the size, plus their round trips one after the other
    lane_cpu_ms, lane_budget_ms = lane_records * per_record, 1000 - lane_records * waits
    tick, connect = mq["tick_race"]["cpu_ms_per_tick"], mq["authorize_ingest"]["cpu_ms"]["p50"]
    return {
        "ingest_telemetry": {"mb": _smallest(lane_cpu_ms, lane_budget_ms, cold["ingest_telemetry"]["peak_rss_mb"]),
                             "cpu_ms_per_record": per_record, "round_trip_ms_per_record": waits, "lane_records_per_second": lane_records,
                             "peak_rss_mb": cold["ingest_telemetry"]["peak_rss_mb"]},
        "tick_race": {"mb": _smallest(tick, TICK_BUDGET_MS, cold["tick_race"]["peak_rss_mb"]), "cpu_ms_per_tick": tick,
                      "budget_ms": TICK_BUDGET_MS, "peak_rss_mb": cold["tick_race"]["peak_rss_mb"]},
        "authorize_ingest": {"mb": _smallest(connect, CONNECT_BUDGET_MS, cold["authorize_ingest"]["peak_rss_mb"]),
                             "cpu_ms_per_connect": connect, "budget_ms": CONNECT_BUDGET_MS,
                             "peak_rss_mb": cold["authorize_ingest"]["peak_rss_mb"]},
    }
