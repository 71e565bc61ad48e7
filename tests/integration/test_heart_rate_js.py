"""A heart-rate strap as the site reads it, run in Node: Heart Rate Measurement (0x2A37) values laid out here
from the Bluetooth SIG's characteristic definition and read by frontend/src/heartRate.js; which readings a
second may carry (contract v1.2: heartRate 30-250 bpm); the ride's log that sends a fresh one with each
second (frontend/src/rideLog.js); and frontend/src/strap.js on the stand-in navigator.bluetooth the browser
tests use (tests/e2e/bluetooth_standin.js)."""

import json
import struct

import pytest

from .nodejs import FRONTEND, ROOT, imported, package, printed, run

# Heart Rate Measurement's flags byte, by the Bluetooth SIG's definition (org.bluetooth.characteristic.
# heart_rate_measurement): bit 0 the value is uint16 (else uint8); bits 1-2 sensor contact status
# (0 or 1: not supported, 2: supported, no contact, 3: supported, contact); bit 3 Energy Expended
# (uint16, kJ) follows the value; bit 4 RR intervals (uint16 each, 1/1024 s) follow.
WIDE, NO_CONTACT, CONTACT, ENERGY, RR = 0b1, 0b100, 0b110, 0b1000, 0b10000


def measurement(bpm, flags=0, energy=None, rr=()):
    """A Heart Rate Measurement value (hex): its flags, the value (uint16 if WIDE), then the optional fields."""
    flags |= (ENERGY if energy is not None else 0) | (RR if rr else 0)
    body = struct.pack("<H" if flags & WIDE else "<B", bpm)
    body += struct.pack("<H", energy) if energy is not None else b""
    body += b"".join(struct.pack("<H", interval) for interval in rr)
    return (bytes([flags]) + body).hex()


