"""The race's bill in docs/performance.json: every priced quantity has a measurement, the scenario or an
"assumed" label behind it (issue 18); push priced per operation; the report renders from the figures."""

import copy
import json
import math

import pytest

from alleycat.rules import finishing
from bench import pricing, push, report
from bench.env import ROOT

FIGURES = json.loads((ROOT / "docs" / "performance.json").read_text())
MEASURED = {"messages_per_second": 1.0, "bytes_per_message": 3000}


def test_every_input_of_every_priced_line_is_measured_scenario_or_assumed_and_shown():
    text = (ROOT / "docs" / "performance.md").read_text()
    for row in FIGURES["cost"]["lines"]:
        assert row["inputs"] and math.isclose(row["usd"], row["quantity"] * FIGURES["prices"][row["price"]]["usd"])
        for given in row["inputs"]:
            if given["kind"] == "measured":  # named where it is in the figures, and that value
                assert pricing.resolve(FIGURES, given["source"]) == pytest.approx(given["value"], rel=1e-12) \
                    if isinstance(given["value"], float) else pricing.resolve(FIGURES, given["source"]) == given["value"]
                assert f"`{given['source']}`" in text
            elif given["kind"] == "assumed":  # with why, printed
                assert len(given["source"].split()) >= 5 and given["source"] in text and f"{given['name']} " in text
            else:
                assert given["kind"] == "scenario" and given["source"], given
    for kind, source in (("", ""), ("guessed", "it seemed right")):  # nothing else can be priced
        with pytest.raises(ValueError):
            pricing.In("telemetry CPU ms", 4.0, kind, source)


def test_the_bill_is_priced_again_from_the_same_figures_and_not_without_them():
    assert math.isclose(pricing.race_cost(FIGURES)["total"], FIGURES["cost"]["total"])
    assert math.isclose(pricing.race_cost(FIGURES, {"push": True})["total"], FIGURES["push"]["dollars_per_race"])
    missing = copy.deepcopy(FIGURES)
    del missing["race_day"]["bikes"]["post_telemetry"]["cpu_ms"]
    with pytest.raises(KeyError):
        pricing.race_cost(missing)


def pushed(push: dict, **levers) -> dict:
    return pricing.race_cost({**FIGURES, "push": push}, {"push": True, **levers})


def line(cost: dict, kind: str, key: str = "quantity") -> float:
    return sum(row[key] for row in cost["lines"] if row["item"].startswith(kind))


def test_push_is_priced_per_operation_and_connection_minute_in_the_races_bill():
    # The race's 300 messages (one a second, as measured, whatever the S stream shards: its ticker sends
    # them) reach each of 1,000 viewers, one operation each, plus a connect and a subscribe per viewer and
    # a keep-alive a minute over 6 minutes
    cost = pushed(MEASURED)
    assert line(cost, "AppSync Events operations") == 300 * 1001 + 2_000 + 6_000
    assert line(pushed({**MEASURED, "messages_per_second": 2.0}), "AppSync Events operations") == 600 * 1001 + 8_000
    assert line(cost, "AppSync Events connection-minutes") == 6_000
    # Viewers no longer poll through CloudFront: two reads each (first paint, on subscribing)
    assert (line(cost, "CloudFront requests"), line(pricing.race_cost(FIGURES), "CloudFront requests")) == (2_000, 300_000)
    twice = pushed({**MEASURED, "bytes_per_message": 6000})  # over the 5 KB metering step
    assert line(twice, "AppSync Events op", "usd") == pytest.approx(2 * line(cost, "AppSync Events op", "usd"), rel=0.02)
    # The ticker's claims (one a tick: the race's 300 seconds and those until it is settled), its board reads
    # (one strongly consistent Query a tick) and its invocations (the first, which schedules, then one per run)
    polled, ticks = pricing.race_cost(FIGURES), 300 + pricing.ASSUMED["ticks_after_end"]["value"]
    assert line(cost, "DynamoDB write") - line(polled, "DynamoDB write") == pytest.approx(ticks)
    assert line(cost, "Lambda requests") - line(polled, "Lambda requests") == 2 - polled_origin_fetches(polled)
    # and its GB-seconds: 128 MB from the wait before the start to the settlement, sleeping between ticks
    wait = pricing.ASSUMED["ticker_wait_before_start_s"]["value"]
    assert cost["per_function_gb_seconds"][pricing.TICKER] == pytest.approx((wait + ticks) * 128 / 1024)


def polled_origin_fetches(cost: dict) -> float:
    """The board route's invocations a polled race has (CloudFront's misses) and a pushed one does not."""
    return sum(given["value"] for row in cost["lines"] if row["item"] == "Lambda requests" for given in row["inputs"]
               if given["name"] == "origin_fetches_per_second") * 300


def test_the_report_renders_push_beside_polling_from_the_figures():
    figures = copy.deepcopy(FIGURES)
    figures["push"].update(MEASURED, freshness_p50_s=0.8, freshness_p95_s=1.3, polling_p50_s=1.5, polling_p95_s=2.2)
    figures["push"].update(push.priced(figures))
    text = report.markdown(figures)
    assert "| **pushed** (subscribed viewers) | **0.80** | **1.30** |" in text and "(before) | 1.50 | 2.20" in text
    assert "| AppSync Events operations | 0.000 |" in text and "| CloudFront requests | 0.300 |" in text
    assert not figures["push"]["quick"] and figures["push"]["racers"] == figures["push"]["viewers"] == 100


def test_the_mean_wait_priced_is_the_finishers_own():
    # End and delivery uniform over their minutes; the finisher waits for end + GRACE from when it is invoked
    waits = [max(invoked, end + finishing.GRACE) - invoked for end in (1795600800 + n / 4 for n in range(240))
             for invoked in (finishing.schedule_minute(end) + n / 4 for n in range(240))]
    assert abs(sum(waits) / len(waits) - pricing.ASSUMED["finisher_wait_s"]["value"]) < 0.5
