"""A race's feel on the ride page, as arithmetic run in Node (frontend/src/rideFeel.js): the time left,
the 3-2-1 and the sound cues' moments, the riders just ahead and behind with their gaps, the field's
bands of score, ordinals. Every expected value is worked out here, from the board's order as the
contract gives it (highest score first, a disqualified ride last and without a place)."""

import json
import random

import pytest

from .nodejs import over

START = 1_795_629_600_000  # 2026-11-25T18:00:00Z in ms
RACE = {"startsAt": "2026-11-25T18:00:00Z", "durationSeconds": 300}


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(statements) -> the JSON value the statements ``return``, over rideFeel.js (and what it imports)."""
    return over(tmp_path_factory.mktemp("ride_feel_js"), feel="rideFeel.js", push="push.js", time="time.js")


def test_ordinals_read_as_people_say_them(js):
    numbers = [1, 2, 3, 4, 10, 11, 12, 13, 14, 21, 22, 23, 100, 101, 102, 111, 112, 113, 121, 1000]
    got = js(f"return {json.dumps(numbers)}.map(feel.ordinal);")
    assert got == ["1st", "2nd", "3rd", "4th", "10th", "11th", "12th", "13th", "14th", "21st", "22nd", "23rd",
                   "100th", "101st", "102nd", "111th", "112th", "113th", "121st", "1000th"]


def test_the_time_left_is_the_race_length_less_the_second_under_way(js):
    rng = random.Random(41)
    offsets = [0, 1, 999, 1000, 59_999, 60_000, 251_500, 298_000, 299_000, 299_999] + [
        rng.randrange(0, 300_000) for _ in range(200)]
    got = js(f"return {json.dumps(offsets)}.map((ms) => feel.timeLeftText({json.dumps(RACE)}, {START} + ms));")
    for ms, text in zip(offsets, got, strict=True):
        left = 300 - ms // 1000  # during second k (0-based) of 300: 300 - k seconds are left, rounded up
        assert text == f"{left // 60}:{left % 60:02d} left", ms
    outside = js(f"return [-1, 300_000, 400_000].map((ms) => feel.timeLeftText({json.dumps(RACE)}, {START} + ms));")
    assert outside == [None, None, None]


def test_the_count_shows_3_2_1_in_the_last_three_seconds_and_go_in_the_first(js):
    cases = {-4000: None, -3001: None, -3000: "3", -2001: "3", -2000: "2", -1500: "2", -1000: "1", -1: "1",
             0: "Go", 999: "Go", 1000: None, 200_000: None}
    got = js(f"return {json.dumps(list(cases))}.map((ms) => feel.countIn({json.dumps(RACE)}, {START} + ms));")
    assert got == list(cases.values())


def test_the_cues_sound_once_each_at_3_2_1_go_and_the_finish(js):
    # The page looks every quarter second from 10 s before the start to 5 s after the end (a 60 s race).
    race = {**RACE, "durationSeconds": 60}
    got = js(f"""
      const race = {json.dumps(race)};
      const heard = [];
      let before = null;
      for (let ms = -10_000; ms <= 65_000; ms += 250) {{
        const now = feel.momentOf(race, {START} + ms);
        const cue = feel.cueFor(before, now);
        if (cue) heard.push([ms, cue]);
        before = now;
      }}
      return heard;""")
    assert got == [[-3000, "count"], [-2000, "count"], [-1000, "count"], [0, "go"], [60_000, "finish"]]
    # a page opened after the finish, or in the middle of the count, hears nothing for what it missed
    late = js(f"""
      const race = {json.dumps(race)};
      return [feel.cueFor(null, feel.momentOf(race, {START} + 70_000)), feel.cueFor(null, feel.momentOf(race, {START} - 1500)),
              feel.cueFor(feel.momentOf(race, {START} - 20_000), feel.momentOf(race, {START} + 90_000))];""")
    assert late == [None, None, None]


def test_a_clock_estimate_that_moves_back_never_counts_back_nor_beeps_twice(js):
    # The page's estimate of the server's clock narrows as answers come: it may move back by most of a second.
    looks = [-3500, -2600, -1900, -2300, -1400, -1700, -600, -1200, 100, -200, 900, 1500, 60_200, 59_800, 60_900]
    race = {**RACE, "durationSeconds": 60}
    got = js(f"""
      const race = {json.dumps(race)};
      let moment = null;
      const shown = [], heard = [];
      for (const ms of {json.dumps(looks)}) {{
        const next = feel.onwards(moment, feel.momentOf(race, {START} + ms));
        const cue = feel.cueFor(moment, next);
        if (cue) heard.push(cue);
        moment = next;
        shown.push(moment);
      }}
      return {{ shown, heard }};""")
    # (until the start: 3.5 s before; 2.6 s: 3; 1.9 s: 2; 2.3 s: 3 again, held at 2; 1.4 and 1.7 s: 2; 0.6 s: 1; ...)
    assert got["shown"] == ["before", "3", "2", "2", "2", "2", "1", "1", "Go", "Go", "Go", "live", "over", "over", "over"]
    assert got["heard"] == ["count", "count", "count", "go", "finish"]


def board(rng, size):
    """A board of ``size`` rows as the API gives it: scores with ties, a few disqualified, in board order."""
    rows = [{"racerId": f"r{index:04d}", "name": f"Racer {index}", "score": round(rng.choice([rng.uniform(0, 900), 450.5]), 1),
             "lastSecond": 100, "review": "disqualified" if rng.random() < 0.03 else None} for index in range(size)]
    rows.sort(key=lambda row: (row["review"] == "disqualified", -row["score"], row["racerId"]))
    place = 0
    for row in rows:
        place += row["review"] != "disqualified"
        row["rank"] = place if row["review"] != "disqualified" else None
    return rows


def test_the_riders_just_ahead_and_behind_and_the_gaps_to_them(js):
    rng = random.Random(7)
    rows = board(rng, 1000)
    ranked = [row for row in rows if row["review"] != "disqualified"]
    asked = [ranked[0]["racerId"], ranked[1]["racerId"], ranked[-1]["racerId"]] + [
        row["racerId"] for row in rng.sample(rows, 60)]
    shuffled = rows[:]
    rng.shuffle(shuffled)  # the page merges rows from several reads: any order in
    got = js(f"""
      const rows = feel.mergeRows({json.dumps(shuffled)});
      return {json.dumps(asked)}.map((id) => feel.neighbours(rows, id));""")
    for racer_id, near in zip(asked, got, strict=True):
        at = next((i for i, row in enumerate(ranked) if row["racerId"] == racer_id), None)
        if at is None:  # a disqualified ride has no place: no one is ahead of it or behind it
            assert near == {"ahead": None, "behind": None}
            continue
        mine = ranked[at]["score"]
        if at == 0:
            assert near["ahead"] is None
        else:
            assert near["ahead"]["racerId"] == ranked[at - 1]["racerId"] and near["ahead"]["name"] == ranked[at - 1]["name"]
            assert near["ahead"]["gap"] == pytest.approx(ranked[at - 1]["score"] - mine, abs=1e-9)
        if at == len(ranked) - 1:
            assert near["behind"] is None
        else:
            assert near["behind"]["racerId"] == ranked[at + 1]["racerId"]
            assert near["behind"]["gap"] == pytest.approx(mine - ranked[at + 1]["score"], abs=1e-9)
    assert all(near["ahead"] is None or near["ahead"]["gap"] >= 0 for near in got)


def test_a_rows_latest_second_wins_the_merge(js):
    field = [{"racerId": "a", "name": "A", "score": 50, "lastSecond": 10}, {"racerId": "b", "name": "B", "score": 40, "lastSecond": 10},
             {"racerId": "c", "name": "C", "score": 30, "lastSecond": 10}]
    board_now = [{"racerId": "c", "name": "C", "score": 70, "lastSecond": 14}, {"racerId": "a", "name": "A", "score": 45, "lastSecond": 9}]
    own = [{"racerId": "b", "name": "B", "score": 41, "lastSecond": 10}]
    got = js(f"return feel.mergeRows({json.dumps(field)}, {json.dumps(board_now)}, {json.dumps(own)});")
    # c's row of second 14 beats its older one; a's older row (second 9) does not replace second 10's; b's tie goes to the later list
    assert [(row["racerId"], row["score"]) for row in got] == [("c", 70), ("a", 50), ("b", 41)]


def test_the_field_in_bands_from_the_last_riders_score_to_the_leaders(js):
    # 12 riders from 0 to 100 in 10 bands of 10 points: 0 and 5 share the first, 95 and 100 the last
    scores = [0, 5, 15, 25, 35, 45, 55, 65, 75, 85, 95, 100]
    rows = [{"racerId": f"r{i}", "score": s} for i, s in enumerate(scores)] + [
        {"racerId": "dq", "score": 500, "review": "disqualified"}]
    got = js(f"return feel.fieldBins({json.dumps(rows)}, 10);")
    assert got == {"counts": [2, 1, 1, 1, 1, 1, 1, 1, 1, 2], "low": 0, "high": 100, "riders": 12}
    # a thousand riders: every one in one band, each band the riders whose score lies in its tenth of the range
    rng = random.Random(3)
    thousand = [{"racerId": f"r{i}", "score": round(rng.uniform(200, 800), 1)} for i in range(1000)]
    got = js(f"return feel.fieldBins({json.dumps(thousand)}, 60);")
    low, high = min(r["score"] for r in thousand), max(r["score"] for r in thousand)
    width = (high - low) / 60
    assert (got["low"], got["high"], got["riders"], sum(got["counts"])) == (low, high, 1000, 1000)
    for band, count in enumerate(got["counts"]):
        inside = [r for r in thousand if low + band * width <= r["score"] < low + (band + 1) * width or (band == 59 and r["score"] == high)]
        assert abs(count - len(inside)) <= sum(  # a score on a band's edge may fall either side by rounding
            1 for r in thousand if min(abs(r["score"] - (low + band * width)), abs(r["score"] - (low + (band + 1) * width))) < 1e-9), band


def test_a_position_on_the_strip(js):
    got = js("return [feel.positionOf(150, 100, 300), feel.positionOf(300, 100, 300), feel.positionOf(100, 100, 300),"
             " feel.positionOf(0, 0, 0), feel.positionOf(5, 5, 5), feel.fieldBins([], 10)];")
    assert got == [0.25, 1, 0, 1, 1, {"counts": [0] * 10, "low": 0, "high": 0, "riders": 0}]


def test_the_fields_read_asks_the_smallest_page_multiple_that_holds_every_racer(js):
    got = js("return [[1, 100], [100, 100], [101, 100], [999, 100], [1000, 100], [1500, 100], [150, 20]]"
             ".map(([racers, page]) => feel.fieldLimit(racers, page, 1000));")
    assert got == [100, 100, 200, 1000, 1000, 1000, 160]
