"""A smart trainer's Fitness Machine Service values as frontend/src/ftms.js reads them, run in Node: Indoor
Bike Data (0x2AD2) laid out here by the FTMS 1.0 field table, the Supported Resistance Level Range
(0x2AD6), and the resistance percent they make. Then frontend/src/trainer.js on the stand-in
navigator.bluetooth the browser tests use (tests/e2e/bluetooth_standin.js)."""

import json
import struct

import pytest

from .nodejs import FRONTEND, ROOT, imported, package, printed, run

ABSENT = "(undefined)"  # how a field the flags left out comes back through JSON
NONE_PRESENT = {"speed": ABSENT, "cadence": ABSENT, "resistanceLevel": ABSENT, "power": ABSENT, "heartRate": ABSENT}

# Indoor Bike Data after its uint16 flags, FTMS 1.0 §4.9.1: the flag bit is the index; bit 0 ("More Data")
# is inverted: 0 = Instantaneous Speed present. None = uint24.
LAYOUT = [
    ("speed", "<H"), ("average_speed", "<H"), ("cadence", "<H"), ("average_cadence", "<H"), ("distance", None),
    ("resistance", "<h"), ("power", "<h"), ("average_power", "<h"), ("energy", "<HHB"), ("heart_rate", "<B"),
    ("met", "<B"), ("elapsed", "<H"), ("remaining", "<H"),
]


def packet(**raw):
    """An Indoor Bike Data value (hex) carrying these fields, raw as the wire has them, its flags set to match."""
    flags = 0 if "speed" in raw else 1
    body = b""
    for bit, (name, layout) in enumerate(LAYOUT):
        if name not in raw:
            continue
        flags |= (1 << bit) if bit else 0
        values = raw[name] if isinstance(raw[name], tuple) else (raw[name],)
        body += values[0].to_bytes(3, "little") if layout is None else struct.pack(layout, *values)
    return (struct.pack("<H", flags) + body).hex()


# The module's DataViews sit inside larger buffers (0xEE around them), as a view need not start at 0: a
# parser reading past byteLength would find bytes there.
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
    """js(body) -> the JSON value the async function `body` returns (undefined as ABSENT), with `ftms`,
    `trainer` and `view(hex)`, after the stand-in navigator.bluetooth (`__trainer`) is set up."""
    folder = package(tmp_path_factory.mktemp("ftms_js"),
                     [FRONTEND / "ftms.js", FRONTEND / "trainer.js", FRONTEND / "trainerControl.js", FRONTEND / "bluetoothLink.js",
                      ROOT / "tests" / "e2e" / "bluetooth_standin.js"])
    setup = ["globalThis.navigator ??= {};",  # a page has one; Node before 21 has none
             imported(folder, standin="bluetooth_standin.js", ftms="ftms.js", trainer="trainer.js"), SETUP]
    absent = f"(key, value) => value === undefined ? {json.dumps(ABSENT)} : value"
    return lambda body: run(*setup, printed(body, absent))


@pytest.fixture(scope="module")
def parse(js):
    """parse(*hex) -> parseIndoorBikeData of each, in one Node run."""
    return lambda *packets: js(f"return {json.dumps(packets)}.map((hex) => ftms.parseIndoorBikeData(view(hex)));")


# --- Indoor Bike Data -----------------------------------------------------------------------------

def test_speed_is_there_when_more_data_is_clear_and_left_out_when_it_is_set(parse):
    with_speed, without = parse(packet(speed=2460, cadence=184), packet(cadence=184))
    assert packet(cadence=184).startswith("0500")  # More Data set, cadence present
    assert with_speed == {**NONE_PRESENT, "speed": 24.6, "cadence": 92}
    assert without == {**NONE_PRESENT, "cadence": 92}  # cadence read from where speed would have been


def test_speed_is_in_hundredths_of_a_km_h_and_cadence_in_half_rpm(parse):
    found = parse(packet(speed=3257, cadence=171), packet(speed=0, cadence=0), packet(speed=65535, cadence=65535))
    assert [(one["speed"], one["cadence"]) for one in found] == [(32.57, 85.5), (0, 0), (655.35, 32767.5)]


def test_resistance_level_and_power_are_signed(parse):
    (found,) = parse(packet(resistance=-5, power=-12))
    assert found == {**NONE_PRESENT, "resistanceLevel": -5, "power": -12}  # not 65531 and 65524


