"""Power classes in the site, with no page, run in Node (frontend/src/power.js, contract v1.3): a power
class's score reads as kilojoules and average watts, a second's sample carries the trainer's watts as a
whole number within the contract's 0-3000 (from the FTMS packet through the ride's log), and what the
new-class form offers."""

import json

import pytest

from .nodejs import over

# Indoor Bike Data 0x0044 (FTMS 1.0): 25 km/h, 90 rpm (180 half-rpm), 200 W (instantaneous power, sint16)
PACKET_200_W = "44 00 c4 09 b4 00 c8 00"
PACKET_NO_POWER = "04 00 c4 09 b4 00"  # 0x0004: speed, cadence; no power


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    return over(tmp_path_factory.mktemp("power_js"), power="power.js", dom="dom.js", ftms="ftms.js", log="rideLog.js")


def view(hex_: str) -> str:
    return f"new DataView(Uint8Array.from({json.dumps(list(bytes.fromhex(hex_)))}).buffer)"


def test_a_power_score_reads_as_kilojoules_to_a_tenth_and_an_output_score_as_ever(js):
    got = js("""return {
      kj: [54321, 54349.9, 54350, 0, null, 1234567].map(power.kilojoules),
      power: power.scoreText(54321, "power"), output: power.scoreText(54321.25, "output"), unknown: power.scoreText(12.34, null),
      dom: dom.score(54321.25) };""")
    assert got["kj"] == ["54.3\u00a0kJ", "54.3\u00a0kJ", "54.4\u00a0kJ", "0.0\u00a0kJ", "0.0\u00a0kJ", "1,234.6\u00a0kJ"]
    assert got["power"] == "54.3\u00a0kJ"
    assert got["output"] == got["dom"] == "54,321.3"  # an output class's score unchanged
    assert got["unknown"] == "12.3"


def test_average_watts_are_the_joules_over_the_seconds_up_to_the_last_and_none_before_a_second(js):
    got = js("""return {
      averages: [[54300, 300], [181, 1], [1000, 3], [0, 10], [500, 0], [500, null]].map(([j, s]) => power.averageWatts(j, s)),
      seconds: [299, 0, null, undefined, -1].map(power.secondsUpTo),
      shown: [power.scoreWithWatts(54300, power.secondsUpTo(299), "power"), power.scoreWithWatts(0, null, "power"),
              power.scoreWithWatts(54300.04, 300, "output")],
      watts: [power.watts(180), power.watts(1999.6)] };""")
    assert got["averages"] == [181, 181, 333, 0, None, None]
    assert got["seconds"] == [300, 1, None, None, None]
    assert got["shown"] == ["54.3\u00a0kJ · 181\u00a0W", "0.0\u00a0kJ", "54,300"]
    assert got["watts"] == ["180\u00a0W", "2,000\u00a0W"]


def test_a_samples_power_is_whole_watts_within_the_contracts_range_or_left_out(js):
    got = js("""return {
      watts: [200, 199.5, 0, -12, 3000, 3000.4, 3001, 32767, undefined, null, NaN].map(power.samplePower),
      full: power.sample("r", 7, { cadence: 90, resistance: 40, heartRate: 140, power: 201.4 }),
      bare: power.sample("r", 8, { cadence: 90, resistance: 40, heartRate: undefined, power: undefined }),
      garbled: power.sample("r", 9, { cadence: 90, resistance: 40, power: 32767 }) };""")
    assert got["watts"] == [200, 200, 0, 0, 3000, 3000, None, None, None, None, None]
    assert got["full"] == {"racerId": "r", "second": 7, "cadence": 90, "resistance": 40, "heartRate": 140, "power": 201}
    assert got["bare"] == {"racerId": "r", "second": 8, "cadence": 90, "resistance": 40}  # no power, no heartRate key
    assert got["garbled"] == {"racerId": "r", "second": 9, "cadence": 90, "resistance": 40}


def test_a_trainers_watts_go_from_its_packet_through_the_rides_log_into_the_seconds_sample(js):
    got = js(f"""
      const ride = new log.RideLog(0, {{ cadence: 0, resistance: 50 }}, log.TRAINER);
      ride.reading(1000, ftms.parseIndoorBikeData({view(PACKET_200_W)}));
      const heard = power.sample("r", 1, ride.at(1500));
      const silent = power.sample("r", 5, ride.at(1000 + log.QUIET_MS));
      const other = new log.RideLog(0, {{ cadence: 0, resistance: 50 }}, log.TRAINER);
      other.reading(1000, ftms.parseIndoorBikeData({view(PACKET_NO_POWER)}));
      const onScreen = new log.RideLog(0, {{ cadence: 80, resistance: 50 }});
      return {{ heard, silent, noPower: power.sample("r", 1, other.at(1500)), noPowerSilent: power.sample("r", 5, other.at(5000)),
               onScreen: power.sample("r", 0, onScreen.at(10)), body: JSON.parse(JSON.stringify({{ samples: [heard] }})) }};""")
    assert got["heard"] == {"racerId": "r", "second": 1, "cadence": 90, "resistance": 50, "power": 200}
    assert got["body"]["samples"][0]["power"] == 200 and isinstance(got["body"]["samples"][0]["power"], int)
    # a trainer silent QUIET_MS is not pedalling: 0 rpm, and 0 W where it measures power
    assert got["silent"] == {"racerId": "r", "second": 5, "cadence": 0, "resistance": 50, "power": 0}
    # a trainer that measures no power, and the on-screen bike, send none (a power class rejects it: `no power`)
    assert "power" not in got["noPower"] and "power" not in got["noPowerSilent"] and "power" not in got["onScreen"]


def test_the_new_class_form_offers_output_first_and_power_each_with_what_it_ranks(js):
    got = js("""return { metrics: power.METRICS, of: [{ metric: "power" }, { metric: "output" }, {}, null, { metric: "watts" }]
      .map(power.metricOf), noPower: power.NO_POWER };""")
    assert [m["metric"] for m in got["metrics"]] == ["output", "power"]
    assert all(m["ranks"].startswith("Ranks ") for m in got["metrics"])
    assert "on-screen bike cannot join" in got["metrics"][1]["ranks"] and "kJ" in got["metrics"][1]["ranks"]
    assert got["of"] == ["power", "output", "output", "output", "output"]
    assert got["noPower"] == "no power"
