"""The site controlling a smart trainer, run in Node: the Fitness Machine Control Point's messages
(frontend/src/ftms.js) against bytes laid out here from FTMS 1.0 §4.16 (a uint8 op code and its
parameter; each write answered by an indication 0x80, the op code, a uint8 result code; the target
resistance level a sint16 in tenths, the unit of the Supported Resistance Level Range), then the
serialized writes of frontend/src/trainerControl.js on a control point faked here, on a clock the test
moves, and through frontend/src/trainer.js on the stand-in navigator.bluetooth."""

import json
import struct

import pytest

from .nodejs import FRONTEND, ROOT, imported, package, printed, run

# FTMS 1.0 §4.16.1, Table 4.15 (op codes) and Table 4.24 (result codes).
REQUEST_CONTROL, SET_TARGET_RESISTANCE_LEVEL, RESPONSE_CODE = 0x00, 0x04, 0x80
SUCCESS, NOT_SUPPORTED, INVALID_PARAMETER, OPERATION_FAILED, CONTROL_NOT_PERMITTED = 1, 2, 3, 4, 5
ANSWER_MS = 2000  # how long the ride waits for an indication (docs/ride.md)


def request_control() -> str:
    return struct.pack("<B", REQUEST_CONTROL).hex(" ")


def set_level(tenths: int) -> str:
    """Set Target Resistance Level: op code, sint16 level in tenths, little-endian."""
    return struct.pack("<Bh", SET_TARGET_RESISTANCE_LEVEL, tenths).hex(" ")


def indication(op: int, result: int) -> str:
    return struct.pack("<BBB", RESPONSE_CODE, op, result).hex(" ")


def range_value(minimum, maximum, increment):
    """0x2AD6: sint16 minimum, sint16 maximum, uint16 increment, in tenths of a level (FTMS 1.0 §4.13)."""
    return struct.pack("<hhH", minimum, maximum, increment).hex()


