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
    assert math.isclose(pricing.race_cost(FIGURES, {"push": False})["total"], FIGURES["push"]["polling_dollars_per_race"])
    assert math.isclose(pricing.race_cost(FIGURES, {"mqtt": False, "push": False})["total"], FIGURES["cost"]["http"]["total"])
    for path, levers in ((("race_day", "mqtt", "ingest_telemetry", "cpu_ms"), {}),
                         (("race_day", "bikes", "post_telemetry", "cpu_ms"), {"mqtt": False})):
        missing = copy.deepcopy(FIGURES)
        del pricing.resolve(missing, ".".join(path[:-1]))[path[-1]]
        with pytest.raises(KeyError):
            pricing.race_cost(missing, levers)


def test_the_mqtt_bill_lists_every_part_of_the_path_and_follows_the_replays_ledger():
    cost = pricing.race_cost(FIGURES)
    items = [row["item"].split(" (")[0] for row in cost["lines"]]
    for part in ("IoT Core connection-minutes", "IoT Core rules triggered", "IoT Core rule actions executed",
                 "Kinesis shard-hours", "Kinesis PUT payload units", "AppSync Events operations", "DynamoDB write request units"):
        assert part in items, part
    assert "CloudFront requests" in items and line(cost, "HTTP API requests") == 1000  # first paints; joins alone
    # a message a bike-second: a rule, an action and a PUT payload unit each
    assert line(cost, "IoT Core rules") == line(cost, "IoT Core rule actions") == line(cost, "Kinesis PUT") == 300_000
    assert cost["per_function_gb_seconds"]["post_telemetry"] == 0 < cost["per_function_gb_seconds"]["ingest_telemetry"]
    # the table's units are the MQTT replay's ledger: a consumer that wrote 0.1 more a racer-second costs 30,000 more
    heavier = copy.deepcopy(FIGURES)
    heavier["race_day"]["mqtt"]["wcu_per_racer_second_replayed"] += 0.1
    assert line(pricing.race_cost(heavier), "DynamoDB write") - line(cost, "DynamoDB write") == pytest.approx(30_000)
    # with the fan-in on, the history writer's writes and reads (as make bench-scale recorded them) join the replay's,
    # and no stream board write a batch does
    on, off = copy.deepcopy(FIGURES), copy.deepcopy(FIGURES)
    on["race_day"]["mqtt"]["fan_in"], off["race_day"]["mqtt"]["fan_in"] = True, False
    off["race_day"]["mqtt"]["stream_processor"]["board_wcu_per_invocation"] = 0.0
    history = FIGURES["scale"]["fan_in"]
    assert line(pricing.race_cost(on), "DynamoDB write") - line(pricing.race_cost(off), "DynamoDB write") \
        == pytest.approx((history["history_wcu_per_racer_second"] - FIGURES["race_day"]["late_race_extra_wcu"]) * 300_000)
    assert line(pricing.race_cost(on), "DynamoDB read") - line(pricing.race_cost(off), "DynamoDB read") \
        == pytest.approx(history["history"]["rcu_a_racer_batch"] / history["history"]["window_seconds"] * 300_000)
    # and the fixed monthly cost names the stream's shards, around the clock
    assert FIGURES["fixed_monthly"]["rows"]["Kinesis shard-hours (the telemetry log's provisioned shards, around the clock)"][
        "count"] == FIGURES["stack"]["ingest_shards"] * 730


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
    assert (line(cost, "CloudFront requests"), line(pricing.race_cost(FIGURES, {"push": False}), "CloudFront requests")) \
        == (2_000, 300_000)
    twice = pushed({**MEASURED, "bytes_per_message": 6000})  # over the 5 KB metering step
    assert line(twice, "AppSync Events op", "usd") == pytest.approx(2 * line(cost, "AppSync Events op", "usd"), rel=0.02)
    # The ticker's claims (one a tick: the race's 300 seconds and those until it is settled), its board reads
    # (one strongly consistent Query a tick) and its invocations (the first, which schedules, then one per run)
    polled, ticks = pricing.race_cost(FIGURES, {"push": False}), 300 + pricing.ASSUMED["ticks_after_end"]["value"]
    tick = FIGURES["race_day"]["mqtt"]["tick_race"]  # as the MQTT replay's ticker measured a tick
    assert line(cost, "DynamoDB write") - line(polled, "DynamoDB write") == pytest.approx(ticks * tick["wcu_per_tick"])
    assert line(cost, "DynamoDB read") - line(polled, "DynamoDB read") == pytest.approx(
        ticks * tick["rcu_per_tick"] - polled_origin_fetches(polled) * FIGURES["race_day"]["bikes"]["pages"]["100"]["rcu"])
    assert line(cost, "Lambda requests") - line(polled, "Lambda requests") == 2 - polled_origin_fetches(polled)
    # and its GB-seconds: its memory from the wait before the start to the settlement, sleeping between ticks
    wait = pricing.ASSUMED["ticker_wait_before_start_s"]["value"]
    memory = FIGURES["stack"]["memory_mb"][pricing.TICKER]
    assert cost["per_function_gb_seconds"][pricing.TICKER] == pytest.approx((wait + ticks) * memory / 1024)


def polled_origin_fetches(cost: dict) -> float:
    """The board route's invocations a polled race has (CloudFront's misses) and a pushed one does not."""
    return sum(given["value"] for row in cost["lines"] if row["item"].startswith("Lambda requests") for given in row["inputs"]
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
