"""The ride sets a smart trainer's resistance (issue 42), in Chromium on the stack whose clock the tests
move, with the stand-in ``navigator.bluetooth`` (tests/e2e/bluetooth_standin.js) whose Fitness Machine
Control Point (0x2AD9) indicates an answer to each write, here held until the test lets it go: the site
asks for control first, then writes the resistance the rider chose with ← →, one write at a time (never
a second before the first's indication), only the latest once the write under way is answered; a
trainer reporting no resistance level has the level it confirmed in the samples. A trainer that
refuses control says so to the rider and the ride goes on reading it.

The bytes expected are laid out here from FTMS 1.0 §4.16 (op code; Set Target Resistance Level's
sint16 in tenths of a level, the unit of the Supported Resistance Level Range; the indication 0x80, op
code, result code); the level is the rider's percent placed in the trainer's range in whole increments.
"""

import json
import math
import struct

import pytest

from .browsing import DOCS, ROOT, claims, new_page, session, signed_up_new
from .test_fair_results import eventually
from .test_ride import at_the_start, history_of, joined, new_race, one_second, until

STANDIN = ROOT / "tests" / "e2e" / "bluetooth_standin.js"
RANGE = (10, 240, 10)  # Supported Resistance Level Range in tenths: levels 1.0 to 24.0, in steps of 1.0
NO_LEVEL = "44 00 c4 09 b4 00 c8 00"  # Indoor Bike Data 0x0044: 25 km/h, 90 rpm (180 half-rpm), 200 W; no level
CONTROL_NOT_PERMITTED = 5


@pytest.fixture(scope="module")
def racer(browser, stack, client):
    """A new racer with a name, signed up in a browser: the browser's storage, to open pages as them."""
    page = new_page(browser, stack)
    signed_up_new(page, stack, "#/", "control")
    sub = claims(session(page)["idToken"])["sub"]
    assert client.call("PUT", f"/racers/{sub}", {"name": "Tess Torque"}, client.token(sub))[0] == 200
    state = page.context.storage_state()
    page.context.close()
    return {"state": state, "sub": sub}


def trainer_page(browser, stack, racer, holding=True, results=None):
    """A page of the racer's with the stand-in trainer (levels RANGE); with ``holding``, each control point
    write waits for the test's ``answer()``."""
    context = browser.new_context(viewport={"width": 1000, "height": 900}, locale="en-GB", storage_state=racer["state"])
    context.clock.install(time=stack.clock.now())
    context.add_init_script(path=str(STANDIN))
    settings = {"range": struct.pack("<hhH", *RANGE).hex(), "holding": holding, "results": results or {}}
    context.add_init_script(f"Object.assign(window.__trainer, {json.dumps(settings)});")
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def level_tenths(percent: int) -> int:
    """The level for a percent: its place between the range's ends, rounded (halves up) to whole increments."""
    low, high, step = RANGE
    return low + math.floor(percent / 100 * (high - low) / step + 0.5) * step


def percent_of(tenths: int) -> float:
    low, high, _ = RANGE
    return round((tenths - low) / (high - low) * 100, 1)


def request_control() -> str:
    return "write " + struct.pack("<B", 0x00).hex(" ")


def set_resistance(percent: int) -> str:
    return "write " + struct.pack("<Bh", 0x04, level_tenths(percent)).hex(" ")


def answered(op: int, result: int = 1) -> str:
    return "indicate " + struct.pack("<BBB", 0x80, op, result).hex(" ")


def control_log(page):
    return page.evaluate("() => window.__trainer.controlLog")


def connected_on_the_ride_page(page, stack, race, first=True):
    """The racer connects their trainer on the ride page and starts riding; ``first``: connected before the
    start, as the page offers, else once riding (on the on-screen bike until then)."""
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    if first:
        page.click(".ride .ride-setup .trainer button.connect")
        until(page, "() => window.__trainer.notifying")
    page.click(".ride button.ride-start")
    joined(page)
    if not first:
        page.click(".ride .trainer button.connect")
        until(page, "() => window.__trainer.notifying")


def control_says(page, text):
    until(page, "text => document.querySelector('.ride .trainer-control')?.textContent.includes(text)", text)


def answer(page, result=None):
    assert page.evaluate("result => window.__trainer.answer(result ?? undefined)", result)


