"""A finished race watched again (issue 43), in Chromium on the stack whose clock the tests move
(``manual_clock/conftest.py``): a racer of a settled 300 s race of 12 opens its page, asks for the replay,
scrubs to second 150 and reads the board as it stood then; plays it and pauses it on the page's clock.

Everything expected is worked out here from each racer's history (GET /racers/{id}/history): their score
at a second is the sum of the outputs of their seconds up to it, rounded to 1 decimal; the board orders
those by score, highest first (every score here distinct). The race's seconds are posted through the API by
an admin, in batches, for seconds that have happened by the stack's clock.
"""

import math
import time
import uuid
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import pytest

from .browsing import DOCS, claims, new_page, session, signed_up_new
from .test_ride import until
from .test_ride_feel import fits

DURATION = 300
SCRUBBED = 150
MOVE_SECONDS = 10  # the page's ▲/▼: places gained over this many seconds before (docs/replay.md)
REACT_SECONDS = 30  # real time the stack may take: the stream, the finish's settlement
NAMES = ["Ana Reyes", "Bram Okafor", "Chen Wu", "Dara Silva", "Eli Moreau", "Femi Haddad", "Gus Banda",
         "Hana Ueda", "Ivo Lindqvist", "Jun Kowalski", "Kai Nakamura"]


def ride(index, second):
    """Racer ``index``'s cadence and resistance at ``second``: each rider strong at a different time of the
    race (the lead changes hands), ``index`` 10 the weakest throughout."""
    if index == 10:
        return 30, 20
    swing = math.sin(2 * math.pi * (second / DURATION) + index * 0.6)
    return 60 + index * 2 + round(20 * swing), 40 + index + round(10 * swing)


def viewer_ride(second):
    """The viewer's: steady, behind every rider but the weakest."""
    return 40, 30


def eventually(check, what, seconds=REACT_SECONDS):
    deadline = time.monotonic() + seconds
    while not (found := check()):
        assert time.monotonic() < deadline, f"not within {seconds} s of real time: {what}"
        time.sleep(0.05)
    return found


@pytest.fixture(scope="module")
def race(browser, stack, client):
    """A settled 300 s race of 12: 11 riders joined by an admin and the signed-up viewer (on a page of
    their own, 1280 px wide, its clock paused at the stack's)."""
    page = new_page(browser, stack, width=1280, height=1100)
    signed_up_new(page, stack, "#/", "replay")
    viewer = claims(session(page)["idToken"])["sub"]
    admin = client.token("ops", ["admin"])
    class_id = f"replay-{uuid.uuid4().hex[:8]}"
    assert client.call("PUT", f"/classes/{class_id}", {"name": "Replay hill"}, admin)[0] == 200
    status, created = client.call("POST", f"/classes/{class_id}/races",
                                  {"startsAt": client.starts_in(-(DURATION - 10)), "durationSeconds": DURATION}, admin)
    assert status == 201, created
    race_id = created["raceId"]
    riders = {f"replay-{uuid.uuid4().hex[:10]}": name for name in NAMES} | {viewer: "Vic Viewer"}
    for racer_id, name in riders.items():
        assert client.call("PUT", f"/racers/{racer_id}", {"name": name}, admin)[0] == 200
        assert client.call("PUT", f"/races/{race_id}/racers/{racer_id}", {"equipment": "bike"}, admin)[0] == 200
    rides = {racer_id: (lambda second, index=index: ride(index, second)) for index, racer_id in enumerate(list(riders)[:-1])}
    rides[viewer] = viewer_ride

    def post(seconds):
        samples = [{"racerId": racer_id, "second": second, "cadence": cadence, "resistance": resistance}
                   for second in seconds for racer_id, pedal in rides.items() for cadence, resistance in [pedal(second)]]
        for batch in range(0, len(samples), 1000):
            status, answer = client.call("POST", f"/races/{race_id}/telemetry", {"samples": samples[batch:batch + 1000]}, admin)
            assert status == 200 and answer["accepted"] == len(samples[batch:batch + 1000]), answer

    post(range(DURATION - 10))  # the seconds that have happened
    stack.clock.advance(11)
    post(range(DURATION - 10, DURATION))
    eventually(lambda: all(row["lastSecond"] == DURATION - 1
                           for row in client.call("GET", f"/races/{race_id}/leaderboard?limit=100")[1]["items"]),
               "every second on the board")
    assert client.call("POST", f"/races/{race_id}/finish", token=admin)[0] == 200
    eventually(lambda: client.call("GET", f"/races/{race_id}/replay")[0] == 200, "the replay, once the race is settled")
    eventually(lambda: any(item["raceId"] == race_id and item["status"] == "finished"
                           for item in client.call("GET", f"/racers/{viewer}/results")[1]["items"]),
               "the viewer's result of the race, finished")
    totals = {racer_id: cumulative(client.call("GET", f"/racers/{racer_id}/history?raceId={race_id}")[1]) for racer_id in riders}
    yield {"id": race_id, "page": page, "viewer": viewer, "names": riders, "totals": totals}
    page.context.close()


