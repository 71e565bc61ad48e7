"""The race's bill in docs/performance.json: every priced quantity has a measurement, the scenario or
an "assumed" label behind it (issue 18)."""

import copy
import json
import math

import pytest

from bench import pricing
from local.handlers import ROOT

FIGURES = ROOT / "docs" / "performance.json"
REPORT = ROOT / "docs" / "performance.md"


@pytest.fixture(scope="module")
def figures() -> dict:
    return json.loads(FIGURES.read_text())


def test_every_input_of_every_priced_line_is_measured_scenario_or_assumed(figures):
    # Given the bill make bench wrote
    lines = figures["cost"]["lines"]
    assert lines
    for row in lines:
        assert row["inputs"], row["item"]
        for given in row["inputs"]:
            # Then each input is a measurement of this run, the scenario's, or labelled assumed with why
            assert given["kind"] in ("measured", "scenario", "assumed"), (row["item"], given)
            assert given["source"], (row["item"], given)
            if given["kind"] == "measured":
                # And a measurement names where it is in the figures, and is that value
                found = pricing.resolve(figures, given["source"])
                assert found == given["value"] or (isinstance(found, float) and math.isclose(found, given["value"])), given
            if given["kind"] == "assumed":
                assert given["name"] in figures["assumed"], given
                assert len(figures["assumed"][given["name"]]["why"].split()) >= 5, given


def test_every_line_is_its_quantity_at_its_price(figures):
    for row in figures["cost"]["lines"]:
        assert math.isclose(row["usd"], row["quantity"] * figures["prices"][row["price"]]["usd"]), row["item"]
    assert math.isclose(figures["cost"]["total"], sum(row["usd"] for row in figures["cost"]["lines"]))


def test_the_report_labels_every_assumption_and_says_why(figures):
    # Given the report / Then each assumed input is marked "assumed" where it is used, and its reason is printed
    text = REPORT.read_text()
    for row in figures["cost"]["lines"]:
        for given in row["inputs"]:
            if given["kind"] == "assumed":
                assert f"{given['name']} " in text and "(**assumed**)" in text, given["name"]
                assert figures["assumed"][given["name"]]["why"] in text, given["name"]
            if given["kind"] == "measured":
                assert f"`{given['source']}`" in text, given["source"]


def test_a_quantity_without_a_measurement_or_label_cannot_be_priced(figures):
    # Given a quantity with nothing behind it / Then it cannot be made an input of the bill
    with pytest.raises(ValueError):
        pricing.In("telemetry CPU ms", 4.0, "", "")
    with pytest.raises(ValueError):
        pricing.In("telemetry CPU ms", 4.0, "guessed", "it seemed right")
    # And a bill whose measurement is missing is not priced at all
    missing = copy.deepcopy(figures)
    del missing["race_day"]["bikes"]["post_telemetry"]["cpu_ms"]
    with pytest.raises(KeyError):
        pricing.race_cost(missing, figures["memory_mb"])


def test_the_bill_is_priced_again_from_the_same_figures(figures):
    # Given the figures alone / When priced again / Then the same bill comes out (nothing priced outside them)
    again = pricing.race_cost(figures, figures["memory_mb"])
    assert math.isclose(again["total"], figures["cost"]["total"])
