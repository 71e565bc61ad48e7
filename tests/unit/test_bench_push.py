"""The push measurement's arithmetic: freshness per sample and viewer, and push in the race's bill."""

import json
from collections import defaultdict
from pathlib import Path

import pytest

from bench import push as bench_push
from bench import pricing
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


def race_with_push(push: dict) -> tuple[dict, dict]:
    """The last run's figures with ``push`` measured as given: (the bill polled, the bill pushed)."""
    figures = json.loads((ROOT / "docs" / "performance.json").read_text())
    figures["push"] = dict(push)
    return pricing.race_cost(figures, figures["memory_mb"]), pricing.race_cost(figures, figures["memory_mb"], {"push": True})


def usd(cost: dict, kind: str) -> float:
    return sum(line["usd"] for line in cost["lines"] if line["item"].startswith(kind))


def quantity(cost: dict, kind: str) -> float:
    [line] = [line for line in cost["lines"] if line["item"].startswith(kind)]
    return line["quantity"]


def test_push_is_priced_per_operation_and_connection_minute_in_the_races_bill():
    # Given a message a second per shard, under the 5 KB metering step
    polled, pushed = race_with_push(MEASURED)
    shards = pricing.ASSUMED["stream_shards"][0]
    # Then each of the S shards' 300 messages reaches each of 1,000 viewers, one operation each,
    # plus a connect and a subscribe per viewer and a keep-alive a minute over 6 minutes
    publishes = shards * 300
    assert quantity(pushed, "AppSync Events operations") == publishes + publishes * 1000 + 2_000 + 6_000
    assert quantity(pushed, "AppSync Events connection-minutes") == 6_000
    # And viewers no longer poll through CloudFront: two reads each (first paint, on subscribing)
    assert quantity(pushed, "CloudFront requests") == 2_000
    assert quantity(polled, "CloudFront requests") == 300_000
    assert usd(polled, "AppSync") == 0
    # And the bill differs by exactly the lines that changed
    assert pushed["total"] - polled["total"] == pytest.approx(
        sum(usd(pushed, k) - usd(polled, k) for k in {line["item"].split(" (")[0] for line in pushed["lines"] + polled["lines"]}))


def test_a_message_over_the_metering_step_counts_twice():
    _, once = race_with_push(MEASURED)
    _, twice = race_with_push({**MEASURED, "bytes_per_message": 6000})
    assert usd(twice, "AppSync Events operations") == pytest.approx(2 * usd(once, "AppSync Events operations"), rel=0.02)


def test_coalesced_push_publishes_at_most_once_a_second_per_race():
    figures = json.loads((ROOT / "docs" / "performance.json").read_text())
    figures["push"] = dict(MEASURED)
    coalesced = pricing.race_cost(figures, figures["memory_mb"], {"push": True, "push_coalesced": True})
    assert quantity(coalesced, "AppSync Events operations") == 300 + 300 * 1000 + 2_000 + 6_000


def test_the_push_section_renders_from_the_figures():
    figures = {"measured": "2026-11-25 00:00 UTC", "machine": "Linux x86_64, 2 cores",
               "load_average": {"before": 1.0, "during_mean": 1.5, "during_max": 2.0, "after": 1.0, "cores": 2},
               "racers": 100, "viewers": 100, "pollers": 5, "race_seconds": 120, "late_ticks": 0,
               "freshness_p50_s": 0.8, "freshness_p95_s": 1.3, "freshness_max_s": 2.0, "freshness_samples": 1,
               "polling_p50_s": 1.5, "polling_p95_s": 2.2, "polling_max_s": 3.0, "polling_samples": 1,
               "never_shown": 0, "bytes_per_message_p95": 3100, "bytes_per_message_max": 3200, "rows_per_message": 100,
               **MEASURED}
    performance = json.loads((ROOT / "docs" / "performance.json").read_text())
    performance["push"] = figures
    performance["push"].update(bench_push.priced(performance))
    text = "\n\n".join(bench_push.markdown(performance))
    assert "| **pushed** (subscribed viewers) | **0.80** | **1.30** |" in text
    assert "polled every second (before) | 1.50 | 2.20" in text
    assert "| AppSync Events operations | 0.000 |" in text and "| CloudFront requests | 0.300 |" in text


def test_performance_json_carries_the_push_figures():
    push = json.loads((ROOT / "docs" / "performance.json").read_text())["push"]
    for key in ("freshness_p50_s", "freshness_p95_s", "polling_p95_s", "bytes_per_message", "dollars_per_race"):
        assert isinstance(push[key], (int, float)) and push[key] > 0, key
    assert push["racers"] == 100 and push["viewers"] == 100 and not push.get("quick")