def cumulative(history):
    """[score after second 0, after second 1, …]: the sums of a history answer's outputs
    (samples [second, cadence, resistance, output, heartRate]), exact."""
    (race,) = history["races"]
    outputs = {sample[0]: Decimal(str(sample[3])) for sample in race["samples"]}
    assert sorted(outputs) == list(range(DURATION)), "every second in the history"
    totals, total = [], Decimal(0)
    for second in range(DURATION):
        total += outputs[second]
        totals.append(total)
    return totals


def board_at(race, second):
    """[(racerId, rank, exact score)] at ``second``: every racer's outputs of seconds ≤ it, summed, in the
    board's order (highest first; of a tie, the racerId first)."""
    ordered = sorted(race["totals"], key=lambda racer_id: (-race["totals"][racer_id][second], racer_id))
    return [(racer_id, rank, race["totals"][racer_id][second]) for rank, racer_id in enumerate(ordered, start=1)]


def rounded(score):
    """The score rounded to 1 decimal as the page writes it ("1,234.5", "1,234" for 1,234.0), either way
    of rounding a half."""
    return {f"{score.quantize(Decimal('0.1'), rounding=rounding):,}".removesuffix(".0")
            for rounding in (ROUND_HALF_UP, ROUND_HALF_EVEN)}


def shown_board(page):
    return page.evaluate("""() => [...document.querySelectorAll('.replay-board tbody tr:not([hidden])')].map((tr) => ({
      racer: tr.dataset.racer, rank: tr.querySelector('.rank').textContent, move: tr.querySelector('.move').textContent,
      name: tr.querySelector('.name').textContent, score: tr.querySelector('.score').textContent,
      apart: tr.classList.contains('apart'), mine: tr.classList.contains('mine') }))""")


def shown_second(page):
    return int(page.get_attribute(".replay", "data-second"))


