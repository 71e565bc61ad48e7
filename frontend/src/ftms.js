// What a smart trainer sends over the Bluetooth Fitness Machine Service (FTMS 1.0, service 0x1826),
// read from the DataViews Web Bluetooth gives. No page: runs in a browser and in Node
// (tests/integration/test_ftms_js.py).
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

// Whether a reading's cadence is one the telemetry API takes (0–300 rpm): a glitch (0xFFFF is
// 32767.5 rpm) would otherwise get the whole batch it rides in refused.
export const CADENCE_MAX_RPM = 300;
export const isPlausible = ({ cadence }) => cadence === undefined || cadence <= CADENCE_MAX_RPM;
