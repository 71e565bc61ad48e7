"""A power race (contract v1.3, issue 52) in Chromium, on the stack whose clock the tests move: an admin
makes a power class on the home page's form (the metric chosen, each said in a sentence); a racer's ride
page offers no on-screen bike there and waits for a trainer, says so of a trainer that sends no power,
then rides the stand-in FTMS trainer (tests/e2e/bluetooth_standin.js), whose Indoor Bike Data packets
carry instantaneous power: each second's sample carries its watts (the history's 6th column), the page
shows the watts now and the racer's kJ, and the race board scores in kJ with the average watts.

Time is the tests' (``manual_clock``): the page's clock paused at the start and moved a second at a time."""

import math
import struct
import uuid

from alleycat.clock import iso

from .browsing import DOCS, ROOT, after_the_history_writer, claims, new_page, session, signed_in_admin, signed_up_new
from .test_fair_results import eventually
from .test_ride import at_the_start, history, joined, one_second, pushed, until
from .test_ride_heart_rate import garmin_decoded

STANDIN = ROOT / "tests" / "e2e" / "bluetooth_standin.js"
WATTS = [180, 195, 210, 240, 262]  # a watt a second, as the trainer reports them


# Each list of the home page drawn: its rows, its empty line or its error (a list not read yet shows none).
LISTS_DRAWN = """() => [...document.querySelectorAll('.home .paged')].length === 3 && [...document.querySelectorAll('.home .paged')]
  .every((list) => list.querySelector('ul').childElementCount > 0 || !list.querySelector('.empty').hidden
    || !list.querySelector('.error').hidden)"""



def indoor_bike_data(watts: int | None, rpm: float = 90) -> str:
    """An Indoor Bike Data packet (FTMS 1.0, 0x2AD2): speed 25 km/h, cadence, and instantaneous power
    (flag bit 6, sint16 W) unless ``watts`` is None. No resistance level: the trainer's is the one it confirmed."""
    flags = 0x0004 | (0x0040 if watts is not None else 0)
    fields = struct.pack("<HHH", flags, 2500, round(rpm * 2)) + (struct.pack("<h", watts) if watts is not None else b"")
    return fields.hex(" ")


def kilojoules(joules: float) -> str:
    return f"{joules / 1000:,.1f}\u00a0kJ"  # a no-break space: the unit stays with its number


