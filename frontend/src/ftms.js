// What a smart trainer sends over the Bluetooth Fitness Machine Service (FTMS 1.0, service 0x1826),
// read from the DataViews Web Bluetooth gives, and what the site writes to its control point. No page:
// runs in a browser and in Node (tests/integration/test_ftms_js.py, test_trainer_control_js.py).
//
// Indoor Bike Data (0x2AD2): uint16 flags (little-endian), then the fields the flags name, in the
// order of FIELDS. Bit 0 "More Data" is inverted: Instantaneous Speed is present when it is 0.
// Resistance Level is sint16 with a resolution of 1, as FTMS 1.0 has it and trainers send it (the
// newer GATT Specification Supplement lists one byte; reading one would put every later field off).
//
// Supported Resistance Level Range (0x2AD6): sint16 minimum, sint16 maximum, uint16 increment, each
// in tenths. A trainer without one (or with one whose maximum is not above its minimum) has its level
// taken as a percent already: clamped to 0–100.

const uint8 = (view, at) => view.getUint8(at);
const uint16 = (view, at) => view.getUint16(at, true);
const sint16 = (view, at) => view.getInt16(at, true);

// [what it is, size in bytes, how to read it (only for the fields returned)], the flag bit = index.
const FIELDS = [
  ["speed", 2, (view, at) => uint16(view, at) / 100], // km/h
  ["averageSpeed", 2],
  ["cadence", 2, (view, at) => uint16(view, at) / 2], // rpm
  ["averageCadence", 2],
  ["totalDistance", 3],
  ["resistanceLevel", 2, sint16],
  ["power", 2, sint16], // W
  ["averagePower", 2],
  ["expendedEnergy", 5], // total (uint16), per hour (uint16), per minute (uint8)
  ["heartRate", 1, uint8], // bpm
  ["metabolicEquivalent", 1],
  ["elapsedTime", 2],
  ["remainingTime", 2],
];

// {speed, cadence, resistanceLevel, power, heartRate}: undefined where the flags leave a field out;
// null for a value shorter than its flags announce.
export function parseIndoorBikeData(view) {
  if (view.byteLength < 2) return null;
  const flags = uint16(view, 0);
  const data = { speed: undefined, cadence: undefined, resistanceLevel: undefined, power: undefined, heartRate: undefined };
  let at = 2;
  for (const [bit, [name, size, read]] of FIELDS.entries()) {
    const present = bit === 0 ? !(flags & 1) : Boolean(flags & (1 << bit));
    if (!present) continue;
    if (at + size > view.byteLength) return null;
    if (read) data[name] = read(view, at);
    at += size;
  }
  return data;
}

// {minimum, maximum, increment} in resistance levels, or null for a value too short.
export function parseResistanceRange(view) {
  if (view.byteLength < 6) return null;
  return { minimum: sint16(view, 0) / 10, maximum: sint16(view, 2) / 10, increment: uint16(view, 4) / 10 };
}

export const isUsableRange = (range) => Boolean(range && range.maximum > range.minimum);

// The telemetry's resistance (0–100, to 0.1) for a resistance level: its place in the range, or
// without a usable range the level itself; undefined for no level.
export function resistancePercent(level, range) {
  if (!Number.isFinite(level)) return undefined;
  const percent = isUsableRange(range) ? ((level - range.minimum) / (range.maximum - range.minimum)) * 100 : level;
  return Math.round(Math.min(100, Math.max(0, percent)) * 10) / 10;
}

// Fitness Machine Control Point (0x2AD9, FTMS 1.0 §4.16): a write of a uint8 op code and its
// parameter, each answered by an indication: 0x80, the op code answered, a uint8 result code.
// Set Target Resistance Level (0x04) carries the level as sint16 in tenths, little-endian, the unit of
// the Supported Resistance Level Range; so Auuki/Flux (src/ble/ftms/control-point.js) and
// GoldenCheetah (src/Train/BT40Device.cpp) write it. (Some servers read a single byte, uint8 in
// tenths, as qdomyos-zwift's virtual bike does: the low byte of the two is that byte up to level 25.5.)
export const REQUEST_CONTROL = 0x00;
export const SET_TARGET_RESISTANCE_LEVEL = 0x04;
const RESPONSE_CODE = 0x80;
export const SUCCESS = 1;
export const RESULTS = { 1: "success", 2: "not supported", 3: "invalid parameter", 4: "operation failed", 5: "control not permitted" };
export const NOT_SUPPORTED = 2;
export const CONTROL_NOT_PERMITTED = 5;

export const requestControl = () => Uint8Array.of(REQUEST_CONTROL);

// `level` in resistance levels (tenths kept, the rest rounded).
export function setTargetResistanceLevel(level) {
  const bytes = new Uint8Array(3);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, SET_TARGET_RESISTANCE_LEVEL);
  view.setInt16(1, Math.max(-32768, Math.min(32767, Math.round(level * 10))), true);
  return bytes;
}

// An indication of the control point: {requestOp, result}, or null for anything but a response (too
// short, another op code).
export function parseControlResponse(view) {
  if (view.byteLength < 3 || uint8(view, 0) !== RESPONSE_CODE) return null;
  return { requestOp: uint8(view, 1), result: uint8(view, 2) };
}

// The level to set for a resistance percent (0–100): its place in the range, from its minimum in
// whole increments (rounded to the nearest, never beyond the maximum); without a usable range the
// percent itself, to a tenth (the level is read as a percent then: resistancePercent).
export function targetLevel(percent, range) {
  const share = Math.min(100, Math.max(0, Number(percent) || 0)) / 100;
  if (!isUsableRange(range)) return Math.round(share * 1000) / 10;
  const [minimum, maximum] = [Math.round(range.minimum * 10), Math.round(range.maximum * 10)]; // tenths: whole numbers
  const increment = Math.max(1, Math.round(range.increment * 10));
  const steps = Math.min(Math.round((share * (maximum - minimum)) / increment), Math.floor((maximum - minimum) / increment));
  return (minimum + steps * increment) / 10;
}

// Whether a reading's cadence is one the telemetry API takes (0–300 rpm): a glitch (0xFFFF is
// 32767.5 rpm) would otherwise get the whole batch it rides in refused.
export const CADENCE_MAX_RPM = 300;
export const isPlausible = ({ cadence }) => cadence === undefined || cadence <= CADENCE_MAX_RPM;
