"""A ride's logic with no page, run in Node: the race's second, a second's output (the twin of
alleycat.rules.scores.output), the virtual bike's ranges (frontend/src/bike.js), the outbox that
sends each second once however the network behaves (frontend/src/outbox.js), and the ride's log
that says what was ridden at each moment, or that nobody knows (frontend/src/rideLog.js)."""

import json
import random

import pytest

from alleycat.rules.scores import number, output

from .nodejs import over


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(statements) -> the JSON value the statements ``return``, over the modules bike and outbox."""
    return over(tmp_path_factory.mktemp("ride_js"), bike="bike.js", outbox="outbox.js", log="rideLog.js")


def test_a_seconds_output_is_the_servers_to_four_places(js):
    rng = random.Random(7)
    pairs = [(0, 0), (300, 100), (85, 40), (92.5, 37.5)] + [
        (rng.randrange(0, 601) / 2, rng.randrange(0, 1001) / 10) for _ in range(200)]
    got = js(f"return {json.dumps(pairs)}.map(([c, r]) => bike.output(c, r));")
    assert got == [number(output(str(c), str(r))) for c, r in pairs]


def test_the_race_second_counts_from_the_start_and_stops_at_the_end(js):
    race = {"startsAt": "2026-11-25T18:00:00Z", "durationSeconds": 60}
    start = 1_795_629_600_000  # 2026-11-25T18:00:00Z in ms
    offsets = [-1, 0, 999, 1000, 59_999, 60_000, 3_600_000]
    got = js(f"return {json.dumps(offsets)}.map((ms) => bike.raceSecond({json.dumps(race)}, {start} + ms));")
    assert got == [-1, 0, 0, 1, 59, 60, 60]


def test_the_virtual_bike_steps_within_the_contracts_ranges(js):
    got = js("""
      const b = new bike.VirtualBike(290, 95);
      const moves = [b.step("cadence", 1), b.step("cadence", 1), b.step("cadence", 1),
                     b.step("resistance", 1), b.step("resistance", 1)];
      const top = [b.cadence, b.resistance];
      b.set("cadence", -20); b.set("resistance", "not a number");
      return { moves, top, low: [b.cadence, b.resistance], keys: bike.KEYS };""")
    assert got["moves"] == [True, True, False, True, False]
    assert got["top"] == [300, 100] and got["low"] == [0, 0]
    assert got["keys"]["ArrowUp"] == ["cadence", 1] and got["keys"]["ArrowLeft"] == ["resistance", -1]


OUTBOX = """
  let n = 0;
  const box = new outbox.Outbox(() => `k${++n}`);
  const s = (second) => ({ racerId: "r", second, cadence: 80, resistance: 50 });
