"""A settled race watched again, as arithmetic run in Node (frontend/src/replay.js): the board at any
step, the places moved since an earlier one, who led when, the field's bands. Every expected value is
worked out here from the replay's scores: boards in the server's own order (alleycat.rules.board.Board:
score descending, then racerId, a disqualified ride last and without a rank), leaders and bands by plain
arithmetic over the same numbers."""

import json
import random
from decimal import Decimal

import pytest

from alleycat.rules.board import Board, Standing

from .nodejs import over

BINS = 60


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(statements) -> the JSON value the statements ``return``, over replay.js (and what it imports)."""
    return over(tmp_path_factory.mktemp("replay_js"), replay="replay.js", feel="rideFeel.js", push="push.js", time="time.js")


def cumulative(rng, seconds, rate):
    """A racer's cumulative score each second, rounded to 1 decimal as the replay gives it."""
    total, row = 0.0, []
    for _ in range(seconds):
        total += rng.choice([0, 0, rate, rate * 1.1, rate * 0.9])
        row.append(round(total, 1))
    return row


def a_replay(rng, racers, seconds, *, disqualified=(), zero=(), step=1):
    """A replay answer as the contract gives it: racers in final board order, scores[i] theirs. Some ids
    differ only in case (the order is by code unit, "B" before "a"); a few racers ride identically (ties)."""
    ids = [f"{rng.choice('aAbB')}{n:03d}{rng.choice('xyz')}" for n in range(racers)]
    rows = {}
    for index, racer_id in enumerate(ids):
        if index % 7 == 3 and index > 0:
            rows[racer_id] = list(rows[ids[index - 1]])  # the same ride as the racer before: tied throughout
        elif index in zero:
            rows[racer_id] = [0.0] * seconds
        else:
            rows[racer_id] = cumulative(rng, seconds, rng.uniform(60, 140))
    dq = {ids[index] for index in disqualified}
    final = Board(Standing(racer_id, Decimal(str(rows[racer_id][-1])), seconds - 1, racer_id.upper(),
                           review="disqualified" if racer_id in dq else None) for racer_id in ids)
    places = final.places()
    ordered = [standing.racer_id for standing in final.ranked()]
    return {"raceId": "r1", "classId": "c1", "startsAt": "2026-11-25T18:00:00Z", "durationSeconds": seconds * step,
            "racers": [{"racerId": racer_id, "name": racer_id.upper(), "equipment": "bike", "rank": places[racer_id]}
                       for racer_id in ordered],
            "step": step, "scores": [rows[racer_id] for racer_id in ordered]}


def expected_board(replay, k):
    """[(racerId, rank, score)] at step k, as the server's board would order those scores."""
    board = Board(Standing(racer["racerId"], Decimal(str(scores[k])), k, racer["name"],
                           review="disqualified" if racer["rank"] is None else None)
                  for racer, scores in zip(replay["racers"], replay["scores"], strict=True))
    return [(standing.racer_id, rank, float(standing.score)) for rank, standing in board.page(len(board))]


def test_the_board_at_a_step_is_the_servers_order_of_the_scores_at_that_step(js):
    replay = a_replay(random.Random(43), 40, 120, disqualified=(5, 17), zero=(9,))
    steps = [0, 1, 2, 30, 59, 60, 61, 119]
    got = js(f"""
      const watched = replay.replayOf({json.dumps(replay)});
      return {json.dumps(steps)}.map((k) => watched.board(k).map((row) => [row.racerId, row.rank, row.score]));""")
    for k, board in zip(steps, got, strict=True):
        assert [tuple(row) for row in board] == expected_board(replay, k), k
    assert got[0][-1][1] is None and got[0][-2][1] is None  # the disqualified rides: last, without a rank, from the start
    assert len({row[2] for row in got[3]}) < len(got[3])  # ties at step 30, broken by racerId


