"""Riding from the browser, on the stack whose clock the tests move (``manual_clock/conftest.py``): a new racer
signs up, names themselves, joins a live race and rides it with the keyboard; a ride through a
network outage and a lost answer; a smart trainer (a stand-in ``navigator.bluetooth`` notifying
Indoor Bike Data packets).

The page's clock is paused at the race's start and moved a second at a time (Playwright's
``page.clock.run_for``), the stack's with it: twenty seconds of riding take no twenty seconds. What
the test expects it computes itself, from the keys it pressed or the packets it sent, with the
contract's formula.
"""

import itertools
import math
import re
import time
import uuid
from decimal import ROUND_HALF_UP, Decimal

import pytest

from alleycat.clock import iso

from .browsing import DOCS, ROOT, after_the_history_writer, claims, new_page, session, signed_in_as, signed_up_new

STANDIN = ROOT / "tests" / "e2e" / "bluetooth_standin.js"
START = (0, 50)  # the virtual bike's cadence and resistance before any key
WAIT_SECONDS = 20
STEPS = 10  # a second passes in tenths (one_second)
LEAD = 1.5  # at_the_start: the page may think the server half a second ahead (its Date has whole seconds)


@pytest.fixture(scope="module")
def rider(browser, stack):
    """A new racer, signed up from the home page (no name yet): {page, sub, leave, asked}. Leaving a live ride
    asks (the page's confirm, the browser's beforeunload): the racer says yes while ``leave`` is true (a test
    that goes to a new race leaves the last one), no when it is false; ``asked`` holds each (type, message)."""
    page = new_page(browser, stack, width=1000, height=1000)
    signed_up_new(page, stack, "#/", "rider")
    racer = {"page": page, "sub": claims(session(page)["idToken"])["sub"], "leave": True, "asked": []}

    def answer(dialog):
        racer["asked"].append((dialog.type, dialog.message))
        dialog.accept() if racer["leave"] else dialog.dismiss()

    page.on("dialog", answer)
    yield racer
    page.context.close()


def output(cadence, resistance) -> Decimal:
    """The contract's output of one second, to four places."""
    exact = (Decimal(str(cadence)) + 35) * (Decimal(str(resistance)) + 65) / 100
    return exact.quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)


def new_race(stack, client, page, lead=60, duration=60):
    """A race of a class of its own that starts ``lead`` s after the page's now; the stack's clock
    is brought to the page's (which flowed while the stack's stood still), and from here both stand
    still until a test moves them (the page's race clock is the stack's: they must not drift apart)."""
    target = max(page.evaluate("() => Date.now()") / 1000, stack.clock.now()) + 0.5  # a moment ahead of both
    stack.clock.advance(target - stack.clock.now())
    page.clock.pause_at(target)
    admin = client.token("ops", ["admin"])
    class_id = f"ride-{uuid.uuid4().hex[:8]}"
    assert client.call("PUT", f"/classes/{class_id}", {"name": "Ride day"}, admin)[0] == 200
    starts = math.ceil(stack.clock.now()) + lead
    status, race = client.call("POST", f"/classes/{class_id}/races",
                               {"startsAt": iso(starts), "durationSeconds": duration}, admin)
    assert status == 201, race
    return {**race, "start": starts, "admin": admin}


def open_ride(page, stack, race):
    page.goto(f"{stack.url}/#/races/{race['raceId']}")
    page.click("a.ride-link")
    until(page, "() => location.hash.endsWith('/ride')")
    start_ride(page)


def start_ride(page):
    """The racer's click that starts the ride (opening the ride page alone starts nothing)."""
    page.click(".ride button.ride-start")


def joined(page):
    page.wait_for_selector(".ride .riding:not([hidden])")


def joined_with_a_name(page):
    """In the race, naming the racer first where they have no name yet (a test run alone)."""
    page.wait_for_selector(".ride .riding:not([hidden]), .ride-name")
    if page.is_visible(".ride-name"):
        page.fill("#ride-name", "Kit Cadence")
        page.click(".ride-name button[type=submit]")
    joined(page)


def at_the_start(page, stack, race, shift=0.0):
    """Both clocks LEAD s before the race's first second (the page's ``shift`` seconds off); the page's
    stands still from here. The stack's clock moves first, here and in ``one_second``: the page takes
    its race clock from the stack's answers (frontend/src/serverTime.js), and an answer made while the
    page's clock had moved on and the stack's not yet would read as a page whose clock is fast."""
    stack.clock.advance(max(0.0, race["start"] - LEAD - stack.clock.now()))
    page.clock.pause_at(race["start"] - LEAD + shift)


