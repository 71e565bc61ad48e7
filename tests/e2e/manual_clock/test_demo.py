"""`make demo` as a newcomer finds it: the simulator started as the demo starts it (``local.demo``), on the
stack whose clock the tests move. Its next race is up next a minute or two ahead, counting down, with the
simulated field joined; a new racer signs up, joins it before the start, and the field rides from the start."""

import threading
import time

import pytest

from alleycat.clock import epoch
from local.demo import demo_settings, start_simulator

from .browsing import new_page, signed_up_new

RACERS = 5
WAIT_SECONDS = 30


def until(condition, what):
    """Waits (real time, bounded) for what the stack does on its own: the simulator's calls, the stream."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not (found := condition()):
        assert time.monotonic() < deadline, f"not within {WAIT_SECONDS} s: {what}"
        time.sleep(0.1)
    return found


@pytest.fixture
def demo(stack):
    """The demo's simulator (``make demo RACERS=5 RACES=1``) against the stack, started now."""
    settings = demo_settings({"RACERS": str(RACERS), "RACES": "1"})
    stop = threading.Event()
    simulator, thread = start_simulator(stack, settings, stop, show_progress=False)
    yield {"settings": settings, "simulator": simulator, "started": stack.clock.now()}
    stop.set()
    thread.join(timeout=10)


def upcoming_of(client, class_id):
    items = client.call("GET", "/races?state=upcoming&limit=100")[1]["items"]
    return next((race for race in items if race["classId"] == class_id and race["racerCount"] == RACERS), None)


def test_the_demo_announces_its_next_race_ahead_and_a_newcomer_joins_it_before_the_start(stack, client, browser, demo):
    settings = demo["settings"]
    # Given `make demo` just started: its race is listed as upcoming, every simulated racer joined
    race = until(lambda: upcoming_of(client, settings.class_id), "an upcoming race of the demo's class")
    start = epoch(race["startsAt"])
    # a minute or two ahead of the moment the demo started (by the stack's clock; startsAt is in whole seconds)
    assert 60 <= start - demo["started"] < 121
    assert race["className"] == "Demo class" and race["status"] == "open"
    # When a newcomer opens the home page and signs up
    page = new_page(browser, stack, width=390, height=900)
    signed_up_new(page, stack, "#/", "newcomer")
    # Then the race is under "Up next", counting down to its start
    row = page.locator(f".upcoming li.race:has(a[href='#/races/{race['raceId']}'])")
    row.locator(".countdown").wait_for()
    assert row.locator(".countdown").inner_text().startswith("starts in ")
    assert row.locator(".racers").inner_text() == f"{RACERS} racers"
    # When they open it and join it (a name first: they have none yet)
    row.locator("a.label").click()
    page.click("a.ride-link")
    page.click(".ride button.ride-start")
    page.fill("#ride-name", "Newcomer")
    page.click(".ride-name button[type=submit]")
    page.wait_for_selector(".ride .riding:not([hidden])")
    # Then they are on the race's board with the field, before its start (once the stream has seen the join)
    items = until(lambda: rows if len(rows := client.call("GET", f"/races/{race['raceId']}/leaderboard?limit=100")[1]["items"])
                  == RACERS + 1 else None, "the newcomer on the race's board")
    assert "Newcomer" in [item["name"] for item in items]
    assert stack.clock.now() < start
    # When the start comes, the field rides
    stack.clock.advance(start + 3 - stack.clock.now())
    until(lambda: all(item["lastSecond"] is not None and item["lastSecond"] >= 2
                      for item in client.call("GET", f"/races/{race['raceId']}/leaderboard?limit=100")[1]["items"]
                      if item["name"] != "Newcomer"), "the simulated racers' seconds 0–2 on the board")
    page.context.close()