def test_each_field_is_read_after_every_field_before_it_whatever_is_returned(parse):
    some, every = parse(
        packet(average_speed=1111, cadence=181, distance=0x0A0B0C, resistance=7, power=250, heart_rate=142),
        packet(speed=3000, average_speed=1111, cadence=181, average_cadence=170, distance=0x0A0B0C, resistance=-3,
               power=321, average_power=300, energy=(400, 500, 9), heart_rate=151, met=42, elapsed=600, remaining=60),
    )
    assert some == {"speed": ABSENT, "cadence": 90.5, "resistanceLevel": 7, "power": 250, "heartRate": 142}
    assert every == {"speed": 30, "cadence": 90.5, "resistanceLevel": -3, "power": 321, "heartRate": 151}


def test_a_value_shorter_than_its_flags_announce_is_null(parse):
    full = packet(speed=2500, cadence=160, power=200, heart_rate=120)
    found = parse(full[:-2], full[:-4], packet(speed=2500)[:-2], "44", "", packet(energy=(1, 2, 3))[:-2],
                  packet(cadence=160, elapsed=600, remaining=60)[:-2], full)
    # the last byte short, a field short, only flags announcing speed, half a flags field, nothing, energy short,
    # remaining time short
    assert found[:-1] == [None] * 7
    assert found[-1] == {**NONE_PRESENT, "speed": 25, "cadence": 80, "power": 200, "heartRate": 120}


def test_flags_alone_with_more_data_set_carry_nothing(parse):
    assert parse("0100", "0100ffff") == [NONE_PRESENT, NONE_PRESENT]  # bytes after the fields announced are ignored


def test_packets_as_trainers_send_them(parse):
    found = parse(
        "4400 c409 a000 c800",                            # 0x0044: speed, cadence, power
        "6400 100e b400 0c00 f000",                       # 0x0064: speed, cadence, resistance level, power
        "4402 9c09 5c00 4f00 50",                         # 0x0244: speed, cadence, power, heart rate (a capture
                                                          # in Stack Overflow question 66250956)
        "7403 b20c b000 ab0000 1100 a200 0300000000 00",  # 0x0374: speed, cadence, distance, resistance level, power,
                                                          # energy, heart rate (an indoor bike's, question 76808270)
    )
    assert found == [
        {**NONE_PRESENT, "speed": 25, "cadence": 80, "power": 200},
        {**NONE_PRESENT, "speed": 36, "cadence": 90, "resistanceLevel": 12, "power": 240},
        {**NONE_PRESENT, "speed": 24.6, "cadence": 46, "power": 79, "heartRate": 80},
        {"speed": 32.5, "cadence": 88, "resistanceLevel": 17, "power": 162, "heartRate": 0},
    ]


# --- Supported Resistance Level Range and resistance percent --------------------------------------

def range_value(minimum, maximum, increment):
    """0x2AD6: sint16 minimum, sint16 maximum, uint16 increment, in tenths of a level (FTMS 1.0 §4.13)."""
    return struct.pack("<hhH", minimum, maximum, increment).hex()


def test_the_range_is_read_in_tenths_and_a_short_one_is_null(js):
    found = js(f"""return [{json.dumps(range_value(0, 1000, 10))}, {json.dumps(range_value(-100, 245, 5))},
                           {json.dumps(range_value(0, 1000, 10)[:-2])}].map((hex) => ftms.parseResistanceRange(view(hex)));""")
    assert found == [{"minimum": 0, "maximum": 100, "increment": 1}, {"minimum": -10, "maximum": 24.5, "increment": 0.5}, None]


def test_resistance_is_the_levels_place_in_the_range_to_a_tenth_of_a_percent_and_clamped(js):
    found = js("""
        const levels = { minimum: 1, maximum: 24, increment: 1 };
        const percent = { minimum: 0, maximum: 100, increment: 1 };
        return [ftms.resistancePercent(12, levels), ftms.resistancePercent(1, levels), ftms.resistancePercent(24, levels),
                ftms.resistancePercent(0, levels), ftms.resistancePercent(30, levels), ftms.resistancePercent(40, percent),
                ftms.resistancePercent(-20, { minimum: -20, maximum: 20, increment: 1 }), ftms.resistancePercent(undefined, levels)];
    """)
    assert found == [47.8, 0, 100, 0, 100, 40, 0, ABSENT]  # 11/23 of the way up: 47.83 %


