"""The push measurement's arithmetic: freshness per sample and viewer, and the price of a race."""

import json
from collections import defaultdict
from pathlib import Path

import pytest

from bench import push as bench_push
from bench.pricing import PRICES
from simulator.audience import Board, _lags, percentiles

ROOT = Path(__file__).resolve().parents[2]


def test_a_board_shows_every_second_up_to_the_racers_last_once():
    shown = defaultdict(list)
    board = Board(shown)
    board.show("a", 2, 10.0)
    board.show("a", 1, 11.0)   # an older message: nothing new
    board.show("a", 4, 12.0)
    board.show("b", None, 12.0)
    assert dict(shown) == {("a", 0): [10.0], ("a", 1): [10.0], ("a", 2): [10.0], ("a", 3): [12.0], ("a", 4): [12.0]}


def test_freshness_counts_each_viewer_and_never_goes_below_zero():
    shown = {("a", 0): [10.5, 11.0], ("a", 1): [9.0]}  # two viewers saw second 0; one saw second 1 early
    accepted = {("a", 0): 10.0, ("a", 1): 9.5, ("a", 2): 9.9}
    lags, missing = _lags(shown, accepted, viewers=2)
    assert sorted(lags) == [0.0, 0.5, 1.0]
    assert missing == 1 + 2  # second 1 missed by one viewer, second 2 by both
    assert percentiles([1.0, 2.0, 3.0, 4.0])["p50"] == 3.0


MEASURED = {"messages_per_second": 1.0, "bytes_per_message": 3000}
RACE = {"leaderboard_gzip_bytes": 34_000, "leaderboard_top100_gzip_bytes": 3_600, "leaderboard_read_rcu": 9.5}


def test_push_is_priced_per_operation_and_connection_minute_beside_polling():
    cost = bench_push.price(MEASURED, RACE, PRICES, viewers=1000, seconds=300)
    # 300 publishes, each delivered to 1,000 viewers: one metered operation each (under 5 KB)
    assert cost["publishes"] == 300 and cost["deliveries"] == 300_000
    assert cost["metered_operations_per_message"] == 1
    # plus a connect and a subscribe per viewer and a keep-alive a minute over 6 minutes
    assert cost["operations"] == 300 + 300_000 + 2_000 + 6_000
    assert cost["push_dollars"]["event_api_operations"] == pytest.approx(0.3083)
    assert cost["connection_minutes"] == 6_000
    assert cost["push_dollars"]["connection_minutes"] == pytest.approx(6_000 * 0.08 / 1e6)
    # and the polled side: a CloudFront request per viewer per second and the board's bytes
    assert cost["polls"] == 300_000
    assert cost["polling_dollars"]["cloudfront_requests"] == pytest.approx(0.30)
    assert cost["polling_dollars"]["cloudfront_transfer"] == pytest.approx(300_000 * 34_000 / 1e9 * 0.085)
    assert cost["polling_top100_total"] < cost["polling_total"]


def test_a_message_over_the_metering_step_counts_twice():
    cost = bench_push.price({**MEASURED, "bytes_per_message": 6000}, RACE, PRICES, viewers=10, seconds=10)
    assert cost["metered_operations_per_message"] == 2


def test_the_push_section_renders_from_the_figures():
    figures = {"measured": "2026-11-25 00:00 UTC", "machine": "Linux x86_64, 2 cores",
               "load_average": {"before": 1.0, "during_mean": 1.5, "during_max": 2.0, "after": 1.0, "cores": 2},
               "racers": 100, "viewers": 100, "pollers": 5, "race_seconds": 120, "late_ticks": 0,
               "freshness_p50_s": 0.8, "freshness_p95_s": 1.3, "freshness_max_s": 2.0, "freshness_samples": 1,
               "polling_p50_s": 1.5, "polling_p95_s": 2.2, "polling_max_s": 3.0, "polling_samples": 1,
               "never_shown": 0, "bytes_per_message_p95": 3100, "bytes_per_message_max": 3200, "rows_per_message": 100,
               **MEASURED}
    text = "\n\n".join(bench_push.markdown({"push": bench_push.with_price(figures, RACE, PRICES)}))
    assert "| **pushed** (subscribed viewers) | **0.80** | **1.30** |" in text
    assert "polled every second (before) | 1.50 | 2.20" in text


def test_performance_json_carries_the_push_figures():
    push = json.loads((ROOT / "docs" / "performance.json").read_text())["push"]
    for key in ("freshness_p50_s", "freshness_p95_s", "polling_p95_s", "bytes_per_message", "dollars_per_race"):
        assert isinstance(push[key], (int, float)) and push[key] > 0, key
    assert push["racers"] == 100 and push["viewers"] == 100 and not push.get("quick")
