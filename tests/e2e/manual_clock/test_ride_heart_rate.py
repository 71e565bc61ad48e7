"""A heart-rate strap on the ride page, on the stack whose clock the tests move: the racer pairs a stand-in strap
(``navigator.bluetooth``, tests/e2e/bluetooth_standin.js: Heart Rate Service 0x180D) beside the on-screen bike
and rides a 60-second race; the bpm it notified are in the stored history (GET the racer's history), none
where it was lost or off the skin; the racer's chart draws them. Then the racer downloads the ride as a FIT
file from their page: Garmin's own decoder (the Python garmin-fit-sdk) and fitdecode both read 60 records
equal to the history.

What the test expects it computes itself from the measurements it notified (a Heart Rate Measurement laid out
by the Bluetooth SIG's definition: a flags byte, then the bpm), never from the page's modules."""

import struct
from datetime import UTC, datetime, timedelta

import fitdecode
import pytest
from garmin_fit_sdk import Decoder, Stream

from .browsing import DOCS, ROOT, claims, new_page, session, signed_up_new
from .test_ride import (
    at_the_start,
    board_rows,
    history,
    joined_with_a_name,
    new_race,
    one_second,
    queued,
    start_ride,
    until,
)

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
    # The browser reaches trainers, but none is connected: the join names the on-screen bike
    assert [(item["racerId"], item["equipment"]) for item in board_rows(client, race["raceId"])] == [(racer_id, "virtual")]
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
    # contract v1.3: [second, cadence, resistance, output, heartRate, power], heartRate null where none was sent
    assert [s for s, *_ in samples] == list(range(DURATION))
    assert {(c, r) for _, c, r, *_ in samples} == {(CADENCE, RESISTANCE)}
    assert [(s, heart_rate) for s, _, _, _, heart_rate, _ in samples] == sorted(strap_ride["sent"].items())
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


FIT_RESISTANCE_MAX = 254  # FIT's record resistance: "Relative. 0 is none 254 is Max." (Garmin's profile)


def expected_records(samples, starts_at):
    """The records a FIT file of ``samples`` holds: timestamp = the race's start + the second, cadence, heart
    rate where one was sent, resistance on FIT's relative scale."""
    start = datetime.fromisoformat(starts_at.replace("Z", "+00:00"))
    return [{"timestamp": start + timedelta(seconds=second), "cadence": cadence, "heart_rate": heart_rate,
             "resistance": round(resistance / 100 * FIT_RESISTANCE_MAX)}
            for second, cadence, resistance, _, heart_rate, _ in samples]


def garmin_decoded(path):
    decoder = Decoder(Stream.from_file(str(path)))
    assert decoder.is_fit() and decoder.check_integrity()
    messages, errors = Decoder(Stream.from_file(str(path))).read()
    assert errors == []
    return messages


def fitdecode_records(path):
    with fitdecode.FitReader(str(path), check_crc=fitdecode.CrcCheck.ENABLED) as fit:
        return [{field.name: field.value for field in frame.fields} for frame in fit
                if frame.frame_type == fitdecode.FIT_FRAME_DATA and frame.name == "record"]


def test_the_racer_downloads_the_ride_as_a_fit_file_that_garmins_decoder_and_fitdecode_read_as_the_history(
        strap_ride, client, stack, tmp_path):
    page, racer_id, race = strap_ride["page"], strap_ride["sub"], strap_ride["race"]
    samples = history(client, racer_id, race["raceId"])
    assert len(samples) == DURATION
    # Given the racer on their own page (opened afresh): each ride offers "Download .fit"
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(f"{stack.url}/#/racers/{racer_id}/{race['raceId']}")
    page.reload()
    button = page.locator(f".results button.download-fit[data-race='{race['raceId']}']")
    button.wait_for()
    # and Garmin's SDK is not part of the page's load: its module is fetched only on the click
    assert not [url for url in fetched if "/assets/fit-" in url]
    # When they click it, the file is built in the browser and saved
    with page.expect_download() as download:
        button.click()
    assert len([url for url in fetched if "/assets/fit-" in url]) == 1
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == f"alleycat-{race['raceId']}.fit"
    expected = expected_records(samples, race["startsAt"])

    # Then Garmin's decoder reads an activity: 60 records equal to the history, one lap, one session, the activity
    messages = garmin_decoded(path)
    records = [{name: record.get(name) for name in ("timestamp", "cadence", "heart_rate", "resistance")}
               for record in messages["record_mesgs"]]
    assert records == expected
    assert messages["file_id_mesgs"][0]["type"] == "activity"
    assert len(messages["lap_mesgs"]) == len(messages["session_mesgs"]) == len(messages["activity_mesgs"]) == 1
    session = messages["session_mesgs"][0]
    beats = [bpm for *_, bpm, _ in samples if bpm is not None]
    # the on-screen bike's ride (equipment virtual): a virtual activity; 60 s from the race's first second
    assert (session["sport"], session["sub_sport"]) == ("cycling", "virtual_activity")
    assert session["start_time"] == expected[0]["timestamp"] and session["total_elapsed_time"] == DURATION
    assert (session["avg_heart_rate"], session["max_heart_rate"]) == ((sum(beats) + len(beats) // 2) // len(beats), max(beats))
    assert not {"power", "speed", "distance"} & set(messages["record_mesgs"][0])  # the on-screen bike measures no watts
    assert messages["device_info_mesgs"][0]["product_name"] == "Alleycat On-screen bike"

    # And fitdecode (another implementation) reads the same 60 records
    decoded = [{name: record.get(name) for name in ("timestamp", "cadence", "heart_rate", "resistance")}
               for record in fitdecode_records(path)]
    assert decoded == [{**record, "timestamp": record["timestamp"].astimezone(UTC)} for record in expected]
