"""Fair play on the ride page (contract v1.2), on the stack whose clock the tests move: a page whose
computer clock is a minute fast or slow rides by the server's clock (its seconds sent as they happen
there, its countdown the server's); two tabs of one ride: one sends, the other says so and can take
the ride over; a second device likewise (the API rejects its samples `another device`)."""

import itertools
import json
import math
import re
import uuid
from email.utils import parsedate_to_datetime

import pytest
from playwright.sync_api import Error as PlaywrightError

from alleycat.clock import iso

from .browsing import DOCS, after_the_history_writer, claims, new_page, session, signed_up_new
from .test_ride import at_the_start, board_rows, history, history_of, joined, one_second, pushed, ride, until


@pytest.fixture(scope="module")
def racer(browser, stack, client):
    """A new racer with a name, signed up in a browser: {state (the browser's storage), sub}."""
    page = new_page(browser, stack)
    signed_up_new(page, stack, "#/", "fair")
    sub = claims(session(page)["idToken"])["sub"]
    assert client.call("PUT", f"/racers/{sub}", {"name": "Fay Play"}, client.token(sub))[0] == 200
    state = page.context.storage_state()
    page.context.close()
    yield {"state": state, "sub": sub}


def rider_page(browser, stack, racer, shift=0.0, device=True, context=None):
    """A page signed in as ``racer`` whose clock is ``shift`` s off the stack's and stands still; with
    ``device=False``, a browser of its own (no device id yet). ``context``: a tab of that browser."""
    if context is None:
        state = json.loads(json.dumps(racer["state"]))
        if not device:
            for origin in state["origins"]:
                origin["localStorage"] = [item for item in origin["localStorage"] if item["name"] != "alleycat.device"]
        context = browser.new_context(viewport={"width": 1000, "height": 900}, locale="en-GB", storage_state=state)
        context.clock.install(time=stack.clock.now() + shift)
        stack.clock.advance(0.01)
        context.clock.pause_at(stack.clock.now() + shift)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return page


def a_race(stack, client, name, lead=30, duration=60):
    admin = client.token("ops", ["admin"])
    class_id = f"fair-{uuid.uuid4().hex[:8]}"
    assert client.call("PUT", f"/classes/{class_id}", {"name": "Fair day"}, admin)[0] == 200
    start = math.ceil(stack.clock.now()) + lead
    status, race = client.call("POST", f"/classes/{class_id}/races", {"startsAt": iso(start), "durationSeconds": duration},
                               admin)
    assert status == 201, race
    return {**race, "start": start, "admin": admin}


def ride_page(page, stack, race):
    """The ride page, and the racer's click that starts the ride there."""
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    page.click(".ride button.ride-start")


def watch_telemetry(page, stack, log):
    """Each telemetry request of ``page`` goes on to the stack; ``log`` gets (the stack's time as it
    left, its body, the API's answer)."""
    def through(route):
        at = stack.clock.now()
        try:
            response = route.fetch()
            log.append((at, json.loads(route.request.post_data), response.json()))
            route.fulfill(response=response)
        except PlaywrightError:  # the page closed meanwhile (its test is over)
            pass
    page.route("**/telemetry", through)