SETUP = """
const view = (hex) => {
  const bytes = Buffer.from(hex.replace(/\\s+/g, ""), "hex");
  return new DataView(new Uint8Array(bytes).buffer);
};
const hex = (bytes) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(" ");
// A clock the test moves: timers fire only in run(ms).
const clock = {
  now: 0, timers: [],
  setTimeout(fn, ms) { const timer = { fn, at: clock.now + ms }; clock.timers.push(timer); return timer; },
  clearTimeout(timer) { clock.timers = clock.timers.filter((one) => one !== timer); },
  async run(ms) {
    clock.now += ms;
    for (const timer of clock.timers.filter((one) => one.at <= clock.now)) { clock.clearTimeout(timer); timer.fn(); }
    await settle();
  },
};
// Promise callbacks run to the end (writes resolved, answers taken): no timer involved.
const settle = async () => { for (let i = 0; i < 20; i += 1) await new Promise((done) => setImmediate(done)); };
// A control point: every write logged ("write 04 e8 03"); indicate(hex) answers as a trainer does.
const fakePoint = () => {
  const point = new EventTarget();
  point.log = [];
  point.failing = false;
  point.writeValueWithResponse = async (bytes) => {
    point.log.push(`write ${hex(bytes)}`);
    if (point.failing) throw new DOMException("GATT operation failed for unknown reason.", "NetworkError");
  };
  point.indicate = async (answer) => {
    point.log.push(`indicate ${answer}`);
    point.value = view(answer);
    point.dispatchEvent(new Event("characteristicvaluechanged"));
    await settle();
  };
  return point;
};
const statuses = [];
const newControl = () => control.controlTrainer({ onStatus: (status) => statuses.push(status), timers: clock });
"""


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(body) -> the JSON value the async function `body` returns, with `ftms`, `control` (trainerControl.js),
    `trainer` (trainer.js) and the stand-in navigator.bluetooth (`__trainer`)."""
    folder = package(tmp_path_factory.mktemp("trainer_control_js"),
                     [FRONTEND / "ftms.js", FRONTEND / "trainerControl.js", FRONTEND / "trainer.js", FRONTEND / "bluetoothLink.js",
                      ROOT / "tests" / "e2e" / "bluetooth_standin.js"])
    setup = ["globalThis.navigator ??= {};",
             imported(folder, standin="bluetooth_standin.js", ftms="ftms.js", control="trainerControl.js",
                      trainer="trainer.js"), SETUP]
    return lambda body: run(*setup, printed(body))


# --- the messages ---------------------------------------------------------------------------------

def test_request_control_is_its_op_code_alone(js):
    assert js("return hex(ftms.requestControl());") == request_control() == "00"


def test_the_target_resistance_level_is_a_signed_16_bit_count_of_tenths(js):
    levels = [0, 13.7, 100, 24.5, 25.6, 200, -5, 0.04, 3276.7]
    found = js(f"return {json.dumps(levels)}.map((level) => hex(ftms.setTargetResistanceLevel(level)));")
    assert found == [set_level(t) for t in (0, 137, 1000, 245, 256, 2000, -50, 0, 32767)]
    assert found[1] == "04 89 00" and found[6] == "04 ce ff"  # 137 = 0x0089; -50 = 0xffce


def test_an_indication_gives_the_op_code_it_answers_and_its_result(js):
    answers = [indication(op, result) for op in (REQUEST_CONTROL, SET_TARGET_RESISTANCE_LEVEL)
               for result in (SUCCESS, NOT_SUPPORTED, INVALID_PARAMETER, OPERATION_FAILED, CONTROL_NOT_PERMITTED)]
    found = js(f"return {json.dumps(answers)}.map((answer) => ftms.parseControlResponse(view(answer)));")
    assert found == [{"requestOp": op, "result": result} for op in (0, 4) for result in (1, 2, 3, 4, 5)]


def test_what_is_not_an_indication_of_a_response_is_null(js):
    found = js(f"""return [{json.dumps(indication(4, 1)[:-3])}, "", "04 89 00", {json.dumps(indication(4, 1) + " 07")}]
                   .map((answer) => ftms.parseControlResponse(view(answer)));""")
    assert found == [None, None, None, {"requestOp": 4, "result": 1}]  # short, empty, a request echoed; extra bytes ignored


def test_a_resistance_percent_becomes_a_level_of_the_range_in_whole_increments(js):
    found = js("""
        const range = (minimum, maximum, increment) => ({ minimum, maximum, increment });
        return [
          [0, 55, 100, 120, -5].map((p) => ftms.targetLevel(p, range(0, 100, 1))),
          [0, 55, 100, 30].map((p) => ftms.targetLevel(p, range(1, 24, 1))),
          [40, 100].map((p) => ftms.targetLevel(p, range(-10, 24.5, 0.5))),
          [100, 96].map((p) => ftms.targetLevel(p, range(0, 10.5, 1))),
          [55].map((p) => ftms.targetLevel(p, range(0, 24, 0))),
          [55, 37.25, 130].map((p) => ftms.targetLevel(p, null)),
        ];
    """)
    assert found == [
        [0, 55, 100, 100, 0],      # levels 0-100: the percent; beyond it, clamped
        [1, 14, 24, 8],            # 1-24: 1 + 0.55 x 23 = 13.65 -> 14; 1 + 0.3 x 23 = 7.9 -> 8
        [4, 24.5],                 # -10 to 24.5 by 0.5: -10 + 0.4 x 34.5 = 3.8 -> 4.0 (28 steps of 0.5)
        [10, 10],                  # 0-10.5 by 1: never beyond the maximum in whole steps (10.5 is not one)
        [13.2],                    # an increment of 0 read as the resolution, 0.1: 0.55 x 24
        [55, 37.3, 100],           # no range: the level is a percent, to a tenth
    ]


# --- one write at a time --------------------------------------------------------------------------

def test_control_is_asked_for_first_and_each_write_waits_for_its_indication_and_only_the_latest_is_written(js):
    found = js(f"""
        const point = fakePoint();
        const trainer = newControl();
        trainer.attach(point, {{ minimum: 0, maximum: 200, increment: 1 }});
        trainer.set(50);
        await settle();
        const beforeAnswer = [...point.log];
        await point.indicate({json.dumps(indication(0, 1))});
        const afterControl = [...point.log];
        trainer.set(55); trainer.set(60); trainer.set(65);  // the rider presses -> three times while 50 % is written
        await settle();
        const whileWaiting = [...point.log];
        await point.indicate({json.dumps(indication(4, 1))});
        const percentAfterFirst = trainer.acknowledgedPercent;
        await point.indicate({json.dumps(indication(4, 1))});
        trainer.set(65);  // the same again (a cadence change): nothing to write
        await settle();
        return {{ beforeAnswer, afterControl, whileWaiting, log: point.log, percentAfterFirst,
                 acknowledged: trainer.acknowledgedPercent, statuses }};
    """)
    assert found["beforeAnswer"] == [f"write {request_control()}"]  # control first, and nothing until it is answered
    assert found["afterControl"] == [f"write {request_control()}", f"indicate {indication(0, 1)}", f"write {set_level(1000)}"]
    assert found["whileWaiting"] == found["afterControl"]  # no second write before the first's indication
    assert found["log"] == found["afterControl"] + [
        f"indicate {indication(4, 1)}", f"write {set_level(1300)}", f"indicate {indication(4, 1)}"]  # 65 % of 0-200: 130.0
    assert (found["percentAfterFirst"], found["acknowledged"]) == (50, 65)
    assert [s["state"] for s in found["statuses"]] == ["asking", "setting", "set", "setting", "set", "set"]
    assert found["statuses"][2] == {"state": "set", "percent": 50, "level": 100}


def test_a_trainer_that_refuses_control_gets_no_resistance_and_is_asked_again_at_the_next_change(js):
    found = js(f"""
        const results = {{}};
        for (const refusal of [{NOT_SUPPORTED}, {CONTROL_NOT_PERMITTED}, {OPERATION_FAILED}]) {{
          const point = fakePoint();
          const trainer = newControl();
          statuses.length = 0;
          trainer.attach(point, null);
          trainer.set(40);
          await settle();
          await point.indicate(hex([0x80, 0x00, refusal]));
          const refused = {{ log: [...point.log], status: statuses.at(-1), message: control.controlMessage(statuses.at(-1)) }};
          trainer.set(45);
          await settle();
          await point.indicate({json.dumps(indication(0, 1))});
          results[refusal] = {{ refused, log: point.log, acknowledged: trainer.acknowledgedPercent }};
        }}
        return results;
    """)
    for refusal, outcome in found.items():
        assert outcome["refused"]["log"] == [f"write {request_control()}", f"indicate {indication(0, int(refusal))}"]
        assert outcome["refused"]["status"] == {"state": "refused", "during": "control", "result": int(refusal)}
        assert "The ride goes on reading it" in outcome["refused"]["message"]
        assert outcome["log"][2:] == [f"write {request_control()}", f"indicate {indication(0, 1)}", f"write {set_level(450)}"]
    assert "“not supported”" in found[str(NOT_SUPPORTED)]["refused"]["message"]
    assert "set it on the trainer" in found[str(NOT_SUPPORTED)]["refused"]["message"]
    assert "“control not permitted”" in found[str(CONTROL_NOT_PERMITTED)]["refused"]["message"]
    assert "another app" in found[str(CONTROL_NOT_PERMITTED)]["refused"]["message"]
    assert "“operation failed”" in found[str(OPERATION_FAILED)]["refused"]["message"]


def test_a_refused_resistance_is_told_and_not_taken_as_set_and_control_taken_back_is_asked_for_again(js):
    found = js(f"""
        const point = fakePoint();
        const trainer = newControl();
        trainer.attach(point, {{ minimum: 0, maximum: 100, increment: 1 }});
        trainer.set(50);
        await settle();
        await point.indicate({json.dumps(indication(0, 1))});
        await point.indicate({json.dumps(indication(4, 1))});
        trainer.set(55);
        await settle();
        await point.indicate({json.dumps(indication(4, INVALID_PARAMETER))});
        const invalid = {{ status: statuses.at(-1), message: control.controlMessage(statuses.at(-1)), acknowledged: trainer.acknowledgedPercent }};
        trainer.set(60);
        await settle();
        await point.indicate({json.dumps(indication(4, CONTROL_NOT_PERMITTED))});
        const taken = {{ status: statuses.at(-1), acknowledged: trainer.acknowledgedPercent }};
        trainer.set(65);
        await settle();
        await point.indicate({json.dumps(indication(0, 1))});
        await point.indicate({json.dumps(indication(4, 1))});
        return {{ invalid, taken, log: point.log.filter((line) => line.startsWith("write")), acknowledged: trainer.acknowledgedPercent }};
    """)
    assert found["invalid"]["status"] == {"state": "refused", "during": "resistance", "result": 3, "percent": 55, "level": 55}
    assert found["invalid"]["message"] == "Your trainer refused 55 % (“invalid parameter”): its resistance is not what you chose."
    assert found["invalid"]["acknowledged"] == 50 and found["taken"]["acknowledged"] == 50
    assert found["taken"]["status"]["result"] == CONTROL_NOT_PERMITTED
    assert found["log"] == [f"write {w}" for w in (request_control(), set_level(500), set_level(550), set_level(600),
                                                    request_control(), set_level(650))]
    assert found["acknowledged"] == 65


def test_a_write_unanswered_for_two_seconds_is_given_up_told_and_a_late_or_stray_answer_changes_nothing(js):
    found = js(f"""
        const point = fakePoint();
        const trainer = newControl();
        trainer.attach(point, null);
        trainer.set(50);
        await settle();
        await point.indicate({json.dumps(indication(0, 1))});
        await point.indicate({json.dumps(indication(0, 1))});  // a stray answer to another op: 50 % still waits
        await clock.run({ANSWER_MS - 1});
        const justBefore = {{ log: [...point.log], status: statuses.at(-1) }};
        trainer.set(55);  // changed while 50 % waits: written once it is given up
        await clock.run(1);
        const givenUp = {{ status: statuses.find((status) => status.state === "silent"), log: [...point.log] }};
        await point.indicate({json.dumps(indication(4, 1))});  // 55 % answered
        await point.indicate({json.dumps(indication(4, 1))});  // a late answer to nothing
        return {{ justBefore, givenUp, message: control.controlMessage(givenUp.status), log: point.log,
                 acknowledged: trainer.acknowledgedPercent, last: statuses.at(-1), timers: clock.timers.length }};
    """)
    writes_before = [f"write {request_control()}", f"indicate {indication(0, 1)}", f"write {set_level(500)}",
                     f"indicate {indication(0, 1)}"]
    assert found["justBefore"] == {"log": writes_before, "status": {"state": "setting", "percent": 50, "level": 50}}
    assert found["givenUp"]["status"] == {"state": "silent", "during": "resistance", "percent": 50, "level": 50}
    assert found["givenUp"]["log"] == writes_before + [f"write {set_level(550)}"]
    assert found["message"] == ("Your trainer did not confirm 50 % within 2 s: its resistance may not be what you chose. "
                                "Change it to try again.")
    assert found["acknowledged"] == 55 and found["last"] == {"state": "set", "percent": 55, "level": 55}
    assert found["timers"] == 0  # every wait ended: nothing left to fire


def test_a_trainer_silent_to_the_request_for_control_is_told_and_asked_again_at_the_next_change(js):
    found = js(f"""
        const point = fakePoint();
        const trainer = newControl();
        trainer.attach(point, null);
        trainer.set(50);
        await settle();
        await clock.run({ANSWER_MS});
        const silent = statuses.at(-1);
        trainer.set(55);
        await settle();
        return {{ silent, message: control.controlMessage(silent), log: point.log }};
    """)
    assert found["silent"] == {"state": "silent", "during": "control"}
    assert "did not answer the request for control within 2 s" in found["message"]
    assert found["log"] == [f"write {request_control()}", f"write {request_control()}"]


def test_a_write_the_browser_rejects_is_told_as_unanswered(js):
    found = js("""
        const point = fakePoint();
        point.failing = true;
        const trainer = newControl();
        trainer.attach(point, null);
        await settle();
        return { status: statuses.at(-1), timers: clock.timers.length };
    """)
    assert found == {"status": {"state": "silent", "during": "control"}, "timers": 0}


def test_control_is_lost_with_the_trainer_and_asked_for_again_when_it_is_back_then_the_latest_resistance_set(js):
    found = js(f"""
        const point = fakePoint();
        const trainer = newControl();
        trainer.attach(point, {{ minimum: 0, maximum: 100, increment: 1 }});
        trainer.set(50);
        await settle();
        await point.indicate({json.dumps(indication(0, 1))});
        trainer.detach();  // gone while 50 % waits for its answer
        await point.indicate({json.dumps(indication(4, 1))});  // nobody listens any more
        trainer.set(70);  // the rider goes on while it is away: nothing written
        await settle();
        const away = {{ log: [...point.log], acknowledged: trainer.acknowledgedPercent ?? null, timers: clock.timers.length }};
        const back = fakePoint();
        trainer.attach(back, {{ minimum: 0, maximum: 200, increment: 1 }});
        await settle();
        await back.indicate({json.dumps(indication(0, 1))});
        await back.indicate({json.dumps(indication(4, 1))});
        return {{ away, back: back.log, acknowledged: trainer.acknowledgedPercent }};
    """)
    assert found["away"]["log"][-1] == f"indicate {indication(4, 1)}" and len(found["away"]["log"]) == 4
    assert found["away"]["acknowledged"] is None and found["away"]["timers"] == 0
    assert found["back"] == [f"write {request_control()}", f"indicate {indication(0, 1)}", f"write {set_level(1400)}",
                             f"indicate {indication(4, 1)}"]  # 70 % of its new range 0-200
    assert found["acknowledged"] == 70


# --- through trainer.js on the stand-in navigator.bluetooth -----------------------------------------

def test_a_trainer_reporting_no_level_has_the_resistance_it_confirmed_and_is_controlled_again_after_a_drop_out(js):
    cadence_only = struct.pack("<HH", 0x0005, 180).hex()  # More Data set, cadence 90 rpm (half-rpm units), no level
    with_level = struct.pack("<HHh", 0x0025, 180, 30).hex()  # cadence and a resistance level of 30
    found = js(f"""
        __trainer.range = {json.dumps(range_value(0, 1000, 10))};
        const seen = [];
        const connection = await trainer.connectTrainer({{ onData: (data) => seen.push(data.resistance ?? null),
          onControl: (status) => statuses.push(status), retryMs: [0], timers: clock }});
        connection.setResistance(40);
        await settle();
        __trainer.notify({json.dumps(cadence_only)});
        __trainer.disconnect();
        await clock.run(0);  // back after retryMs: control asked for again, the resistance wanted set again
        connection.setResistance(60);
        await settle();
        __trainer.notify({json.dumps(cadence_only)});
        __trainer.notify({json.dumps(with_level)});  // once it reports a level, that is read
        __trainer.notify({json.dumps(cadence_only)});  // and a packet without one carries none (its last holds: rideTrainer.js)
        connection.disconnect();
        return {{ seen, controlLog: __trainer.controlLog, overlaps: __trainer.overlaps, states: statuses.map((s) => s.state),
                 subscribed: __trainer.calls.filter((call) => call === "startNotifications 2ad9").length }};
    """)
    assert found["controlLog"] == [
        f"write {request_control()}", f"indicate {indication(0, 1)}", f"write {set_level(400)}", f"indicate {indication(4, 1)}",
        f"write {request_control()}", f"indicate {indication(0, 1)}", f"write {set_level(400)}", f"indicate {indication(4, 1)}",
        f"write {set_level(600)}", f"indicate {indication(4, 1)}",
    ]
    assert found["seen"] == [40, 60, 30, None] and found["overlaps"] == 0 and found["subscribed"] == 2
    assert found["states"] == ["asking", "setting", "set", "asking", "setting", "set", "setting", "set"]


def test_a_trainer_without_a_control_point_is_read_and_the_rider_told_it_cannot_be_set(js):
    found = js("""
        __trainer.controlPoint = false;
        const seen = [];
        const connection = await trainer.connectTrainer({ onData: (data) => seen.push(data), onControl: (status) => statuses.push(status),
                                                          timers: clock });
        connection.setResistance(40);
        await settle();
        __trainer.notify("0500b400");
        connection.disconnect();
        return { statuses, message: control.controlMessage(statuses[0]), seen, writes: __trainer.controlLog };
    """)
    assert found["statuses"] == [{"state": "none"}] and found["writes"] == []
    assert found["message"].startswith("This trainer cannot be set from here")
    assert found["seen"][0]["cadence"] == 90 and "resistance" not in found["seen"][0]  # left to the page's control