"""


def test_a_failed_batch_is_sent_again_unchanged_under_its_key_before_newer_seconds(js):
    got = js(OUTBOX + """
      box.add(s(0)); box.add(s(1));
      const first = box.next();                       // sent; no answer (offline)
      box.add(s(2));
      const again = box.next();                       // the retry: the same batch, the same key
      box.answered(again, { accepted: 2, duplicates: 0, rejected: [] });
      const then = box.next();
      box.answered(then, { accepted: 1, duplicates: 0, rejected: [] });
      return { first, same: first === again, then, after: box.next(), waiting: box.waiting, accepted: box.accepted };""")
    assert got["first"] == {"key": "k1", "samples": [{"racerId": "r", "second": s, "cadence": 80, "resistance": 50}
                                                     for s in (0, 1)]}
    assert got["same"] is True
    assert got["then"]["key"] == "k2" and [x["second"] for x in got["then"]["samples"]] == [2]
    assert got["after"] is None and got["waiting"] == 0 and got["accepted"] == 3


def test_a_long_outage_leaves_in_batches_of_at_most_a_thousand(js):
    got = js(OUTBOX + """
      for (let i = 0; i < 2500; i += 1) box.add(s(i));
      const sizes = [];
      for (let batch = box.next(); batch; batch = box.next()) {
        sizes.push(batch.samples.length);
        box.answered(batch, { accepted: batch.samples.length, duplicates: 0, rejected: [] });
      }
      return { sizes, accepted: box.accepted };""")
    assert got == {"sizes": [1000, 1000, 500], "accepted": 2500}


def test_what_is_kept_across_a_reload_is_sent_under_the_same_key(js):
    got = js(OUTBOX + """
      box.add(s(0)); box.next(); box.add(s(1));
      const saved = JSON.parse(JSON.stringify(box));
      const reloaded = new outbox.Outbox(() => "fresh", saved);
      return { pending: reloaded.next().key, waiting: reloaded.waiting };""")
    assert got == {"pending": "k1", "waiting": 2}


def test_answers_and_refusals_are_counted_once(js):
    got = js(OUTBOX + """
      box.add(s(0)); box.add(s(1));
      const batch = box.next();
      box.answered(batch, { accepted: 1, duplicates: 1, rejected: [] });
      box.answered(batch, { accepted: 1, duplicates: 1, rejected: [] });  // a late second answer: ignored
      box.add(s(2));
      const refused = box.next();
      box.refusedBatch(refused);
      return [box.accepted, box.duplicates, box.refused, box.waiting];""")
    assert got == [1, 1, 1, 0]


def test_a_batch_from_a_device_that_does_not_hold_the_ride_is_not_refused_and_what_is_queued_is_dropped(js):
    got = js(OUTBOX + """
      box.add(s(0)); box.add(s(1));
      const batch = box.next();
      box.add(s(2)); box.add(s(3));
      box.answered(batch, { accepted: 0, duplicates: 0, rejected: [
        { racerId: "r", second: 0, reason: outbox.ANOTHER_DEVICE }, { racerId: "r", second: 1, reason: outbox.NOT_YET }] });
      return { refused: box.refused, dropped: box.drop(), waiting: box.waiting, next: box.next() };""")
    # the `not yet` is refused for good (never sent again); the other device's second is not this page's fault
    assert got == {"refused": 1, "dropped": 2, "waiting": 0, "next": None}


# --- the ride's log: what was ridden at a moment (docs/ride.md: a trainer silent 3 s reads as 0 rpm; a
# trainer lost, or not heard from since it connected, rides nothing that is sent) --------------------------

def test_the_on_screen_bike_is_sampled_as_it_was_set_at_each_moment(js):
    got = js("""
      const ride = new log.RideLog(0, { cadence: 0, resistance: 50 });
      ride.bike(1500, 80, 50);
      ride.bike(2500, 80, 60);
      return [1000, 1500, 2499, 3000, 60000].map((at) => ride.at(at));""")
    assert [(s["cadence"], s["resistance"], s["source"]) for s in got] == [
        (0, 50, "bike"), (80, 50, "bike"), (80, 50, "bike"), (80, 60, "bike"), (80, 60, "bike")]


def test_a_trainers_moments_are_its_readings_none_while_lost_or_not_yet_heard_and_0_rpm_once_silent(js):
    got = js("""
      const ride = new log.RideLog(0, { cadence: 40, resistance: 50 });
      ride.ride(1000, "trainer");
      const at = {};
      at.notHeard = ride.at(1200);
      ride.reading(1300, { cadence: 90, resistance: 40, power: 200 });
      at.heard = ride.at(1300);
      at.justBeforeSilent = ride.at(1300 + 2999);
      at.silent = ride.at(1300 + 3000);
      ride.ride(5000, "lost");
      at.lost = ride.at(5500);
      ride.ride(8000, "trainer");
      at.backNotHeard = ride.at(8100);
      ride.reading(8200, { cadence: 100 });
      at.backHeard = ride.at(8200);
      ride.ride(9000, "bike");
      at.onScreen = ride.at(9000);
      const before = JSON.stringify([1300, 5500, 8100, 8200, 9000].map((t) => ride.at(t)));
      ride.forget(8100);
      const kept = JSON.stringify([8100, 8200, 9000].map((t) => ride.at(t)));
      return { at, forgetKeepsLater: JSON.parse(before).slice(2), kept: JSON.parse(kept), mode: ride.mode };""")
    at = got["at"]
    assert at["notHeard"] is None and at["lost"] is None and at["backNotHeard"] is None
    assert at["heard"] == {"cadence": 90, "resistance": 40, "power": 200, "source": "trainer"}
    assert at["justBeforeSilent"] == at["heard"]
    assert (at["silent"]["cadence"], at["silent"]["resistance"]) == (0, 50)  # the bike's resistance
    assert (at["backHeard"]["cadence"], at["backHeard"]["resistance"]) == (100, 50)
    assert (at["onScreen"]["cadence"], at["onScreen"]["resistance"], at["onScreen"]["source"]) == (40, 50, "bike")
    assert got["kept"] == got["forgetKeepsLater"] and got["mode"] == "bike"