def test_without_a_usable_range_the_level_is_taken_as_a_percent_clamped(js):
    found = js("""
        const flat = { minimum: 5, maximum: 5, increment: 1 };
        const upsideDown = { minimum: 10, maximum: 1, increment: 1 };
        return [ftms.resistancePercent(55, null), ftms.resistancePercent(130, null), ftms.resistancePercent(-3, undefined),
                ftms.resistancePercent(55, flat), ftms.resistancePercent(55, upsideDown), ftms.resistancePercent(undefined, null),
                ftms.isUsableRange(flat), ftms.isUsableRange(null), ftms.isUsableRange({ minimum: 0, maximum: 1, increment: 1 })];
    """)
    assert found == [55, 100, 0, 55, 55, ABSENT, False, False, True]


def test_a_cadence_beyond_what_the_api_takes_is_not_plausible(js):
    found = js("return [{ cadence: 300 }, { cadence: 300.5 }, { cadence: 32767.5 }, {}].map(ftms.isPlausible);")
    assert found == [True, False, False, True]


# --- trainer.js on the stand-in navigator.bluetooth -----------------------------------------------

CONNECT = """
const seen = [];
const downs = [];
const backs = [];
let connection;
try {
  connection = await trainer.connectTrainer({ onData: (data) => seen.push(data), onLost: () => downs.push("down"),
                                              onBack: () => backs.push("back"), retryMs: [0] });
} catch (error) {
  return { error: error.name, domException: error instanceof DOMException, calls: __trainer.calls };
}
"""


def test_a_trainer_is_asked_for_by_its_service_and_its_packets_come_with_resistance_from_its_range(js):
    found = js(CONNECT + f"""
        const delivered = [__trainer.notify({json.dumps(packet(speed=3000, cadence=180, resistance=12, power=240))}),
                           __trainer.notify({json.dumps(packet(speed=3000, cadence=180, power=240)[:-2])}),  // short: skipped
                           __trainer.notify({json.dumps(packet(cadence=170, resistance=40, power=-4, heart_rate=130))})];
        __trainer.disconnect();
        const afterwards = __trainer.notify({json.dumps(packet(cadence=170))});
        const calls = [...__trainer.calls];  // the first connection's
        connection.disconnect();  // no reconnecting
        const {{ name, range, hasRange }} = connection;
        return {{ name, range, hasRange, seen, downs, delivered, afterwards, requested: __trainer.requested, calls }};
    """)
    assert found["requested"] == [{"filters": [{"services": [0x1826]}]}]
    assert found["calls"] == ["requestDevice", "connect", "getPrimaryService 1826", "getCharacteristic 2ad6", "readValue 2ad6",
                              "getCharacteristic 2ad2", "startNotifications", "getCharacteristic 2ad9",
                              "startNotifications 2ad9", "write 2ad9 00"]  # control asked for (test_trainer_control_js.py)
    assert (found["name"], found["range"], found["hasRange"]) == (
        "Stand-in trainer", {"minimum": 0, "maximum": 100, "increment": 1}, True)
    assert found["seen"] == [
        {"cadence": 90, "resistance": 12, "resistanceLevel": 12, "power": 240, "speed": 30, "heartRate": ABSENT},
        {"cadence": 85, "resistance": 40, "resistanceLevel": 40, "power": -4, "speed": ABSENT, "heartRate": 130},
    ]
    assert found["delivered"] == [True, True, True] and found["downs"] == ["down"] and found["afterwards"] is False


def test_a_trainer_with_a_range_of_levels_maps_them_to_percent(js):
    found = js(f"""
        __trainer.range = {json.dumps(range_value(10, 240, 10))};  // levels 1 to 24
        __trainer.name = null;
        {CONNECT}
        __trainer.notify({json.dumps(packet(cadence=180, resistance=24))});
        __trainer.notify({json.dumps(packet(cadence=180, resistance=12))});
        return {{ name: connection.name, seen: seen.map((data) => data.resistance) }};
    """)
    assert found == {"name": "Smart trainer", "seen": [100, 47.8]}


def test_a_trainer_without_a_range_has_its_level_taken_as_a_percent(js):
    found = js(f"""
        __trainer.range = null;
        {CONNECT}
        __trainer.notify({json.dumps(packet(cadence=180, resistance=55))});
        __trainer.notify({json.dumps(packet(cadence=180, resistance=130))});
        return {{ range: connection.range, hasRange: connection.hasRange, seen: seen.map((data) => data.resistance),
                 calls: __trainer.calls }};
    """)
    assert found["range"] is None and found["hasRange"] is False and found["seen"] == [55, 100]
    assert "readValue 2ad6" not in found["calls"] and found["calls"][-4:] == ["startNotifications", "getCharacteristic 2ad9",
                                                                          "startNotifications 2ad9", "write 2ad9 00"]


