"""How the pages write places and days (frontend/src/dom.js, time.js), run in Node: a result's place of the
field ("3rd of 21") and its race's day ("Fri, 27 Nov, 18:30")."""

import pytest

from .nodejs import FRONTEND, imported, package, printed, run


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    folder = package(tmp_path_factory.mktemp("pages_js"), [FRONTEND / "dom.js", FRONTEND / "time.js"])
    modules = imported(folder, dom="dom.js", time="time.js")
    return lambda expression, tz="UTC": run(f"process.env.TZ = {tz!r};", modules, printed(f"return {expression};"))


def test_a_place_reads_as_english_ordinals(js):
    places = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd",
              101: "101st", 111: "111th", 1000: "1000th"}
    assert js(f"{list(places)}.map(dom.ordinal)") == list(places.values())


def test_a_results_day_is_always_written_with_the_year_when_it_is_not_this_year(js):
    # 2026-11-27T13:00:00Z is 18:30 in India (UTC+5:30), a Friday; "now" a day later, then a year later
    start, next_day, next_year = "'2026-11-27T13:00:00Z'", "Date.UTC(2026, 10, 28)", "Date.UTC(2027, 5, 1)"
    same_year = js(f"time.startDate({start}, {next_day})", tz="Asia/Kolkata")
    assert "Fri" in same_year and "27" in same_year and "Nov" in same_year and same_year.endswith(", 18:30")
    assert "2026" not in same_year
    assert "2026" in js(f"time.startDate({start}, {next_year})", tz="Asia/Kolkata")