def test_a_trainer_with_power_rides_a_power_race_and_the_page_and_the_board_show_its_watts_and_kj(stack, client, browser,
                                                                                                  tmp_path):
    # Given an admin who makes a power class on the home page's form
    admin = signed_in_admin(browser, stack)
    # (once home's three lists are drawn: rows arriving above the form move it while it is clicked)
    admin.wait_for_function(LISTS_DRAWN)
    admin.click(".new-class-box summary")
    admin.wait_for_selector(".new-class-box[open]")
    # and it stays open through a change of the session's state (another tab's name: every auth listener runs)
    admin.evaluate("() => window.dispatchEvent(new StorageEvent('storage', { key: 'alleycat.name' }))")
    assert admin.evaluate("() => document.querySelector('.new-class-box').open"), "the admin's open form was closed"
    assert admin.is_checked("#class-metric-output")  # output unless chosen
    assert "on-screen bike cannot join" in admin.inner_text(".metric-choice.metric-power")
    class_id = f"power-{uuid.uuid4().hex[:8]}"
    admin.fill("#class-name", "Power hour")
    admin.fill("#class-id", class_id)
    admin.check("#class-metric-power")
    for width, name in ((1000, "screenshot-power-new-class.png"), (390, "screenshot-power-new-class-phone.png")):
        admin.set_viewport_size({"width": width, "height": 900})
        assert admin.evaluate("() => document.documentElement.scrollWidth") <= width
        admin.locator(".new-class-box").screenshot(path=str(DOCS / name))
    admin.click(".new-class button[type=submit]")
    admin.wait_for_function("hash => location.hash === hash", arg=f"#/classes/{class_id}")
    # Then the class ranks power, and its page says so
    assert client.call("GET", f"/classes/{class_id}/leaderboard?limit=1")[1]["metric"] == "power"
    admin.wait_for_selector(".metric-note:not([hidden])")
    # and renaming it keeps it a power class (PUT replaces the class: the form sends its metric back)
    admin.click(".rename-class-box summary")
    admin.wait_for_function("() => document.querySelector('#rename-name')?.value === 'Power hour'")
    admin.fill("#rename-name", "Power hour · long")
    admin.click(".rename-class button[type=submit]")
    admin.wait_for_selector(".rename-class .form-message.saved")
    assert client.call("GET", f"/classes/{class_id}/leaderboard?limit=1")[1] == {
        "classId": class_id, "name": "Power hour · long", "metric": "power", "items": []}
    admin.context.close()

    # Given a racer with a smart trainer (the stand-in), and a race of the class a minute ahead
    signing = new_page(browser, stack)
    signed_up_new(signing, stack, "#/", "watts")
    sub = claims(session(signing)["idToken"])["sub"]
    assert client.call("PUT", f"/racers/{sub}", {"name": "Wattson"}, client.token(sub))[0] == 200
    state = signing.context.storage_state()
    signing.context.close()
    context = browser.new_context(viewport={"width": 1000, "height": 1000}, locale="en-GB", storage_state=state)
    context.clock.install(time=stack.clock.now())
    context.add_init_script(path=str(STANDIN))
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.on("dialog", lambda dialog: dialog.accept())
    joins = []
    page.on("request", lambda r: r.method == "PUT" and f"/racers/{sub}" in r.url and "/races/" in r.url
            and joins.append(r.post_data_json))
    target = max(page.evaluate("() => Date.now()") / 1000, stack.clock.now()) + 0.5
    stack.clock.advance(target - stack.clock.now())
    page.clock.pause_at(target)
    admin_token = client.token("ops", ["admin"])
    start = math.ceil(stack.clock.now()) + 60
    status, race = client.call("POST", f"/classes/{class_id}/races", {"startsAt": iso(start), "durationSeconds": 60}, admin_token)
    assert status == 201, race
    race["start"] = start

    # When they open its ride page
    page.goto(f"{stack.url}/#/races/{race['raceId']}/ride")
    page.wait_for_selector(".ride .power-only")
    # Then the race says it counts measured power; the on-screen bike is not offered: the start waits for a trainer
    assert "on-screen bike cannot ride a power race" in page.inner_text(".ride .power-only")
    assert page.is_disabled(".ride button.ride-start")
    assert page.locator(".ride button.on-screen").count() == 0
    # When they connect a trainer that sends no power
    page.click(".ride .ride-setup .trainer button.connect")
    until(page, "() => window.__trainer.notifying")
    for _ in range(3):
        assert page.evaluate("hex => window.__trainer.notify(hex)", indoor_bike_data(None))
    # Then they are told its seconds would not count
    until(page, "() => !document.querySelector('.ride .no-power').hidden")
    assert "reports no power" in page.inner_text(".ride .no-power")
    page.set_viewport_size({"width": 390, "height": 1000})
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    page.locator(".ride").screenshot(path=str(DOCS / "screenshot-power-ride-no-power-phone.png"))
    page.set_viewport_size({"width": 1000, "height": 1000})
    # When its packets carry power (the same trainer, measuring), they start: the join names the trainer
    assert page.evaluate("hex => window.__trainer.notify(hex)", indoor_bike_data(WATTS[0]))
    until(page, "() => document.querySelector('.ride .no-power').hidden")
    assert page.is_enabled(".ride button.ride-start")
    page.click(".ride button.ride-start")
    joined(page)
    assert [join["equipment"] for join in joins] == ["trainer"]

    # When they ride five seconds, the trainer reporting its watts each second
    at_the_start(page, stack, race)
    for second, watts in enumerate(WATTS):
        assert page.evaluate("hex => window.__trainer.notify(hex)", indoor_bike_data(watts))
        one_second(page, stack, counted_at_least=second + 1)
    # Then each second was sent with its watts: the history's 6th column (and the result scored from it)
    rows = after_the_history_writer(stack, lambda: history(client, sub, race["raceId"]), lambda found: len(found) == len(WATTS),
                                    "the ride's history")
    assert [(s, c, p) for s, c, _r, _o, _hr, p in rows] == [(s, 90, w) for s, w in enumerate(WATTS)]
    total = sum(WATTS)
    # and the page shows the watts now and their kJ; the board scores in kJ with the average watts (score ÷ 5 s)
    assert page.inner_text(".ride .ride-now .watts-now") == f"{WATTS[-1]}\u00a0W"
    row = f".board tr[data-racer='{sub}']"
    pushed(page, stack, "([row, kj]) => document.querySelector(`${row} td:nth-child(4)`)?.textContent === kj", [row, kilojoules(total)])
    until(page, "([row, w]) => document.querySelector(`${row} td.watts`)?.textContent === w", [row, f"{round(total / 5)}\u00a0W"])
    assert page.inner_text(".ride .ride-place .score") == kilojoules(total)
    assert page.is_visible(f"{row} td.watts") and page.is_visible(".metric-note")
    assert client.call("GET", f"/races/{race['raceId']}/leaderboard")[1]["items"][0]["score"] == total
    for width, name in ((1000, "screenshot-power-race.png"), (390, "screenshot-power-race-phone.png")):
        page.set_viewport_size({"width": width, "height": 1000})
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width  # a phone reads it whole
        assert page.is_visible(f"{row} td.watts")
        page.screenshot(path=str(DOCS / name), full_page=True)
    # And the racer's page shows the ride in kJ with its average watts: in the results (score ÷ 5 s up to the
    # last second) and under the chart (the mean of the history's watts)
    page.set_viewport_size({"width": 390, "height": 1000})
    page.goto(f"{stack.url}/#/racers/{sub}/{race['raceId']}")
    result = f"table.results tr[data-race='{race['raceId']}'] td:nth-child(3)"
    until(page, "([cell, text]) => document.querySelector(cell)?.textContent === text",
          [result, f"{kilojoules(total)} · {round(total / 5)}\u00a0W"])
    until(page, "() => document.querySelector('.totals')?.textContent.includes('W on average')")
    assert f"{kilojoules(total)} so far · {round(total / 5)}\u00a0W on average" in page.inner_text(".totals")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    # And once the race is finished, the ride downloaded as a FIT file: Garmin's decoder reads, with 0 errors, the
    # trainer's watts second by second, a speed and a distance from them (docs/export.md's model) and the
    # session's power and work
    assert client.call("POST", f"/races/{race['raceId']}/finish", token=admin_token)[0] == 200
    eventually(lambda: client.call("GET", f"/racers/{sub}/results")[1]["items"][0]["lastSecond"] == len(WATTS) - 1)
    page.reload()
    with page.expect_download() as download:
        page.locator(f".results button.download-fit[data-race='{race['raceId']}']").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    messages = garmin_decoded(path)
    records = messages["record_mesgs"]
    assert [record["power"] for record in records] == WATTS
    distances = [record["distance"] for record in records]
    assert all(record["speed"] > 0 for record in records) and distances == sorted(distances) and distances[0] > 0
    ridden = messages["session_mesgs"][0]
    assert (ridden["total_work"], ridden["max_power"], ridden["avg_power"]) == (total, max(WATTS), round(total / 5))
    context.close()
