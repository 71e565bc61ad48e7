"""The ride page's clock, with no page, run in Node (frontend/src/serverTime.js): the server's time
estimated from the Date of the API's answers, whatever this computer's clock says; and the device id
a browser makes once (frontend/src/device.js)."""

import json
import random
import re
from email.utils import formatdate

import pytest

from .nodejs import over


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(statements) -> the JSON value the statements ``return``, over the modules serverTime and device."""
    return over(tmp_path_factory.mktemp("server_time_js"), time="serverTime.js", device="device.js")


def date(seconds: float) -> str:
    """An HTTP Date header: the server's time in whole seconds (the fraction cut off, as servers do)."""
    return formatdate(int(seconds), usegmt=True)


def answers(server_minus_page: float, rng: random.Random, count: int, start: float = 1_795_629_600.0):
    """``count`` answers [sent, received, Date] (page ms, page ms, header) of a page whose clock is
    ``server_minus_page`` s behind the server's, each sent at a random moment and answered within
    20-300 ms, the server answering at a random moment in between."""
    out, page = [], start
    for _ in range(count):
        page += rng.uniform(0.2, 1.5)
        trip = rng.uniform(0.02, 0.3)
        answered_at = page + rng.uniform(0, trip)  # page clock
        out.append([page * 1000, (page + trip) * 1000, date(answered_at + server_minus_page)])
        page += trip
    return out


@pytest.mark.parametrize("server_minus_page", [0.0, 60.0, -60.0, 0.4, -3600.7, 123.456])
def test_the_window_always_holds_the_true_offset_and_narrows_with_answers(js, server_minus_page):
    seen = answers(server_minus_page, random.Random(int(server_minus_page * 1000)), 40)
    got = js(f"""
      const clock = new time.ServerClock(() => {seen[-1][1]});
      const windows = [];
      for (const [sent, received, date] of {json.dumps(seen)}) {{
        clock.observe(sent, received, date);
        windows.push(clock.window);
      }}
      return {{ windows, now: clock.now(), reached: clock.reached() }};""")
    offset_ms = server_minus_page * 1000
    for window in got["windows"]:
        assert window["low"] - 1e-6 <= offset_ms <= window["high"] + 1e-6
    first, last = got["windows"][0], got["windows"][-1]
    assert first["high"] - first["low"] >= 1000  # one answer: a whole second (the Date's resolution) and the trip
    assert last["high"] - last["low"] < 350  # forty: about a trip's length
    page_now = seen[-1][1]
    assert got["reached"] <= page_now + offset_ms + 1000  # a second is sent at most a second before it happens
    assert abs(got["now"] - (page_now + offset_ms)) < 200


def test_before_any_answer_the_pages_own_clock_holds(js):
    got = js("""
      const clock = new time.ServerClock(() => 5000);
      return [clock.window, clock.now(), clock.reached()];""")
    assert got == [None, 5000, 5000]


def test_a_cached_answer_counts_its_age_and_gives_way_to_an_uncached_one(js):
    # The server's now: 1_000_000 s; the page's clock 60 s fast. A cached answer made 30 s ago says so in Age.
    page, server = 1_000_060_000, 1_000_000
    got = js(f"""
      const clock = new time.ServerClock(() => {page + 100});
      clock.observe({page}, {page + 100}, {json.dumps(date(server - 30))}, "30");
      const cached = clock.window;
      const ignored = clock.observe({page}, {page + 100}, {json.dumps(date(server - 30))}, null) && false;
      const exact = new time.ServerClock(() => {page + 100});
      exact.observe({page}, {page + 100}, {json.dumps(date(server))});
      exact.observe({page}, {page + 100}, {json.dumps(date(server - 30))}, "30");   // cached: no longer used
      return {{ cached, exact: exact.window }};""")
    assert got["cached"]["low"] <= -60_000 <= got["cached"]["high"]
    assert got["cached"]["high"] - got["cached"]["low"] == pytest.approx(2100)
    assert got["exact"]["low"] <= -60_000 <= got["exact"]["high"]
    assert got["exact"]["high"] - got["exact"]["low"] == pytest.approx(1100)