def test_each_row_moves_by_the_places_it_gained_since_the_earlier_step(js):
    replay = a_replay(random.Random(7), 30, 90, disqualified=(4,))
    pairs = [(10, 0), (45, 35), (89, 79), (60, 60), (30, 50)]
    got = js(f"""
      const watched = replay.replayOf({json.dumps(replay)});
      return {json.dumps(pairs)}.map(([k, since]) => Array.from(watched.movedSince(k, since)));""")
    for (k, since), moved in zip(pairs, got, strict=True):
        now = {racer_id: rank for racer_id, rank, _ in expected_board(replay, k)}
        before = {racer_id: rank for racer_id, rank, _ in expected_board(replay, since)}
        expected = [before[racer["racerId"]] - now[racer["racerId"]] if now[racer["racerId"]] else 0
                    for racer in replay["racers"]]
        assert moved == expected, (k, since)
    assert any(moved > 0 for moved in got[0]) and any(moved < 0 for moved in got[0])


def test_the_leads_say_who_led_from_which_step_to_which(js):
    winner = a_replay(random.Random(11), 25, 200)["racers"][0]["racerId"]
    replay = a_replay(random.Random(11), 25, 200, disqualified=(int(winner[1:4]),))  # the fastest ride disqualified
    got = js(f"return replay.replayOf({json.dumps(replay)}).leads.map((lead) => [lead.racerId, lead.from, lead.to]);")
    leader = []
    for k in range(200):
        ranked = [(-scores[k], racer["racerId"]) for racer, scores in zip(replay["racers"], replay["scores"], strict=True)
                  if racer["rank"] is not None and scores[k] > 0]
        leader.append(min(ranked)[1] if ranked else None)
    spans = []
    for k, racer_id in enumerate(leader):
        if racer_id is None:
            continue
        if spans and spans[-1][0] == racer_id and spans[-1][2] == k - 1:
            spans[-1][2] = k
        else:
            spans.append([racer_id, k, k])
    assert got == spans
    assert len(spans) > 1, "the lead changes hands in this race"
    assert replay["racers"][-1]["racerId"] == winner and all(span[0] != winner for span in spans)  # never leads
    at = js(f"""
      const watched = replay.replayOf({json.dumps(replay)});
      return [0, {spans[1][1]}, 199].map((k) => watched.leadAt(k)?.racerId ?? null);""")
    assert at == [leader[0], spans[1][0], spans[-1][0]]


def test_the_fields_bands_at_a_step_count_the_ranked_riders_by_score(js):
    replay = a_replay(random.Random(5), 50, 60, disqualified=(2,), zero=(30, 31))
    got = js(f"""
      const watched = replay.replayOf({json.dumps(replay)});
      return [0, 20, 59].map((k) => watched.bins(k, {BINS}));""")
    for k, field in zip([0, 20, 59], got, strict=True):
        ranked = [scores[k] for racer, scores in zip(replay["racers"], replay["scores"], strict=True) if racer["rank"] is not None]
        low, high = min(ranked), max(ranked)
        counts = [0] * BINS
        for value in ranked:
            counts[min(BINS - 1, int((value - low) / (high - low) * BINS)) if high > low else BINS - 1] += 1
        assert field == {"counts": counts, "low": low, "high": high, "riders": 49}, k


def test_a_long_race_steps_over_several_seconds_and_ends_on_the_final_scores(js):
    # A 20-minute race: step 4 (ceil(1200 / 300)), 300 entries, the last the final score.
    replay = a_replay(random.Random(3), 12, 300, step=4)
    got = js(f"""
      const watched = replay.replayOf({json.dumps(replay)});
      return {{ steps: watched.steps, seconds: [0, 1, 150, 299].map(watched.secondOf),
               last: watched.board(299).map((row) => [row.racerId, row.rank]) }};""")
    assert got["steps"] == 300
    assert got["seconds"] == [0, 4, 600, 1196]
    assert got["last"] == [[racer["racerId"], racer["rank"]] for racer in replay["racers"]]  # the final board's order


def test_a_race_nobody_rode_has_an_empty_board_and_no_leader(js):
    empty = {"raceId": "r0", "classId": "c1", "startsAt": "2026-11-25T18:00:00Z", "durationSeconds": 60,
             "racers": [], "step": 1, "scores": []}
    got = js(f"""
      const watched = replay.replayOf({json.dumps(empty)});
      return {{ steps: watched.steps, board: watched.board(30), leads: watched.leads, lead: watched.leadAt(30),
               bins: watched.bins(30, 4) }};""")
    assert got == {"steps": 60, "board": [], "leads": [], "lead": None,
                   "bins": {"counts": [0, 0, 0, 0], "low": 0, "high": 0, "riders": 0}}
