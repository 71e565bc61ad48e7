"""A heart-rate strap on the ride page, on the stack whose clock the tests move: the racer pairs a stand-in strap
(``navigator.bluetooth``, tests/e2e/bluetooth_standin.js: Heart Rate Service 0x180D) beside the on-screen bike
and rides a 60-second race; the bpm it notified are in the stored history (GET the racer's history), none
where it was lost or off the skin; the racer's chart draws them.

What the test expects it computes itself from the measurements it notified (a Heart Rate Measurement laid out
by the Bluetooth SIG's definition: a flags byte, then the bpm), never from the page's modules."""

import struct

import pytest

from .browsing import DOCS, ROOT, claims, new_page, session, signed_up_new
from .test_ride import at_the_start, history, joined_with_a_name, new_race, one_second, queued, start_ride, until

STANDIN = ROOT / "tests" / "e2e" / "bluetooth_standin.js"
DURATION = 60
LOST_AT = 20  # the strap goes out of reach for 5 s, then is reconnected by itself: no heart rate sent meanwhile
OFF_THE_SKIN = range(45, 48)  # the seconds it says it has no skin contact (flags 0x04, 0 bpm)
CADENCE, RESISTANCE = 60, 50  # the on-screen bike: 12 ArrowUp from 0 rpm at 50 %


def measurement(bpm: int, flags: int = 0) -> str:
    """A Heart Rate Measurement (0x2A37): the flags byte (bit 0 clear: uint8), then the bpm."""
    return struct.pack("<BB", flags, bpm).hex()


def bpm_at(second: int) -> int:
    """What the strap says in ``second``: a warm-up climbing from 100 to 159 bpm over the race."""
    return 100 + second


@pytest.fixture(scope="module")
def strap_ride(browser, stack, client):
    """A new racer who rode a whole 60-second race on the on-screen bike with a heart-rate strap:
    {page, sub, race, sent: {second: bpm or None}}; the race finished."""
    page = new_page(browser, stack, width=1000, height=1000)
    page.context.add_init_script(path=str(STANDIN))
    signed_up_new(page, stack, "#/", "hr")
    racer_id = claims(session(page)["idToken"])["sub"]
    race = new_race(stack, client, page, duration=DURATION)
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    start_ride(page)
    joined_with_a_name(page)
    for _ in range(CADENCE // 5):
        page.keyboard.press("ArrowUp")
    # When the racer pairs the strap: the browser's chooser offers heart-rate straps alone
    page.click(".ride .strap button.connect-strap")
    page.wait_for_function("() => window.__strap.notifying")
    assert page.evaluate("() => window.__strap.requested") == [{"filters": [{"services": [0x180D]}]}]
    assert page.evaluate("() => window.__trainer.calls") == []  # the trainer is not asked for
    at_the_start(page, stack, race)
    sent = {}
    for second in range(DURATION):
        if second == LOST_AT:
            page.evaluate("() => { window.__strap.reachable = false; window.__strap.disconnect(); }")
            until(page, "() => document.querySelector('.ride .strap').textContent.includes('lost: reconnecting')")
        if second == LOST_AT + 5:
            page.evaluate("() => { window.__strap.reachable = true; }")  # back in reach: no click, no chooser
        flags, bpm = (0b100, 0) if second in OFF_THE_SKIN else (0, bpm_at(second))
        delivered = page.evaluate("hex => window.__strap.notify(hex)", measurement(bpm, flags))
        assert delivered or second >= LOST_AT, second
        sent[second] = bpm if delivered and second not in OFF_THE_SKIN else None
        if second == 10:
            until(page, "text => document.querySelector('.ride .strap .bpm').textContent === text", f"{bpm_at(second)} bpm")
            page.set_viewport_size({"width": 390, "height": 900})
            assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing overflows a phone
            page.locator(".ride").screenshot(path=str(DOCS / "screenshot-ride-strap-phone.png"))
            page.set_viewport_size({"width": 1000, "height": 1000})
        one_second(page, stack, counted_at_least=second + 1)
    queued(page, stack, DURATION)
    until(page, "() => document.querySelector('.ride-sent').dataset.waiting === '0'")
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=race["admin"])[0] == 200
    until(page, "() => document.querySelector('.ride').dataset.state === 'finished'")
    yield {"page": page, "sub": racer_id, "race": race, "sent": sent}
    page.context.close()


def test_a_heart_rate_straps_bpm_are_stored_with_each_second_none_while_lost_or_off_the_skin(strap_ride, client):
    samples = history(client, strap_ride["sub"], strap_ride["race"]["raceId"])
    # contract v1.2: [second, cadence, resistance, output, heartRate], heartRate null where none was sent
    assert [s for s, *_ in samples] == list(range(DURATION))
    assert {(c, r) for _, c, r, *_ in samples} == {(CADENCE, RESISTANCE)}
    assert [(s, heart_rate) for s, _, _, _, heart_rate in samples] == sorted(strap_ride["sent"].items())
    lost = [s for s, bpm in strap_ride["sent"].items() if bpm is None and s not in OFF_THE_SKIN]
    assert lost[0] == LOST_AT and len(lost) >= 5 and lost == list(range(LOST_AT, LOST_AT + len(lost)))
    # the strap was reconnected by itself: the chooser asked once, subscribed twice
    calls = strap_ride["page"].evaluate("() => window.__strap.calls")
    assert calls.count("requestDevice") == 1 and calls.count("startNotifications") == 2


def test_the_racers_chart_draws_the_heart_rate(strap_ride, stack):
    page, racer_id, race = strap_ride["page"], strap_ride["sub"], strap_ride["race"]
    page.goto(f"{stack.url}/#/racers/{racer_id}/{race['raceId']}")
    page.wait_for_selector(".chart .u-legend")
    legend = page.locator(".chart .u-legend .u-series", has_text="heart rate")
    assert legend.count() == 1 and "u-off" not in (legend.get_attribute("class") or "")
    beats = [bpm for bpm in strap_ride["sent"].values() if bpm is not None]
    average = (sum(beats) + len(beats) // 2) // len(beats)  # to the nearest bpm
    until(page, "text => document.querySelector('section p.muted')?.textContent.includes(text)",
          f"heart rate {average} bpm on average")
    page.set_viewport_size({"width": 390, "height": 900})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing overflows a phone
    page.screenshot(path=str(DOCS / "screenshot-racer-heart-rate-phone.png"), full_page=True)
    page.set_viewport_size({"width": 1000, "height": 1000})