def until(page, predicate, arg=None):
    """Waits (real time, bounded) until the page's ``predicate`` is true. Not ``page.wait_for_function``:
    its polling runs on the page's timers, which stand still with the page's clock."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not page.evaluate(predicate, arg):
        assert time.monotonic() < deadline, f"not within {WAIT_SECONDS} s: {predicate} ({arg}) {page.inner_text('.ride')!r}"
        time.sleep(0.02)


def board_rows(client, race_id, count=1):
    """The race's board once it shows ``count`` racers (real time, bounded): a join is on it once the stack's
    stream has seen it, within a second or two."""
    deadline = time.monotonic() + WAIT_SECONDS
    while len(rows := client.call("GET", f"/races/{race_id}/leaderboard")[1]["items"]) < count:
        assert time.monotonic() < deadline, f"not within {WAIT_SECONDS} s: {count} racers on the board ({rows})"
        time.sleep(0.1)
    return rows
def pushed(page, stack, predicate, arg=None):
    """Until the page's ``predicate`` holds on what the race's ticker pushed (``alleycat.rules.ticking``: a message
    a race second, at its phase): the stack's clock alone moves on a tenth at a time, up to 3 s after the stack's
    pipelines (the telemetry log's mapping, the table's stream) last delivered anything, so that the tick after their
    last write comes however slow the machine (the page's timers stand still with its clock: it rides nothing more)."""
    deadline, moved, delivered = time.monotonic() + WAIT_SECONDS, 0, None
    while not page.evaluate(predicate, arg):
        assert time.monotonic() < deadline, f"not within {WAIT_SECONDS} s: {predicate} ({arg}) {page.inner_text('.ride')!r}"
        if (now_delivered := pipelines_delivered(stack)) != delivered:
            delivered, moved = now_delivered, 0
        if moved < 3 * STEPS:
            stack.clock.advance(1 / STEPS)
            moved += 1
        time.sleep(0.05)


def pipelines_delivered(stack) -> tuple[int, ...]:
    """The records the stack's pipelines have delivered so far: the table stream's processor and history writer, the
    telemetry log's mapping."""
    return tuple(pipeline.delivered for pipeline in (stack.stream, stack.history, stack.log) if pipeline is not None)


def one_second(page, stack, counted_at_least=None, parts=STEPS):
    """A second of the race passes for the stack and the page, in ``parts`` (tenths: the stack's clock
    never more than a tenth ahead of the page's; a test of what the page shows, not of when it sends,
    may take fewer). With ``counted_at_least``: until the page has queued that many seconds (the page
    knows the server's clock to within its answers' Date, whole seconds: it sends a second up to a
    second early or late; what a rider pressed before this call is in that second), then until the API
    has counted them."""
    steps = 0
    queued = "n => Number(document.querySelector('.ride-sent')?.dataset.queued) >= n"
    while steps < parts or (counted_at_least is not None and not page.evaluate(queued, counted_at_least)):
        assert steps < 3 * parts, f"second {counted_at_least} not queued within 3 s"
        stack.clock.advance(1 / parts)
        page.clock.run_for(1000 // parts)
        steps += 1
        if counted_at_least is not None and page.evaluate(queued, counted_at_least):
            break
    if counted_at_least is not None:
        until(page, "n => Number(document.querySelector('.ride-sent').dataset.counted) >= n", counted_at_least)


def queued(page, stack, seconds):
    """Until the page has queued ``seconds`` seconds: it may be up to a second behind the stack's clock (it
    knows it from its answers' whole-second Date), so both clocks move on a tenth at a time while it has not."""
    steps = 0
    while not page.evaluate("n => Number(document.querySelector('.ride-sent')?.dataset.queued) >= n", seconds):
        assert steps < 2 * STEPS, f"second {seconds} not queued within 2 s"
        stack.clock.advance(1 / STEPS)
        page.clock.run_for(1000 // STEPS)
        steps += 1


def board_score(page, racer_id) -> float:
    text = page.inner_text(f".board tr[data-racer='{racer_id}'] td:nth-child(4)")
    return float(text.replace(",", ""))


def history(client, racer_id, race_id):
    return client.call("GET", f"/racers/{racer_id}/history?raceId={race_id}")[1]["races"][0]["samples"]


def history_of(stack, client, racer_id, race_id, seconds):
    """The racer's stored seconds of the race once ``seconds`` of them are stored (``after_the_history_writer``): for a
    read after the page has ridden (the stack's clock may move on by the writer's window)."""
    return after_the_history_writer(stack, lambda: history(client, racer_id, race_id), lambda rows: len(rows) >= seconds,
                                    f"{seconds} seconds of {racer_id}'s history")


def test_a_new_racer_joins_a_live_race_and_rides_it_with_the_keyboard(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    race = new_race(stack, client, page)
    # Given the new racer on the race's page, with no name yet
    open_ride(page, stack, race)
    # When they choose a name to join (an empty one is refused in the page)
    page.click(".ride-name button[type=submit]")
    page.wait_for_selector("#ride-name-message.error")
    page.fill("#ride-name", "Kit Cadence")
    page.click(".ride-name button[type=submit]")
    # Then they are in the race, warming up until it starts
    joined(page)
    signed_in_as(page, "Kit Cadence")
    assert "Starts in" in page.inner_text(".ride-clock")
    assert "cannot reach a smart trainer" in page.inner_text(".ride .trainer")  # Chromium headless: no Web Bluetooth
    # and an arrow key on a focused slider moves that slider once (the page's own keys leave it alone)
    page.focus(".ride .cadence input[type=range]")
    page.keyboard.press("ArrowUp")
    assert page.inner_text("#ride-cadence") == "5 rpm"
    page.keyboard.press("ArrowDown")
    assert page.inner_text("#ride-cadence") == "0 rpm"
    page.evaluate("() => document.activeElement.blur()")
    assert board_rows(client, race["raceId"])[0]["racerId"] == racer_id
    # When they ride 20 s, steering with the keys
    keys = {0: ["ArrowUp"] * 16, 3: ["ArrowRight"] * 2, 7: ["ArrowUp"] * 3, 10: ["ArrowLeft"] * 4,
            14: ["ArrowDown"] * 6, 17: ["ArrowRight"] * 12}
    cadence, resistance = START
    expected = []
    at_the_start(page, stack, race)
    for second in range(20):
        for key in keys.get(second, []):
            page.keyboard.press(key)
        cadence += 5 * (key_count(keys, second, "ArrowUp") - key_count(keys, second, "ArrowDown"))
        resistance = min(100, resistance + 5 * (key_count(keys, second, "ArrowRight") - key_count(keys, second, "ArrowLeft")))
        expected.append((cadence, resistance))
        one_second(page, stack, counted_at_least=second + 1)
    # Then each second was sent once, as the keys set it
    assert [(s, c, r) for s, c, r, *_ in history_of(stack, client, racer_id, race["raceId"], len(expected))] == [
        (s, c, r) for s, (c, r) in enumerate(expected)]
    total = sum(output(c, r) for c, r in expected)
    # and their row on the board (pushed) is the sum of those seconds' outputs, ranked, on their second
    pushed(page, stack, "id => document.querySelector(`.board tr[data-racer='${id}'] td:nth-child(5)`)?.textContent === '19'", racer_id)
    assert board_score(page, racer_id) == pytest.approx(float(total), abs=0.0501)  # shown to one place
    assert client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"][0]["score"] == float(total)
    assert page.get_attribute("section[data-feed]", "data-feed") == "push"
    assert "1st" in page.inner_text(".ride-place")
    for width, height, name in ((1000, 1000, "screenshot-ride.png"), (390, 900, "screenshot-ride-phone.png")):
        page.set_viewport_size({"width": width, "height": height})
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # nothing overflows a phone
        page.screenshot(path=str(DOCS / name))
    page.set_viewport_size({"width": 1000, "height": 1000})
    # When the race is finished (an admin finishes it early)
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    # Then the ride ends with the result
    until(page, "() => document.querySelector('.ride').dataset.state === 'finished'")
    until(page, "() => document.querySelector('.ride-place').textContent.startsWith('You placed 1st of 1')")


def test_opening_a_ride_link_joins_nothing_until_the_racer_clicks_then_rides_over_mqtt_and_over_http_while_the_broker_is_down(
        stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    # Given the racer's page on the site as /config.json has it, naming the MQTT broker (contract v1.3's ingest),
    # its sockets to the broker passed through (and dropped and refused once the broker is "down")
    page.route("**/config.json", lambda route: route.continue_())
    page.reload()
    broker = {"down": False, "sockets": []}

    def through(socket):
        if broker["down"]:
            return socket.close()
        broker["sockets"].append(socket)
        socket.connect_to_server()

    page.route_web_socket(re.compile(r"/mqtt$"), through)
    race = new_race(stack, client, page)
    writes = []
    page.on("request", lambda request: request.method != "GET" and writes.append(f"{request.method} {request.url}"))
    # and a ride link opened (anyone may have sent it)
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    page.wait_for_selector(".ride button.ride-start")
    # When the race starts and seconds go by
    at_the_start(page, stack, race)
    for _ in range(3):
        one_second(page, stack)
    # Then the page has joined nothing and sent nothing, nor connected to the broker: the racer is not on the board
    assert writes == [] and broker["sockets"] == []
    assert client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"] == []
    assert page.is_hidden(".ride .riding") and page.inner_text(".ride button.ride-start") == "Start riding"
    # When they click to start, and ride
    start_ride(page)
    joined_with_a_name(page)
    for _ in range(3):
        one_second(page, stack)
    stepped_until(page, stack, "() => Number(document.querySelector('.ride-sent').dataset.counted) >= 3")
    # Then their seconds went over MQTT (one connection, no telemetry request) and counted: the page says so from the
    # board (its lastSecond), not from the broker's acknowledgements
    assert page.get_attribute(".ride-sent", "data-transport") == "mqtt" and len(broker["sockets"]) == 1
    assert not [write for write in writes if "/telemetry" in write]
    board = client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"]
    assert [item["racerId"] for item in board] == [racer_id]
    shown = int(page.get_attribute(".ride-sent", "data-counted"))
    assert page.inner_text(".ride-sent").startswith(f"Counted through second {shown}") and shown <= board[0]["lastSecond"] + 1
    # When the broker goes down (the connection dropped, new ones refused) and they ride on
    broker["down"] = True
    for socket in broker["sockets"]:
        socket.close()
    for _ in range(3):
        one_second(page, stack)
    stepped_until(page, stack, "() => document.querySelector('.ride-sent').dataset.waiting === '0'")
    pushed(page, stack, "() => { const sent = document.querySelector('.ride-sent').dataset; return sent.counted === sent.queued; }")
    # Then the seconds went over HTTP instead, and every second ridden counted once, none lost in the switch
    assert [write for write in writes if "/telemetry" in write]
    queued = int(page.get_attribute(".ride-sent", "data-queued"))
    seconds = [s for s, *_ in after_the_history_writer(stack, lambda: history(client, racer_id, race["raceId"]),
                                                       lambda rows: rows and rows[-1][0] == queued - 1, "the last second")]
    assert seconds == list(range(seconds[0], queued)) and len(seconds) >= 6
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200  # no race left open
    until(page, "() => document.querySelector('.ride').dataset.state === 'finished'")
    page.unroute("**/config.json")  # the module's other rides: over HTTP
    page.reload()


def stepped_until(page, stack, predicate):
    """Until the page's ``predicate`` holds, both clocks moving on a tenth at a time (at most 10 s): mqtt.js runs on
    the page's timers, which stand still with its clock."""
    for _ in range(10 * STEPS):
        if page.evaluate(predicate):
            return
        stack.clock.advance(1 / STEPS)
        page.clock.run_for(1000 // STEPS)
        time.sleep(0.05)  # the board's pipeline runs in real time
    raise AssertionError(f"not within 10 s of the race: {predicate} {page.inner_text('.ride')!r}")


def key_count(keys, second, key):
    return keys.get(second, []).count(key)


def test_a_ride_through_a_network_outage_and_a_lost_answer_counts_every_second_once(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    race = new_race(stack, client, page)
    open_ride(page, stack, race)
    joined(page)  # the racer has a name: starting is their one click
    for _ in range(18):
        page.keyboard.press("ArrowUp")  # 90 rpm at 50 %
    at_the_start(page, stack, race)
    for second in range(5):
        one_second(page, stack, counted_at_least=second + 1)
    # When the network is gone for 5 s
    page.context.set_offline(True)
    for _ in range(5):
        one_second(page, stack)
    queued(page, stack, 10)  # the page may run a second behind the stack's clock
    # Then the page keeps those seconds (all it queued since, none counted) and says so
    until(page, "() => { const sent = document.querySelector('.ride-sent').dataset;"
                " return Number(sent.waiting) >= 5 && Number(sent.waiting) === Number(sent.queued) - Number(sent.counted); }")
    assert "No connection" in page.inner_text(".ride .form-message")
    # When it is back, and later one answer is lost on its way back (the samples reached the API)
    page.context.set_offline(False)
    for second in range(10, 13):
        one_second(page, stack, counted_at_least=second + 1)
    lost = []

    def lose_the_answer(route):
        lost.append(route.fetch().status)
        route.abort()

    page.route("**/telemetry", lose_the_answer, times=1)
    ridden = 13
    while ridden < 18 or page.evaluate("() => document.querySelector('.ride-sent').dataset.waiting") != "0":
        assert ridden < 30, "the lost batch was never sent again"
        one_second(page, stack)  # the lost batch is sent again with a later second's (or on its retry timer)
        ridden += 1
        # a send in flight gets real time to end before the page's clock moves on (a busy stack answers slower)
        sent_all = "() => document.querySelector('.ride-sent').dataset.waiting === '0'"
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline and not page.evaluate(sent_all):
            time.sleep(0.02)
    queued(page, stack, ridden)
    until(page, "n => document.querySelector('.ride-sent').dataset.counted === String(n)", ridden)
    assert lost == [200]
    # And when the race ends, every second was counted once: no duplicate, nothing missing
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    until(page, "() => document.querySelector('.ride').dataset.state === 'finished'")
    samples = history_of(stack, client, racer_id, race["raceId"], ridden)
    assert [s for s, *_ in samples] == list(range(ridden))
    board = client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"]
    assert board[0]["score"] == float(ridden * output(90, 50)) and board[0]["lastSecond"] == ridden - 1
    assert f"{ridden} s counted" in page.inner_text(".ride-sent") and "not counted" not in page.inner_text(".ride-sent")

# Indoor Bike Data packets (FTMS 1.0, 0x2AD2) as trainers send them, and what the field table says
# they hold: (hex, cadence in rpm or None, resistance level or None, power in W or None).
# - flags 0x0244: speed (More Data clear), cadence, power, heart rate; no resistance level. A packet
#   captured from an indoor bike: 24.60 km/h, 0x5c half-rpm = 46 rpm, 79 W, 80 bpm.
# - flags 0x0064: speed, cadence, resistance level (sint16), power (sint16).
# - flags 0x0021: More Data set (no speed), resistance level only: the rest of a reading split over
#   two packets; the cadence before it still holds.
TRAINER_PACKETS = [
    ("44 02 9c 09 5c 00 4f 00 50", 46, None, 79),
    ("64 00 c4 09 b4 00 28 00 f0 00", 90, 40, 240),
    ("21 00 2d 00", None, 45, None),
    ("64 00 10 0e 2c 01 50 00 5e 01", 150, 80, 350),
]
TRAINER_RANGE = "0000 d007 0a00"  # Supported Resistance Level Range: levels 0.0 to 200.0, steps of 1.0
GARBLED = "64 00 c4 09 ff ff 2d 00 fa 00"  # 32,767.5 rpm: beyond the API's 300, left out by the page


def test_a_smart_trainer_rides_the_race_and_one_that_drops_out_is_reconnected_its_missing_seconds_absent(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    race = new_race(stack, client, page, duration=120)  # the history writer's window after ~30 s of riding
    # Given a browser with Web Bluetooth and a trainer in reach whose levels run 0-200
    page.context.add_init_script(path=str(STANDIN))
    page.context.add_init_script(f"window.__trainer.range = {TRAINER_RANGE!r};")
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    page.reload()
    # When the racer connects it, as the ride page offers before they start, then starts
    page.wait_for_selector(".ride button.ride-start")
    assert "Connect it first" in page.inner_text(".ride .ride-setup")
    page.click(".ride .ride-setup .trainer button.connect")
    page.wait_for_function("() => window.__trainer.notifying")
    assert page.evaluate("() => window.__trainer.requested") == [{"filters": [{"services": [0x1826]}]}]
    assert "Riding Stand-in trainer" in page.inner_text(".ride .ride-setup .trainer")
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.locator(".ride").screenshot(path=str(DOCS / "screenshot-ride-trainer-first-phone.png"))
    page.set_viewport_size({"width": 1000, "height": 1000})
    start_ride(page)
    joined_with_a_name(page)
    assert "Riding Stand-in trainer" in page.inner_text(".ride .riding .trainer")
    # Then the join names the trainer: it is connected
    assert board_rows(client, race["raceId"])[0]["equipment"] == "trainer"
    # and rides, the trainer notifying a packet a second (one garbled among them)
    at_the_start(page, stack, race)
    sent = {}
    for second, (packet, cadence, level, power) in enumerate(TRAINER_PACKETS * 3):
        assert page.evaluate("hex => window.__trainer.notify(hex)", packet)
        if second == 5:
            assert page.evaluate("hex => window.__trainer.notify(hex)", GARBLED)
        # a level is placed in the range 0-200 as a percent; with none yet, the virtual bike's 50 % holds
        before = sent[second - 1] if sent else (None, START[1])
        sent[second] = (before[0] if cadence is None else cadence, before[1] if level is None else level / 2)
        if power is not None:
            assert f"{power} W" in page.inner_text(".ride-now")
        one_second(page, stack, counted_at_least=second + 1)
    # Then each second counted (what each carries: the history, once the ride is over)
    assert page.get_attribute(".ride-sent", "data-counted") == str(len(sent))
    # When the trainer drops out (out of reach) for 5 s, the rider pedalling on
    page.evaluate("() => { window.__trainer.reachable = false; window.__trainer.disconnect(); }")
    until(page, "() => document.querySelector('.ride .trainer').textContent.includes('Trainer lost: reconnecting…')")
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing overflows a phone
    page.locator(".ride").screenshot(path=str(DOCS / "screenshot-ride-trainer-lost-phone.png"))
    page.set_viewport_size({"width": 1000, "height": 1000})
    full = [(packet, cadence, level) for packet, cadence, level, _ in TRAINER_PACKETS if None not in (cadence, level)]
    second, delivered = len(sent), []
    while not delivered or len(delivered) < 5:  # its seconds until it is back, and 5 after
        if second == len(sent) + 5:
            page.evaluate("() => { window.__trainer.reachable = true; }")  # in reach again: no click, no chooser
        packet, cadence, level = full[second % len(full)]
        if page.evaluate("hex => window.__trainer.notify(hex)", packet):
            delivered.append(second)
            sent[second] = (cadence, level / 2)
        one_second(page, stack)
        queued(page, stack, second + 1)
        second += 1
        assert second < len(sent) + 30, "the trainer was never reconnected"
    # Then it was reconnected by itself (connected again, subscribed again; the chooser asked once) and said so
    calls = page.evaluate("() => window.__trainer.calls")
    assert calls.count("requestDevice") == 1 and calls.count("startNotifications") == 2 and calls.count("connect") >= 3
    assert "Riding Stand-in trainer" in page.inner_text(".ride .trainer")
    assert delivered[0] >= 12 + 5  # the trainer was away 5 s: nothing it said reached the page
    # and the seconds it was away were not sent, not made up: what counted is what it said, nothing else
    until(page, "() => document.querySelector('.ride-sent').dataset.waiting === '0'")
    assert page.get_attribute(".ride-sent", "data-counted") == str(len(sent))
    # When the page is reloaded mid-ride (a trainer is connected again only with a click: the browser's chooser)
    page.reload()
    joined(page)
    until(page, "() => document.querySelector('.ride .trainer').textContent.includes('connect it again')")
    for _ in range(3):
        assert not page.evaluate("hex => window.__trainer.notify(hex)", full[0][0])
        one_second(page, stack)
        queued(page, stack, second + 1)
        second += 1
    # Then no second is sent meanwhile (none made up on the on-screen bike), and the ride is still the trainer's
    until(page, "() => document.querySelector('.ride-sent').dataset.waiting === '0'")
    assert page.get_attribute(".ride-sent", "data-counted") == str(len(sent))
    assert client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"][0]["equipment"] == "trainer"
    # When the racer connects it again, its seconds go on
    page.click(".ride .trainer button.connect")
    page.wait_for_function("() => window.__trainer.notifying")
    for _ in range(3):
        packet, cadence, level = full[second % len(full)]
        assert page.evaluate("hex => window.__trainer.notify(hex)", packet)
        sent[second] = (cadence, level / 2)
        one_second(page, stack)
        queued(page, stack, second + 1)
        second += 1
    until(page, "() => document.querySelector('.ride-sent').dataset.waiting === '0'")
    # Then the history holds each second as the trainer said it, the seconds it was away or not connected absent
    assert [(s, c, r) for s, c, r, *_ in history_of(stack, client, racer_id, race["raceId"], len(sent))] == [
        (s, *sent[s]) for s in sorted(sent)]
    total = sum(output(c, r) for c, r in sent.values())
    last = str(max(sent))
    pushed(page, stack, "([id, last]) => document.querySelector(`.board tr[data-racer='${id}'] td:nth-child(5)`)?.textContent === last",
           [racer_id, last])
    assert board_score(page, racer_id) == pytest.approx(float(total), abs=0.0501)
    board = client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"][0]
    assert (board["score"], board["equipment"]) == (float(total), "trainer")
    # When the rider disconnects it on purpose, the ride goes on on the on-screen bike
    page.click(".ride .trainer button.disconnect")
    assert page.is_visible(".ride .trainer button.connect")
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200  # no race left open


def ride(page, stack, seconds):
    """``seconds`` seconds of riding the on-screen bike, each until the page has queued it and delivered it: over
    HTTP the API counted it; over MQTT the broker acknowledged it (what counted reaches the page with the race's
    next tick, ``pushed``)."""
    for _ in range(seconds):
        sent = page.evaluate("() => ({...document.querySelector('.ride-sent').dataset})")
        one_second(page, stack)
        queued(page, stack, int(sent["queued"]) + 1)
        until(page, "n => { const sent = document.querySelector('.ride-sent').dataset;"
                    " return sent.waiting === '0' && (sent.transport === 'mqtt' || Number(sent.counted) >= n); }",
              int(sent["counted"]) + 1)


def riding(stack, client, page, keys, seconds, **race):
    """A new race whose ride page the racer opens, joins with a name and sets with ``keys``; then the
    race starts and they ride ``seconds`` of it. The race."""
    race = new_race(stack, client, page, **race)
    open_ride(page, stack, race)
    joined_with_a_name(page)
    for key in keys:
        page.keyboard.press(key)
    at_the_start(page, stack, race)
    ride(page, stack, seconds)
    return race


def test_the_back_button_mid_ride_asks_first_and_the_ride_goes_on_and_a_return_resumes_it(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    race = riding(stack, client, page, ["ArrowUp"] * 12, seconds=3)  # 60 rpm at 50 %
    # When the racer presses the browser's back button mid-ride, and says no to the question
    rider["leave"], rider["asked"] = False, []
    page.go_back()
    until(page, "() => location.hash.endsWith('/ride')")
    # Then they were asked, and stay on the ride, which goes on
    assert [kind for kind, _ in rider["asked"]] == ["confirm"] and rider["asked"][0][1].startswith("Leave the ride?")
    assert page.is_visible(".ride .riding") and page.inner_text("#ride-cadence") == "60 rpm"
    ride(page, stack, 3)
    # When they follow a link to another page of the site, and say yes
    rider["leave"] = True
    page.click("#crumbs a[href='#/']")
    until(page, "() => location.hash === '#/' && !document.querySelector('.ride')")  # the address changes first
    assert len(rider["asked"]) == 2
    # and come back to the ride in this tab: it resumes by itself (no click), the bike as it was
    page.go_back()
    until(page, "() => location.hash.endsWith('/ride')")
    joined(page)
    assert page.inner_text("#ride-cadence") == "60 rpm" and not page.is_visible(".ride button.ride-start")
    ride(page, stack, 3)
    samples = history_of(stack, client, racer_id, race["raceId"], 9)
    assert all((c, r) == (60, 50) for _, c, r, *_ in samples) and len(samples) >= 9
    assert [s for s, *_ in samples][:6] == list(range(6))  # no second lost to the question
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200  # no race left open


# A stand-in Screen Wake Lock API (navigator.wakeLock) that counts the locks asked for and released.
WAKE_LOCK_STANDIN = """(() => {
  const locks = { requested: [], released: 0 };
  const request = async (type) => {
    locks.requested.push(type);
    const sentinel = Object.assign(new EventTarget(), { type, released: false });
    sentinel.release = async () => {
      if (sentinel.released) return;
      sentinel.released = true;
      locks.released += 1;
      sentinel.dispatchEvent(new Event("release"));
    };
    locks.current = sentinel;
    return sentinel;
  };
  Object.defineProperty(navigator, "wakeLock", { value: { request }, configurable: true });
  window.__wakeLocks = locks;
})();"""
# The page hidden and shown again: the browser releases a screen wake lock as the page is hidden.
HIDE_AND_SHOW = """async () => {
  const visibility = (state) => {
    Object.defineProperty(document, "visibilityState", { get: () => state, configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  };
  visibility("hidden");
  await window.__wakeLocks.current.release();
  visibility("visible");
}"""
HELD = "n => window.__wakeLocks.requested.length === n && window.__wakeLocks.requested.length - window.__wakeLocks.released === 1"


def test_a_reload_mid_ride_resumes_it_with_the_bike_as_set_and_sends_no_second_it_did_not_ride(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    race = riding(stack, client, page, ["ArrowUp"] * 17 + ["ArrowRight"] * 3, seconds=5)  # 85 rpm at 65 %
    device = page.evaluate("() => localStorage.getItem('alleycat.device')")
    # When the racer reloads the page (a browser with a screen wake lock), and it takes 5 s of the race to load
    # again (its script held back meanwhile)
    page.context.add_init_script(WAKE_LOCK_STANDIN)
    rider["asked"] = []
    held = []
    page.route("**/assets/app-*.js", lambda route: held.append(route))
    page.reload(wait_until="commit")
    deadline = time.monotonic() + WAIT_SECONDS
    while not held:
        assert time.monotonic() < deadline, "the reloaded page never asked for its script"
        page.wait_for_timeout(20)
    for _ in range(5):
        one_second(page, stack)
    held[0].continue_()
    page.unroute("**/assets/app-*.js")
    # Then the browser asked first (beforeunload), and the ride goes on by itself, the bike as it was set
    assert [kind for kind, _ in rider["asked"]] == ["beforeunload"]
    joined(page)
    assert page.inner_text("#ride-cadence") == "85 rpm" and page.inner_text("#ride-resistance") == "65 %"
    assert page.evaluate("() => localStorage.getItem('alleycat.device')") == device
    # and the screen is kept on while riding, asked for again as the page shows after being hidden
    until(page, HELD, 1)
    assert page.evaluate("() => window.__wakeLocks.requested") == ["screen"]
    page.evaluate(HIDE_AND_SHOW)
    until(page, HELD, 2)
    ride(page, stack, 5)
    # and its history holds every second it rode as the racer set it, none while it was loading, none at 0 rpm
    samples = history_of(stack, client, racer_id, race["raceId"], 10)
    seconds = [s for s, *_ in samples]
    assert all((c, r) == (85, 65) for _, c, r, *_ in samples)
    assert seconds[:5] == list(range(5)) and len(seconds) >= 10
    gaps = [(before, after) for before, after in itertools.pairwise(seconds) if after != before + 1]
    # one gap: the 5 s the page was gone, give or take the second the page's knowledge of the stack's clock allows
    assert len(gaps) == 1 and gaps[0][1] - gaps[0][0] - 1 >= 4, seconds
    # When the race is finished, the screen may sleep again
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    until(page, "() => document.querySelector('.ride').dataset.state === 'finished'")
    until(page, "() => window.__wakeLocks.released === window.__wakeLocks.requested.length")


# Chrome's timer throttling of a hidden page, as the page lives it (https://chromestatus.com/feature/4718288976216064,
# "intensive wake up throttling"): after 5 minutes hidden, chained timers run on a 1-minute aligned wake up. Here
# every timer of the page (its setTimeout and setInterval, on Playwright's clock) runs at the first whole minute
# after it is due, from the moment the page is hidden: harsher than Chrome, which throttles to 1 s for the first 5
# minutes and spares unchained timers. The page's visibility reads "hidden" (visibilitychange fired). A dedicated
# worker's timers are not throttled (Chrome throttles a Window's): the page's heartbeat worker runs as it would.
HIDE_AND_THROTTLE = """() => {
  const MINUTE = 60000;
  const atTheMinute = (ms) => Math.ceil((Date.now() + Math.max(0, Number(ms) || 0)) / MINUTE) * MINUTE - Date.now();
  const { setTimeout: timeout, setInterval: interval } = window;
  window.setTimeout = (callback, ms, ...args) => timeout(callback, atTheMinute(ms), ...args);
  window.setInterval = (callback, ms, ...args) => interval(callback, Math.max(MINUTE, Number(ms) || 0), ...args);
  Object.defineProperty(document, "visibilityState", { get: () => "hidden", configurable: true });
  Object.defineProperty(document, "hidden", { get: () => true, configurable: true });
  document.dispatchEvent(new Event("visibilitychange"));
}"""
# Seconds the clocks move at a time while the page is hidden. The page takes a wake more than 10 s after the last for a
# sleep (those seconds are not sent), and a step's wait may be met by a wake up to 2 s before the step's end (the page
# knows the server's clock to a second, and a wait allows a second's lag): 6 + 2 keeps the gap under 10 (8 did not: 1 run in 3).
STEP = 6
HIDDEN_SECONDS = 360  # six one-minute wakes of the page's own timers; Chrome's throttling to a minute starts after 5


def test_a_hidden_page_whose_timers_run_once_a_minute_sends_every_second_for_6_minutes(stack, client, rider):
    page, racer_id = rider["page"], rider["sub"]
    race = riding(stack, client, page, ["ArrowUp"] * 14, seconds=3, duration=480)  # 70 rpm at 50 %
    # When the page is hidden, its timers throttled, for 6 minutes (a minute past the 5 Chrome spares)
    page.evaluate(HIDE_AND_THROTTLE)
    hidden_at = int(page.get_attribute(".ride-sent", "data-queued"))
    for step in range(1, HIDDEN_SECONDS // STEP + 1):
        # a second at a time, the stack's clock first: the page may send a second late, never early (it sets its race clock
        # from answers' Date; a stack several seconds ahead within a step made it send seconds not yet happened, refused)
        for _ in range(STEP):
            stack.clock.advance(1)
            page.clock.run_for(1000)
        # Then each step's seconds are queued within it (the page's own timers wake once a minute: the worker woke it),
        # counted from the hiding (from the step before, a wake a second early each step would add up to a sleep)
        until(page, "n => Number(document.querySelector('.ride-sent').dataset.queued) >= n", hidden_at + step * STEP - 1)
    until(page, "() => document.querySelector('.ride-sent').dataset.waiting === '0'")
    # and every second of the six minutes was sent, as the bike was set
    queued_seconds = int(page.get_attribute(".ride-sent", "data-queued"))
    assert queued_seconds >= HIDDEN_SECONDS
    samples = history_of(stack, client, racer_id, race["raceId"], queued_seconds)
    assert [s for s, *_ in samples] == list(range(queued_seconds))
    assert all((c, r) == (70, 50) for _, c, r, *_ in samples)
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200  # no race left open