SETUP = """
const view = (hex) => {
  const bytes = Buffer.from(hex.replace(/\\s+/g, ""), "hex");
  const whole = new Uint8Array(bytes.length + 8).fill(0xee);
  whole.set(bytes, 4);
  return new DataView(whole.buffer, 4, bytes.length);
};
"""


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(body) -> the JSON value the async function `body` returns, with `heartRate`, `log`, `strap`,
    `view(hex)` (a DataView inside a larger buffer: a parser reading past its end finds 0xEE), after the
    stand-in navigator.bluetooth (`__trainer`, `__strap`) is set up."""
    # every module of frontend/src (strap.js shares the trainer's reconnect schedule: trainer.js and its imports)
    folder = package(tmp_path_factory.mktemp("heart_rate_js"),
                     sorted(FRONTEND.glob("*.js")) + [ROOT / "tests" / "e2e" / "bluetooth_standin.js"])
    setup = ["globalThis.navigator ??= {};",
             imported(folder, standin="bluetooth_standin.js", heartRate="heartRate.js", log="rideLog.js",
                      strap="strap.js"), SETUP]
    return lambda body: run(*setup, printed(body))


def parsed(js, values):
    return js(f"return {json.dumps(values)}.map((hex) => heartRate.parseHeartRateMeasurement(view(hex)));")


def test_the_value_is_uint8_or_uint16_as_flags_bit_0_says(js):
    got = parsed(js, [measurement(72), measurement(72, WIDE), measurement(0x1FF, WIDE), measurement(255)])
    assert [reading["bpm"] for reading in got] == [72, 72, 511, 255]


def test_energy_expended_and_rr_intervals_after_the_value_change_nothing_read(js):
    # 140 bpm, then 1,234 kJ and two RR intervals (428 ms, 432 ms in 1/1024 s): only the bpm is read
    got = parsed(js, [measurement(140, energy=1234, rr=(438, 442)), measurement(140, WIDE | CONTACT, energy=1234, rr=(438,)),
                      measurement(140, rr=(438, 442, 446))])
    assert got == [{"bpm": 140, "contact": None}, {"bpm": 140, "contact": True}, {"bpm": 140, "contact": None}]


def test_sensor_contact_is_known_only_where_the_strap_supports_it(js):
    got = parsed(js, [measurement(90), measurement(90, 0b010), measurement(90, NO_CONTACT), measurement(90, CONTACT)])
    assert [reading["contact"] for reading in got] == [None, None, False, True]


def test_a_value_shorter_than_its_flags_announce_is_null(js):
    assert parsed(js, ["", "00", "01", "01" + "8c"]) == [None, None, None, None]


def test_measurements_as_straps_send_them(js):
    # A chest strap with contact detection and RR intervals at 1 Hz (flags 0x16), one without either
    # (0x00), one sending uint16 values (0x01), and a strap off the skin (0x04, 0 bpm)
    got = parsed(js, ["16 8c b6 01", "00 48", "01 9a 00", "04 00"])
    assert got == [{"bpm": 140, "contact": True}, {"bpm": 72, "contact": None}, {"bpm": 154, "contact": None},
                   {"bpm": 0, "contact": False}]


def test_a_second_carries_only_a_bpm_the_contract_takes_and_never_one_without_skin_contact(js):
    readings = [{"bpm": bpm, "contact": None} for bpm in (0, 29, 30, 140, 250, 251, 511)] + [
        {"bpm": 140, "contact": False}, {"bpm": 140, "contact": True}, None]
    got = js(f"return {json.dumps(readings)}.map((reading) => heartRate.usableBpm(reading));")
    # contract v1.2: heartRate is bpm from 30 to 250
    assert got == [None, None, 30, 140, 250, None, None, None, 140, None]


# --- the ride's log: a second carries the strap's bpm while it is at most 3 s old (docs/ride.md) -------------

def test_each_moment_carries_the_latest_bpm_while_fresh_on_the_bike_and_on_a_trainer(js):
    got = js("""
      const ride = new log.RideLog(0, { cadence: 80, resistance: 50 });
      const at = {};
      at.beforeAny = ride.at(500);
      ride.heartRate(1000, 120);
      at.heard = ride.at(1000);
      at.stillFresh = ride.at(1000 + 2999);
      at.stale = ride.at(1000 + 3000);
      ride.heartRate(5000, 130);
      ride.heartRate(5500, null);  // the strap lost, or off the skin
      at.none = ride.at(5600);
      ride.heartRate(6000, 131);
      ride.ride(6000, "trainer");
      ride.reading(6000, { cadence: 90, resistance: 40 });
      at.trainer = ride.at(6500);
      ride.ride(7000, "lost");
      at.trainerLost = ride.at(7500);
      const before = ride.at(6500);
      ride.forget(6500);
      at.afterForget = ride.at(6500);
      return { at, same: JSON.stringify(before) === JSON.stringify(at.afterForget), bpmAt: ride.heartRateAt(6100) };""")
    at = got["at"]
    assert "heartRate" not in at["beforeAny"] and "heartRate" not in at["stale"] and "heartRate" not in at["none"]
    assert at["heard"] == {"cadence": 80, "resistance": 50, "source": "bike", "heartRate": 120}
    assert at["stillFresh"]["heartRate"] == 120
    assert at["trainer"] == {"cadence": 90, "resistance": 40, "source": "trainer", "heartRate": 131}
    assert at["trainerLost"] is None  # a second nobody knows is not sent, heart rate or not
    assert got["same"] and got["bpmAt"] == 131


# --- strap.js on the stand-in navigator.bluetooth -------------------------------------------------------------

CONNECT = """
const seen = [];
const downs = [];
const backs = [];
let connection;
try {
  connection = await strap.connectStrap({ onReading: (reading) => seen.push(reading), onLost: () => downs.push("down"),
                                          onBack: () => backs.push("back"), retryMs: [0] });
} catch (error) {
  return { error: error.name, domException: error instanceof DOMException, calls: __strap.calls };
}
const turns = async (n) => { for (let i = 0; i < n; i += 1) await new Promise((done) => setTimeout(done, 0)); };
"""


def test_a_strap_is_asked_for_by_the_heart_rate_service_and_gives_each_measurement(js):
    found = js(CONNECT + f"""
        const delivered = [__strap.notify({json.dumps(measurement(140))}), __strap.notify("01 9a"),  // short: skipped
                           __strap.notify({json.dumps(measurement(156, WIDE | CONTACT, rr=(400,)))})];
        const calls = [...__strap.calls];
        connection.disconnect();
        const afterwards = __strap.notify({json.dumps(measurement(150))});
        return {{ name: connection.name, seen, downs, delivered, afterwards, requested: __strap.requested, calls,
                 trainerCalls: __trainer.calls }};
    """)
    assert found["requested"] == [{"filters": [{"services": [0x180D]}]}]
    assert found["calls"] == ["requestDevice", "connect", "getPrimaryService 180d", "getCharacteristic 2a37",
                              "startNotifications"]
    assert found["seen"] == [{"bpm": 140, "contact": None}, {"bpm": 156, "contact": True}]
    assert found["name"] == "Stand-in strap" and found["delivered"] == [True, True, True]
    # disconnecting on purpose is not the strap going away; the trainer was never asked for
    assert found["downs"] == [] and found["afterwards"] is False and found["trainerCalls"] == []


def test_a_strap_that_went_away_is_connected_again_by_itself(js):
    found = js(CONNECT + f"""
        __strap.reachable = false;
        __strap.disconnect();
        await turns(20);
        const triedWhileAway = __strap.calls.filter((call) => call === "connect").length - 1;
        const backWhileAway = backs.length;
        __strap.reachable = true;
        await turns(20);
        const delivered = __strap.notify({json.dumps(measurement(150))});
        connection.disconnect();
        const calls = __strap.calls.length;
        await turns(20);
        return {{ triedWhileAway, backWhileAway, delivered, seen, downs, backs,
                 requests: __strap.calls.filter((call) => call === "requestDevice").length,
                 subscriptions: __strap.calls.filter((call) => call === "startNotifications").length,
                 quietAfterDisconnect: __strap.calls.length === calls, connected: __strap.connected }};
    """)
    assert found["triedWhileAway"] >= 2 and found["backWhileAway"] == 0
    assert found["delivered"] is True and found["seen"] == [{"bpm": 150, "contact": None}]
    assert (found["downs"], found["backs"]) == (["down"], ["back"])
    assert found["requests"] == 1 and found["subscriptions"] == 2  # the same device, subscribed again
    assert found["quietAfterDisconnect"] and found["connected"] is False


def test_a_cancelled_strap_chooser_reaches_the_caller_as_the_browser_gave_it(js):
    found = js("__strap.cancelled = true;\n" + CONNECT + "return 'connected';")
    assert found == {"error": "NotFoundError", "domException": True, "calls": ["requestDevice"]}