def test_a_replay_scrubbed_to_second_150_shows_the_board_the_history_adds_up_to(race, stack):
    page = race["page"]
    # Given the finished race's page, the replay asked for while the race still settles (its first answer 409)
    answered = []

    def settling_once(route):
        if not answered:
            answered.append(409)
            route.fulfill(status=409, content_type="application/json", body='{"message": "not settled yet"}')
        else:
            route.fallback()

    page.route("**/races/*/replay", settling_once)
    page.goto(f"{stack.url}/#/races/{race['id']}")
    page.clock.pause_at(max(page.evaluate("() => Date.now()") / 1000, stack.clock.now()) + 0.5)
    page.click(".replay button.watch")
    until(page, "() => /being settled/.test(document.querySelector('.replay-status').textContent)")
    # Then it says so, and asks again a few seconds later
    page.clock.run_for(5000)
    until(page, "() => !document.querySelector('.replay-view').hidden")
    assert answered == [409]
    page.unroute("**/races/*/replay")
    # When the racer scrubs to second 149, then one second on with the keyboard
    page.fill(".replay .scrubber", str(SCRUBBED - 1))
    page.focus(".replay .scrubber")
    page.keyboard.press("ArrowRight")
    assert shown_second(page) == SCRUBBED
    assert page.inner_text(".replay-clock") == f"2:30 · second {SCRUBBED}"
    # Then the board is the one the history adds up to at second 150: its top 10, the viewer's own row below
    expected = board_at(race, SCRUBBED)
    before = {racer_id: rank for racer_id, rank, _ in board_at(race, SCRUBBED - MOVE_SECONDS)}
    mine = next(index for index, (racer_id, _, _) in enumerate(expected) if racer_id == race["viewer"])
    assert mine >= 10, "the viewer is below the top 10"
    assert len({score for _, _, score in expected}) == len(expected), "every score distinct"
    shown = shown_board(page)
    assert [row["racer"] for row in shown] == [racer_id for racer_id, _, _ in expected[:10] + [expected[mine]]]
    for row, (racer_id, rank, score) in zip(shown, expected[:10] + [expected[mine]], strict=True):
        assert row["rank"] == str(rank) and row["name"] == race["names"][racer_id], row
        assert row["score"] in rounded(score), (row, score)
        moved = before[racer_id] - rank
        assert row["move"] == (f"▲{moved}" if moved > 0 else f"▼{-moved}" if moved < 0 else ""), (row, moved)
    assert shown[-1]["apart"] and shown[-1]["mine"] and not any(row["apart"] for row in shown[:-1])
    assert any(row["move"] for row in shown), "places change in the 10 s before second 150"
    # and the field names the leader at its end, the viewer marked with their place
    assert race["names"][expected[0][0]] in page.inner_text(".replay-field .ends .leader")
    assert page.inner_text(".replay-field .you-label") == f"You · {mine + 1}th"
    # and each change of lead is listed with its time, as the history has the lead change hands
    leaders = []
    for second in range(DURATION):
        leader = board_at(race, second)[0]
        if leader[2] > 0 and (not leaders or leaders[-1][1] != leader[0]):
            leaders.append((second, leader[0]))
    assert len(leaders) > 1
    assert page.evaluate("() => [...document.querySelectorAll('.replay-leads li')].map((li) => li.textContent)") == [
        f"{second // 60}:{second % 60:02d} {race['names'][racer_id]} takes the lead" for second, racer_id in leaders]
    # and nothing is wider than a phone: what docs/replay.md shows
    page.evaluate("() => document.activeElement.blur()")
    for width, name in ((1280, "screenshot-replay-1280.png"), (390, "screenshot-replay-390.png")):
        fits(page, width)
        page.locator(".replay").screenshot(path=str(DOCS / name))
    page.set_viewport_size({"width": 1280, "height": 1100})


def test_the_racers_result_links_to_the_replay_which_plays_at_its_speed_and_pauses(race, stack):
    page = race["page"]
    # Given the viewer's result of the race, on their racer page
    page.goto(f"{stack.url}/#/racers/{race['viewer']}/{race['id']}")
    # When they follow its link to the replay
    page.click("p.totals a:text('Watch the replay →')")
    # Then the race's page opens with the replay read and shown
    until(page, "() => location.hash.endsWith('/replay') && document.querySelector('.replay-view')?.hidden === false"
                " && document.querySelector('.replay')?.dataset.second !== undefined")
    assert shown_second(page) == 0
    page.fill(".replay .scrubber", "100")
    assert shown_second(page) == 100
    # When the racer plays at 5× for 2 s of the page's clock
    page.click(".replay .speed[data-speed='5']")
    page.click(".replay button.play")
    page.clock.run_for(2000)
    # Then the replay has moved on 10 seconds of the race (a frame's less: the first frame starts the count)
    assert 109 <= shown_second(page) <= 110
    assert page.inner_text(".replay button.play") == "❚❚ Pause"
    # When they pause, the page's clock runs on and the replay stands still
    page.click(".replay button.play")
    paused = shown_second(page)
    page.clock.run_for(3000)
    assert shown_second(page) == paused
    assert page.inner_text(".replay-clock").endswith(f"second {paused}")
    # and playing from the end starts again from the start
    page.press(".replay .scrubber", "End")
    assert shown_second(page) == DURATION - 1
    page.click(".replay .speed[data-speed='20']")
    page.click(".replay button.play")
    page.clock.run_for(1000)
    assert 19 <= shown_second(page) <= 20
    page.click(".replay button.play")