def set_the_bike(page, rpm):
    """The cadence to ``rpm`` with the keys, from where it is (a tab that takes a ride over has its bike as set)."""
    now = int(page.inner_text("#ride-cadence").split()[0])
    for _ in range(abs(rpm - now) // 5):
        page.keyboard.press("ArrowUp" if rpm > now else "ArrowDown")


@pytest.mark.parametrize("shift", [60, -60], ids=["a minute fast", "a minute slow"])
def test_a_page_whose_clock_is_a_minute_off_rides_by_the_servers_clock(browser, stack, client, racer, shift):
    race = a_race(stack, client, "clock")
    page = rider_page(browser, stack, racer, shift=shift)
    sent = []
    watch_telemetry(page, stack, sent)
    ride_page(page, stack, race)
    joined(page)
    set_the_bike(page, 90)
    # Given the stack 20.25 s before the start, the page's own clock a minute off
    until(page, "() => document.querySelector('.ride-clock').textContent.startsWith('Starts in')")
    for _ in range(3):
        one_second(page, stack)
    left = race["start"] - stack.clock.now()
    # Then the countdown is the server's (to within the second its Date can tell), not the page's
    shown = re.match(r"Starts in 0:(\d\d)", page.inner_text(".ride-clock"))
    assert shown, page.inner_text(".ride-clock")
    assert abs(int(shown.group(1)) - math.ceil(left)) <= 1, (shown.group(0), left)
    # When the race is ridden 12 seconds
    at_the_start(page, stack, race, shift=shift)
    for second in range(12):
        one_second(page, stack, counted_at_least=second + 1)
    # Then every second was sent once it had happened by the server's clock (give or take the
    # second the contract allows for clocks), none was rejected, each counted once
    assert sent
    for at, body, answer in sent:
        assert answer["rejected"] == [], answer
        for sample in body["samples"]:
            assert at >= race["start"] + sample["second"] - 1, (at - race["start"], sample["second"])
        assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", body["device"])
    assert [s for s, *_ in history_of(stack, client, racer["sub"], race["raceId"], 12)] == list(range(12))
    page.context.close()


def riding_at_90(browser, stack, client, racer, name):
    """A new race and a page of the racer's that joined it, its bike at 90 rpm."""
    race = a_race(stack, client, name)
    page = rider_page(browser, stack, racer)
    ride_page(page, stack, race)
    joined(page)
    set_the_bike(page, 90)
    return race, page


def test_two_tabs_of_one_ride_one_sends_and_the_other_can_take_it_over(browser, stack, client, racer):
    race, first = riding_at_90(browser, stack, client, racer, "tabs")
    # Given a second tab of the same ride in the same browser
    second = rider_page(browser, stack, racer, context=first.context)
    sends = {"first": [], "second": []}
    watch_telemetry(first, stack, sends["first"])
    watch_telemetry(second, stack, sends["second"])
    ride_page(second, stack, race)
    # Then it says the ride is on another tab, and offers to ride there instead
    second.wait_for_selector(".ride .ride-elsewhere:not([hidden]) button.take-over")
    assert "another tab" in second.inner_text(".ride .ride-elsewhere")
    assert second.is_hidden(".ride .riding")
    for width, name in ((390, "screenshot-ride-elsewhere-phone.png"), (1280, "screenshot-ride-elsewhere.png")):
        second.set_viewport_size({"width": width, "height": 900})
        assert second.evaluate("() => document.documentElement.scrollWidth") <= width
        second.screenshot(path=str(DOCS / name))
    # When the race is ridden, only the first tab sends
    at_the_start(first, stack, race)
    for s in range(4):
        one_second(first, stack, counted_at_least=s + 1)
    assert sends["first"] and not sends["second"]
    # (the first tab's every queued second answered: a send of a second it queued early is not in flight below)
    until(first, "() => { const sent = document.querySelector('.ride-sent').dataset; return sent.counted === sent.queued; }")
    # When the second tab takes the ride over (its bike at 30 rpm)
    second.click(".ride .ride-elsewhere button.take-over")
    second.wait_for_selector(".ride .riding:not([hidden])")
    assert second.inner_text("#ride-cadence") == "90 rpm"  # the ride's bike, as the first tab had it
    set_the_bike(second, 30)
    until(first, "() => document.querySelector('.ride').dataset.rider === 'tab'")
    assert "another tab" in first.inner_text(".ride .ride-elsewhere")
    before = len(sends["first"])
    ridden = 4
    for _ in range(4):
        one_second(first, stack)
        ridden += 1
    until(second, "() => Number(document.querySelector('.ride-sent').dataset.counted) >= 1")
    # Then the second tab sends and the first no more; every second once, from one tab at a time
    assert sends["second"] and len(sends["first"]) == before
    stored = after_the_history_writer(stack, lambda: history(client, racer["sub"], race["raceId"]),
                                      lambda rows: 30 in [c for _, c, *_ in rows], "the second tab's seconds")
    cadences, seconds = [c for _, c, *_ in stored], [s for s, *_ in stored]
    assert seconds == sorted(set(seconds))
    switch = cadences.index(30)
    assert set(cadences[:switch]) == {90} and set(cadences[switch:]) == {30}, cadences
    first.context.close()


SWING = "cadence rising 200 rpm or more in all within any 10 seconds"  # frontend/src/fairPlay.js, the rule's sentence


def test_a_ride_started_in_a_browser_closed_before_the_start_rides_on_from_another_and_moves_back_and_forth(
        browser, stack, client, racer):
    race = a_race(stack, client, "devices")
    # Given the racer pressed Start riding on their laptop before the start (the ride joined with its device),
    # then closed it
    laptop = rider_page(browser, stack, racer)
    ride_page(laptop, stack, race)
    joined(laptop)
    board_rows(client, race["raceId"])  # the stream has put the join on the board, as a racer walking to their phone finds it
    laptop.context.close()
    # When they open the ride on their phone (another browser: a device id of its own) and ride on from there
    phone = rider_page(browser, stack, racer, device=False)
    sends = []
    watch_telemetry(phone, stack, sends)
    phone.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    assert phone.inner_text(".ride button.ride-start") == "Ride on from here"
    phone.click(".ride button.ride-start")
    joined(phone)
    set_the_bike(phone, 90)
    # Then every second of the race it rides counts: none refused, each in the history and on the board
    at_the_start(phone, stack, race)
    for s in range(4):
        one_second(phone, stack, counted_at_least=s + 1)
    assert sends and all(answer["rejected"] == [] for _, _, answer in sends)
    assert phone.get_attribute(".ride-sent", "data-counted") == "4"  # their values: the history, below
    until(phone, "() => document.querySelector('.ride').dataset.rider === 'here'")

    # When the laptop is opened again mid-ride and the racer rides on from there (its bike at 30 rpm)
    laptop = rider_page(browser, stack, racer)
    both = [laptop, phone]

    def tick(counted_on=None, n=None):
        """A second for the stack and both devices, in tenths (with ``counted_on``: until it queued ``n``)."""
        queued = "n => Number(document.querySelector('.ride-sent')?.dataset.queued) >= n"
        for step in range(30):
            if step >= 10 and (counted_on is None or counted_on.evaluate(queued, n)):
                break
            stack.clock.advance(0.1)
            for page in both:
                page.clock.run_for(100)
        if counted_on is not None:
            until(counted_on, "n => Number(document.querySelector('.ride-sent').dataset.counted) >= n", n)

    ride_page(laptop, stack, race)
    joined(laptop)
    set_the_bike(laptop, 30)
    tick(laptop, 1)
    # Then the ride moved to it at once: the phone's next seconds are refused, and the phone says what it knows
    tick()
    until(phone, "() => document.querySelector('.ride').dataset.rider === 'device'")
    told = phone.inner_text(".ride .ride-elsewhere")
    assert "Another device holds this ride" in told and "count" not in told, told
    assert any(r["reason"] == "another device" for _, _, answer in sends for r in answer["rejected"])
    refused = len(sends)
    tick(laptop, 3)
    assert len(sends) == refused  # it sends nothing more
    # When the phone takes it back, the laptop's seconds are the ones refused, and it says so
    counted = int(phone.get_attribute(".ride-sent", "data-counted"))
    phone.click(".ride .ride-elsewhere button.take-over")
    phone.wait_for_selector(".ride .riding:not([hidden])")
    for _ in range(3):
        tick()
    until(laptop, "() => document.querySelector('.ride').dataset.rider === 'device'")
    until(phone, "n => Number(document.querySelector('.ride-sent').dataset.counted) >= n", counted + 2)
    # (and the history has one source a second: below, once the race is finished)
    laptop.context.close()

    # When the phone's cadence swings 0 and 100 rpm from second to second (rises of 100 add up to 200 in 3 s)
    for rpm in (0, 100, 0, 100):
        set_the_bike(phone, rpm)
        ride(phone, stack, 1)
    # Then the ride page says, as the ride goes pending (once the history writer and the processor saw the swings),
    # which rule and why
    last = int(phone.get_attribute(".ride-sent", "data-queued")) - 1
    after_the_history_writer(stack, lambda: history(client, racer["sub"], race["raceId"]),
                             lambda rows: bool(rows) and rows[-1][0] == last, "the swinging seconds")
    pushed(phone, stack, "() => !document.querySelector('.ride .ride-why').hidden")
    assert phone.inner_text(".ride .ride-why").splitlines() == [
        f"Under review: {SWING}.", "An admin will look at it: until it is cleared it does not count on the class leaderboard."]
    assert "under review" in phone.inner_text(".ride .ride-place")
    phone.set_viewport_size({"width": 390, "height": 900})
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    phone.locator(".ride").screenshot(path=str(DOCS / "screenshot-ride-review-phone.png"))
    # And once the race is finished, so does the ride's result, and the racer's own page
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    until(phone, "() => document.querySelector('.ride').dataset.state === 'finished'")
    assert phone.inner_text(".ride .ride-why").splitlines()[0] == f"Under review: {SWING}."
    # and the history has one source a second: the phone's 90 rpm, the laptop's 30, the phone's 90 again (then the swings)
    stored = history(client, racer["sub"], race["raceId"])
    assert [(s, c) for s, c, *_ in stored[:4]] == [(s, 90) for s in range(4)]
    assert [c for c, _ in itertools.groupby(r[1] for r in stored)][:3] == [90, 30, 90], stored
    phone.goto(f"{stack.url}/#/racers/{racer['sub']}/{race['raceId']}")
    phone.wait_for_selector(f"table.results tr.why[data-race='{race['raceId']}']")
    assert phone.inner_text(f"table.results tr.why[data-race='{race['raceId']}']") == f"Under review: {SWING}."
    phone.context.close()


def test_the_local_servers_date_is_the_stacks_clock(stack, client):
    # BaseHTTPRequestHandler's Date is Python's wall clock; the page's race clock must be the stack's
    stack.clock.advance(3600.0)
    for path in ("/races?state=live", "/config.json", "/races/no-such-race/nothing"):
        _, headers, _ = client.exchange("GET", path)
        assert parsedate_to_datetime(headers["Date"]).timestamp() == int(stack.clock.now()), path