def test_a_trainer_that_went_away_is_connected_again_by_itself_and_gives_each_packet_once(js):
    found = js(CONNECT + f"""
        const turns = async (n) => {{ for (let i = 0; i < n; i += 1) await new Promise((done) => setTimeout(done, 0)); }};
        __trainer.reachable = false;
        __trainer.disconnect();
        const away = __trainer.notify({json.dumps(packet(cadence=170))});
        await turns(20);
        const triedWhileAway = __trainer.calls.filter((call) => call === "connect").length - 1;
        const backWhileAway = backs.length;
        __trainer.reachable = true;
        await turns(20);
        const delivered = __trainer.notify({json.dumps(packet(cadence=180))});
        connection.disconnect();
        const calls = __trainer.calls.length;
        await turns(20);
        return {{ away, triedWhileAway, backWhileAway, delivered, seen: seen.map((data) => data.cadence), downs, backs,
                 requests: __trainer.calls.filter((call) => call === "requestDevice").length,
                 subscriptions: __trainer.calls.filter((call) => call === "startNotifications").length,
                 quietAfterDisconnect: __trainer.calls.length === calls, connected: __trainer.connected }};
    """)
    assert found["away"] is False and found["triedWhileAway"] >= 2 and found["backWhileAway"] == 0
    assert found["delivered"] is True and found["seen"] == [90]  # one subscription: the packet once
    assert (found["downs"], found["backs"]) == (["down"], ["back"])
    assert found["requests"] == 1 and found["subscriptions"] == 2  # no chooser again: the same device, subscribed again
    assert found["quietAfterDisconnect"] and found["connected"] is False


def test_a_cancelled_chooser_reaches_the_caller_as_the_browser_gave_it(js):
    found = js("__trainer.cancelled = true;\n" + CONNECT + "return 'connected';")
    assert found == {"error": "NotFoundError", "domException": True, "calls": ["requestDevice"]}


def test_disconnecting_on_purpose_is_not_reported_as_the_trainer_going_away(js):
    found = js(CONNECT + f"""
        connection.disconnect();
        return {{ downs, connected: __trainer.connected, delivered: __trainer.notify({json.dumps(packet(cadence=180))}), seen }};
    """)
    assert found == {"downs": [], "connected": False, "delivered": False, "seen": []}


def test_the_stand_in_serves_uuids_as_numbers_or_strings_and_refuses_others(js):
    found = js("""
        const device = await navigator.bluetooth.requestDevice({ filters: [{ services: [0x1826] }] });
        const server = await device.gatt.connect();
        const service = await server.getPrimaryService("00001826-0000-1000-8000-00805f9b34fb");
        const refused = async (promise) => promise.then(() => "served", (error) => error.name);
        return { service: service.uuid, bikeData: (await service.getCharacteristic("00002ad2-0000-1000-8000-00805f9b34fb")).uuid,
                 controlPoint: (await service.getCharacteristic(0x2ad9)).uuid,
                 noControlPoint: await (async () => {
                   __trainer.controlPoint = false;
                   return refused(service.getCharacteristic("00002ad9-0000-1000-8000-00805f9b34fb"));
                 })(),
                 heartRate: await refused(server.getPrimaryService(0x180d)),
                 range: new Uint8Array((await (await service.getCharacteristic(0x2ad6)).readValue()).buffer) };
    """)
    assert found["service"] == "00001826-0000-1000-8000-00805f9b34fb"
    assert found["bikeData"] == "00002ad2-0000-1000-8000-00805f9b34fb"
    assert found["controlPoint"] == "00002ad9-0000-1000-8000-00805f9b34fb"
    assert found["noControlPoint"] == found["heartRate"] == "NotFoundError"
    assert list(found["range"].values()) == [0, 0, 0xE8, 0x03, 0x0A, 0x00]


def test_bluetooth_is_available_only_where_navigator_has_it(js):
    found = js("""
        const withStandIn = trainer.bluetoothAvailable();
        Object.defineProperty(globalThis.navigator, "bluetooth", { value: undefined, configurable: true });
        return [withStandIn, trainer.bluetoothAvailable()];
    """)
    assert found == [True, False]