def test_a_second_leaves_at_most_a_second_before_it_happens_however_wide_the_window(js):
    # One cached answer, slow (3 s there and back): the window is 5 s wide; its middle 2.5 s past its low.
    got = js(f"""
      const clock = new time.ServerClock(() => 10_000);
      clock.observe(7_000, 10_000, {json.dumps(date(100))}, "0");
      return [clock.window, clock.now(), clock.reached()];""")
    window, now, reached = got
    assert window == {"low": 90_000, "high": 95_000}
    assert now == 10_000 + 92_500 and reached == 10_000 + 91_000


def test_when_the_computers_clock_is_set_two_answers_that_agree_replace_the_estimate(js):
    before = answers(0.0, random.Random(1), 10)
    after = [[sent + 90_000, received + 90_000, header] for sent, received, header in answers(0.0, random.Random(2), 2,
                                                                                          start=before[-1][1] / 1000)]
    got = js(f"""
      const clock = new time.ServerClock(() => {after[-1][1]});
      const windows = [];
      for (const [sent, received, date] of {json.dumps(before + after)}) {{
        clock.observe(sent, received, date);
        windows.push(clock.window);
      }}
      return windows.slice(-2);""")
    lone, agreed = got
    assert lone["low"] <= 0 <= lone["high"]  # the first answer after the set is held aside
    assert agreed["low"] <= -90_000 <= agreed["high"] and agreed["high"] - agreed["low"] <= 1400


def test_a_lone_answer_that_disagrees_changes_nothing(js):
    # An answer stamped after the server's clock jumped ahead, received before the page's did (both
    # clocks set while it was in flight): it does not move the estimate; the next answers hold it
    before = answers(0.0, random.Random(3), 10)
    last_sent, last_received, _ = before[-1]
    stray = [last_received + 100, last_received + 150, formatdate(int((last_received + 150) / 1000) + 25, usegmt=True)]
    after = answers(0.0, random.Random(4), 3, start=(last_received + 200) / 1000)
    got = js(f"""
      const clock = new time.ServerClock(() => {after[-1][1]});
      const windows = [];
      for (const [sent, received, date] of {json.dumps(before + [stray] + after)}) {{
        clock.observe(sent, received, date);
        windows.push(clock.window);
      }}
      return windows.slice(-4);""")
    assert all(window["low"] <= 0 <= window["high"] and window["high"] - window["low"] <= 1400 for window in got), got


def test_nonsense_headers_change_nothing(js):
    got = js("""
      const clock = new time.ServerClock(() => 0);
      const said = [clock.observe(0, 10, "not a date"), clock.observe(10, 0, "Tue, 25 Nov 2026 18:00:00 GMT"),
                    clock.observe(0, 10, "Tue, 25 Nov 2026 18:00:00 GMT", "-4")];
      return { said, window: clock.window };""")
    assert got == {"said": [False, False, False], "window": None}


def test_a_browser_makes_its_device_id_once(js):
    got = js("""
      const kept = new Map();
      const storage = { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, v) };
      const first = device.deviceId(storage), again = device.deviceId(storage);
      kept.set("alleycat.device", "not/an id!");
      const replaced = device.deviceId(storage);
      const refusing = { getItem: () => { throw new Error("denied"); }, setItem: () => { throw new Error("denied"); } };
      const ids = Array.from({ length: 200 }, () => device.newDeviceId());
      return { first, again, replaced, alone: device.deviceId(refusing), ids };""")
    pattern = r"^[A-Za-z0-9_-]{1,64}$"
    assert got["first"] == got["again"] and re.match(pattern, got["first"])
    assert got["replaced"] != "not/an id!" and re.match(pattern, got["replaced"])
    assert re.match(pattern, got["alone"])
    assert all(re.match(pattern, i) and len(i) == 22 for i in got["ids"]) and len(set(got["ids"])) == 200
