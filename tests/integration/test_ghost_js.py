"""Riding with a ghost, as arithmetic run in Node (frontend/src/ghost.js): a ghost from a replay answer
(contract v1.2: ``scores[i][k]`` is racer i's cumulative score after second k × step, to one place), its
score at a second of the race being ridden (the race's time), the gap to it, and which ride "your best"
and "the class record" are. Every expected value is worked out here, from per-second outputs made
with the contract's formula and summed in decimal."""

import json
import math
import random
from decimal import ROUND_HALF_UP, Decimal

import pytest

from .nodejs import over

TENTH = Decimal("0.1")


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(statements) -> the JSON value the statements ``return``, over ghost.js (and what it imports)."""
    return over(tmp_path_factory.mktemp("ghost_js"), ghost="ghost.js", fair="fairPlay.js", power="power.js", dom="dom.js")


def output(cadence, resistance) -> Decimal:
    return ((Decimal(cadence) + 35) * (Decimal(resistance) + 65) / 100).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


def ride(rng, seconds, missing=0.0):
    """One racer's outputs by second (a second left out with chance ``missing``: it adds nothing)."""
    return {s: output(rng.randrange(30, 91), rng.randrange(33, 87)) for s in range(seconds) if rng.random() >= missing}


def replay(rng, duration, racers):
    """A replay answer as the contract lays it out, from each racer's outputs: {answer, outputs by racer}."""
    step = 1 if duration <= 300 else math.ceil(duration / 300)
    last = duration - 1
    # k × step for every step within the race, then, where the last second is not on a step, one past it: the end
    ends = [k * step for k in range(last // step + 1)] + ([last] if last % step else [])
    outputs = {f"racer-{i}": ride(rng, duration, missing=0.1 * (i % 3)) for i in range(racers)}
    outputs["racer-none"] = {}  # joined, never rode: a row of zeros

    def cumulative(by_second, second):
        return sum((value for s, value in by_second.items() if s <= second), Decimal(0))

    rows = [[float(cumulative(by_second, end).quantize(TENTH, rounding=ROUND_HALF_UP)) for end in ends]
            for by_second in outputs.values()]
    answer = {"raceId": "race-past", "classId": "hill", "startsAt": "2026-11-20T18:00:00Z", "durationSeconds": duration,
              "racers": [{"racerId": racer_id, "name": f"Name of {racer_id}", "equipment": "bike", "rank": i + 1}
                         for i, racer_id in enumerate(outputs)],
              "step": step, "scores": rows}
    return answer, outputs


def test_a_ghost_is_its_racers_row_of_the_replay_and_none_for_a_racer_not_in_it(js):
    answer, _ = replay(random.Random(1), 60, 4)
    got = js(f"""
      const answer = {json.dumps(answer)};
      const g = ghost.ghostOf(answer, "racer-2");
      return [{{ ...g, scores: [...g.scores] }}, ghost.ghostOf(answer, "someone-else"), ghost.finalScore(ghost.ghostOf(answer, "racer-none"))];""")
    found, absent, nothing = got
    assert (found["racerId"], found["name"], found["rank"], found["raceId"], found["step"]) == (
        "racer-2", "Name of racer-2", 3, "race-past", 1)
    assert found["scores"] == answer["scores"][2]
    assert absent is None
    assert nothing == 0


def test_the_ghosts_score_at_each_second_is_its_cumulative_score_after_that_second(js):
    rng = random.Random(43)
    answer, outputs = replay(rng, 120, 3)
    seconds = list(range(-3, 130))
    got = js(f"""
      const g = ghost.ghostOf({json.dumps(answer)}, "racer-1");
      return {json.dumps(seconds)}.map((s) => ghost.scoreAt(g, s));""")
    final = sum(outputs["racer-1"].values(), Decimal(0))
    for second, score in zip(seconds, got, strict=True):
        upto = min(second, 119)  # past the end of the ghost's race: its final score
        exact = sum((v for s, v in outputs["racer-1"].items() if s <= upto), Decimal(0)) if second >= 0 else Decimal(0)
        assert score == float(exact.quantize(TENTH, rounding=ROUND_HALF_UP)), second
    assert got[-1] == float(final.quantize(TENTH, rounding=ROUND_HALF_UP))


def test_a_long_races_ghost_moves_on_each_step_and_ends_on_its_final_score(js):
    rng = random.Random(44)
    answer, outputs = replay(rng, 1000, 2)  # step 4: seconds 0, 4, …, 996, then the end (999)
    assert answer["step"] == 4 and len(answer["scores"][0]) == 251
    seconds = [0, 1, 3, 4, 5, 7, 8, 500, 503, 995, 996, 997, 998, 999, 1000, 5000]
    got = js(f"""
      const g = ghost.ghostOf({json.dumps(answer)}, "racer-0");
      return {json.dumps(seconds)}.map((s) => ghost.scoreAt(g, s));""")
    by_second = outputs["racer-0"]

    def after(second):
        return float(sum((v for s, v in by_second.items() if s <= second), Decimal(0)).quantize(TENTH, rounding=ROUND_HALF_UP))

    expected = [after(4 * (s // 4)) if s < 999 else after(999) for s in seconds]  # the last step at or before s
    assert got == expected
    assert got[seconds.index(997)] == after(996)  # between steps: the step before


@pytest.mark.parametrize(("mine", "ghost_score", "shown"), [
    (100.0, 100.0, "level"), (112.3, 100.0, "+12.3 ahead"), (91.9, 100.0, "8.1 behind"),
    (100.05, 100.0, "+0.1 ahead"), (99.95, 100.0, "0.1 behind"),  # halves away from zero, the same either way
    (100.0449, 100.0, "level"), (1234.5678, 0.0, "+1,234.6 ahead"), (0.0, 2000.0, "2,000.0 behind"),
])
def test_the_gap_reads_to_a_tenth_halves_away_from_zero(js, mine, ghost_score, shown):
    got = js(f"return ghost.gapText(ghost.tenthsApart({mine}, {ghost_score}));")
    assert got == shown


@pytest.mark.parametrize(("mine", "ghost_score", "shown"), [
    (54300, 54300, "level"), (54349.9, 54300, "level"), (54350, 54300, "+0.1\u00a0kJ ahead"),
    (54250, 54300, "0.1\u00a0kJ behind"),  # halves away from zero, the same either way
    (55450, 54300, "+1.2\u00a0kJ ahead"), (53150, 54300, "1.2\u00a0kJ behind"), (1234567, 0, "+1,234.6\u00a0kJ ahead"),
    (0, 1234549.9, "1,234.5\u00a0kJ behind"),
])
def test_a_power_classs_gap_reads_in_kilojoules_to_a_tenth_halves_away_from_zero(js, mine, ghost_score, shown):
    # a power class's scores are joules (contract v1.3): the gap reads as power.js writes kJ
    assert js(f"return ghost.gapText(ghost.tenthsApart({mine}, {ghost_score}), 'power');") == shown
    assert js(f"return ghost.gapText(ghost.tenthsApart({mine}, {ghost_score}), 'output');") == js(
        f"return ghost.gapText(ghost.tenthsApart({mine}, {ghost_score}));")


def test_the_gap_is_the_rounded_difference_for_any_four_place_score(js):
    rng = random.Random(45)
    pairs = [(rng.randrange(0, 10_000_000) / 10_000, rng.randrange(0, 100_000) / 10) for _ in range(3000)]
    pairs += [(a / 100, b / 10) for a, b in ((12345, 1234), (12355, 1234), (5, 0), (0, 5), (15, 0))]  # exact halves
    got = js(f"return {json.dumps(pairs)}.map(([a, b]) => ghost.tenthsApart(a, b));")
    for (mine, ghost_score), gap in zip(pairs, got, strict=True):
        exact = Decimal(str(mine)) - Decimal(str(ghost_score))
        assert gap == float(exact.quantize(TENTH, rounding=ROUND_HALF_UP)), (mine, ghost_score)


def test_the_gap_compares_the_riders_row_with_the_ghost_after_the_same_second_and_the_final_at_the_races_end(js):
    rng = random.Random(46)
    answer, outputs = replay(rng, 60, 2)
    race = {"raceId": "race-now", "startsAt": "2026-11-27T18:00:00Z", "durationSeconds": 60}
    rows = [{"score": 1234.5678, "lastSecond": 29}, {"score": 0, "lastSecond": None}, {"score": 10, "lastSecond": 0}]
    got = js(f"""
      const g = ghost.ghostOf({json.dumps(answer)}, "racer-0");
      const race = {json.dumps(race)};
      return [...{json.dumps(rows)}.map((row) => ghost.gapTo(g, row, {{ race }})), ghost.gapTo(g, null, {{ race }}),
              ghost.gapTo(g, {{ score: 3000, lastSecond: 40 }}, {{ race, finished: true }})];""")

    def ghost_after(second):
        exact = sum((v for s, v in outputs["racer-0"].items() if s <= second), Decimal(0))
        return exact.quantize(TENTH, rounding=ROUND_HALF_UP)

    def gap(mine, second):
        return float((Decimal(str(mine)) - ghost_after(second)).quantize(TENTH, rounding=ROUND_HALF_UP))

    assert got[0] == {"second": 29, "ghostScore": float(ghost_after(29)), "gap": gap(1234.5678, 29), "final": False}
    assert got[1] is None and got[3] is None  # no second of the rider's yet; no row
    assert got[2]["second"] == 0 and got[2]["gap"] == gap(10, 0)
    # Finished: the final score against the ghost's at the race's last second, not at the rider's last
    assert got[4] == {"second": 59, "ghostScore": float(ghost_after(59)), "gap": gap(3000, 59), "final": True}


def test_your_best_and_the_class_record_come_from_the_class_board(js):
    board = [{"rank": 1, "racerId": "ana", "name": "Ana", "bestScore": 900.5, "raceId": "r3"},
             {"rank": 2, "racerId": "kit", "name": "Kit", "bestScore": 850.0, "raceId": "r1"}]
    got = js(f"""
      const board = {json.dumps(board)};
      return [ghost.bestOnBoard(board, "kit"), ghost.bestOnBoard(board, "nobody"), ghost.recordOf(board), ghost.recordOf([])];""")
    assert got == [board[1], None, board[0], None]


def test_a_best_read_from_the_racers_results_counts_only_finished_real_rides_of_the_class_that_count(js):
    base = {"classId": "hill", "status": "finished", "equipment": "bike", "review": None, "lastSecond": 299, "rank": 3}
    items = [
        {**base, "raceId": "open", "status": "open", "score": 9000, "startsAt": "2026-11-27T18:00:00Z"},
        {**base, "raceId": "virtual", "equipment": "virtual", "score": 8000, "startsAt": "2026-11-26T18:00:00Z"},
        {**base, "raceId": "pending", "review": "pending", "score": 7000, "startsAt": "2026-11-25T18:00:00Z"},
        {**base, "raceId": "out", "review": "disqualified", "score": 6500, "startsAt": "2026-11-24T18:00:00Z"},
        {**base, "raceId": "other-class", "classId": "flat", "score": 6000, "startsAt": "2026-11-23T18:00:00Z"},
        {**base, "raceId": "tie-later", "equipment": "trainer", "review": "cleared", "score": 5000, "startsAt": "2026-11-22T18:00:00Z"},
        {**base, "raceId": "tie-first", "score": 5000, "startsAt": "2026-11-21T18:00:00Z"},
        {**base, "raceId": "lower", "score": 100, "startsAt": "2026-11-20T18:00:00Z"},
    ]
    got = js(f"return [ghost.bestInResults({json.dumps(items)}, 'hill')?.raceId, ghost.bestInResults([], 'hill')];")
    assert got == ["tie-first", None]


def test_the_races_a_racer_is_picked_from_are_the_finished_ones_latest_first(js):
    items = [{"raceId": "a", "startsAt": "2026-11-20T18:00:00Z", "status": "finished"},
             {"raceId": "b", "startsAt": "2026-11-28T18:00:00Z", "status": "open"},
             {"raceId": "c", "startsAt": "2026-11-25T18:00:00Z", "status": "finished"}]
    assert js(f"return ghost.finishedRaces({json.dumps(items)}).map((race) => race.raceId);") == ["c", "a"]