def test_the_trainer_is_set_to_each_resistance_the_rider_chooses_one_write_at_a_time(browser, stack, client, racer):
    page = trainer_page(browser, stack, racer)
    race = new_race(stack, client, page)
    joins = []
    page.on("request", lambda request: request.method == "PUT" and "/racers/" in request.url and joins.append(request.post_data_json))
    # Given a racer riding a trainer whose levels run 1-24, connected once they had started (on the on-screen bike)
    connected_on_the_ride_page(page, stack, race, first=False)
    # Then the page joins again as a trainer; before the race's first second can count nothing was ridden, so the
    # server takes the trainer (contract v1.3, Fair play) and the page, answered, says nothing of a virtual ride
    eventually(lambda: [item["equipment"] for item in client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"]]
               == ["trainer"])
    assert [join["equipment"] for join in joins] == ["virtual", "trainer"] and "device" not in joins[1]
    until(page, "() => document.querySelector('.ride .ride-counted').hidden")
    # Then the site asks for control first, and writes nothing more until the trainer answers
    until(page, "() => window.__trainer.controlLog.length === 1")
    control_says(page, "Asking the trainer for control")
    # When the rider presses → before the answer (50 % → 55 %)
    page.keyboard.press("ArrowRight")
    assert control_log(page) == [request_control()]
    answer(page)
    # Then the resistance written is the rider's latest, 55 % (level 1 + 0.55 × 23 = 13.65 → 14)
    until(page, "() => window.__trainer.controlLog.length === 3")
    assert control_log(page) == [request_control(), answered(0), set_resistance(55)]
    assert set_resistance(55) == "write 04 8c 00"  # 140 tenths
    control_says(page, "Setting the trainer to 55 %")
    # When the rider presses → twice more while 55 % waits for its answer
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert control_log(page)[-1] == set_resistance(55)  # no second write before the first's indication
    answer(page)
    # Then only the latest, 65 %, is written once 55 % is answered (60 % never is)
    until(page, "() => window.__trainer.controlLog.length === 5")
    assert control_log(page)[3:] == [answered(4), set_resistance(65)]
    answer(page)
    control_says(page, f"Your trainer is set to 65 % (level {level_tenths(65) / 10:g})")
    # And each ← is written in its turn
    page.keyboard.press("ArrowLeft")
    until(page, "() => window.__trainer.controlLog.length === 7")
    answer(page)
    control_says(page, "Your trainer is set to 60 %")
    page.keyboard.press("ArrowLeft")
    until(page, "() => window.__trainer.controlLog.length === 9")
    answer(page)
    control_says(page, "Your trainer is set to 55 %")
    assert control_log(page) == [
        request_control(), answered(0), set_resistance(55), answered(4), set_resistance(65), answered(4),
        set_resistance(60), answered(4), set_resistance(55), answered(4)]
    assert page.evaluate("() => window.__trainer.overlaps") == 0
    # When it rides, notifying packets with no resistance level of their own
    at_the_start(page, stack, race)
    for second in range(3):
        assert page.evaluate("hex => window.__trainer.notify(hex)", NO_LEVEL)
        one_second(page, stack, counted_at_least=second + 1)
    # Then each second carries the level the trainer confirmed, as a percent of its range (14 of 1-24: 56.5 %)
    assert [(s, c, r) for s, c, r, *_ in history_of(stack, client, racer["sub"], race["raceId"], 3)] == [
        (s, 90, percent_of(level_tenths(55))) for s in range(3)]
    assert percent_of(level_tenths(55)) == 56.5
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    page.context.close()


def test_a_trainer_that_refuses_control_is_told_to_the_rider_and_the_ride_goes_on_reading_it(browser, stack, client, racer):
    # Given a trainer held by another app: it answers a request for control "control not permitted"
    page = trainer_page(browser, stack, racer, holding=False, results={0: CONTROL_NOT_PERMITTED})
    race = new_race(stack, client, page)
    connected_on_the_ride_page(page, stack, race)
    # Then the rider is told, and nothing but the request was written
    control_says(page, "would not take orders from this site")
    assert "another app" in page.inner_text(".ride .trainer-control")
    assert page.is_visible(".ride .trainer-control.error")
    assert control_log(page) == [request_control(), answered(0, CONTROL_NOT_PERMITTED)]
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # the message fits a phone
    page.locator(".ride").screenshot(path=str(DOCS / "screenshot-ride-trainer-refused-phone.png"))
    page.set_viewport_size({"width": 1000, "height": 900})
    # And the ride goes on reading it: its seconds are counted with the cadence it sends
    at_the_start(page, stack, race)
    assert page.evaluate("hex => window.__trainer.notify(hex)", NO_LEVEL)
    one_second(page, stack, counted_at_least=1)
    assert [(s, c) for s, c, *_ in history_of(stack, client, racer["sub"], race["raceId"], 1)] == [(0, 90)]
    # When the other app lets go and the rider changes their resistance, control is asked for again and granted
    page.evaluate("() => { window.__trainer.results = {}; }")
    page.keyboard.press("ArrowRight")
    control_says(page, "Your trainer is set to 55 %")
    assert control_log(page)[2:] == [request_control(), answered(0), set_resistance(55), answered(4)]
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    page.context.close()
