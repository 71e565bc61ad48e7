// A ride as a FIT activity file, built in the browser with Garmin's FIT JavaScript SDK (@garmin/fitsdk,
// its Encoder). Built by frontend/build.mjs as a module of its own (assets/fit-<hash>.js) that the racer's
// page imports only when the racer clicks "Download .fit": the SDK (its profile is most of it) costs the
// site's cold start nothing. docs/export.md says what each field holds.
//
// The messages, in the order Garmin's activity files have them: file id; device info (the equipment);
// then for each stint (a run of consecutive seconds ridden: any second missing from the history is a gap)
// a timer start event, a record per second ridden, a timer stop event; one lap and one session over the
// ride (sport cycling: sub-sport indoor cycling for a bike or a trainer, virtual activity for the
// on-screen bike), then the activity. The timer runs only while a stint does: the timer time is the
// seconds ridden, the elapsed time the first second to the end of the last.
//
// A record: timestamp = the race's start + the second; cadence in rpm; heart rate in bpm where one was
// sent; resistance on FIT's relative 0-254 scale; and where the history has the equipment's measured
// watts, power, with a speed and distance from them (below). Alleycat's output, (cadence + 35) x
// (resistance + 65) / 100, is a score, not watts: it is never written as power. A ride without watts (the
// on-screen bike's) has no power, speed or distance at all.
import { Encoder, Profile } from "@garmin/fitsdk";

const SUB_SPORT = { bike: "indoorCycling", trainer: "indoorCycling", virtual: "virtualActivity" };
const EQUIPMENT_NAME = { bike: "Connected bike", trainer: "Smart trainer", virtual: "On-screen bike" };
const FIT_RESISTANCE_MAX = 254; // a record's resistance: "Relative. 0 is none 254 is Max."

// The speed a power holds on a flat road without wind, steady (no acceleration from one second to the
// next): P = v (Crr m g + ½ ρ CdA v²). A 75 kg rider on an 8 kg bike, hoods (CdA 0.30 m²), road tyres on
// tarmac (Crr 0.004), sea-level air (ISA, 1.225 kg/m³); the watts as measured, no drivetrain loss.
// Within 1 km/h of a published fit of Zwift's flat speed for a 75 kg, 175 cm rider, 100-400 W (docs/export.md).
const MASS_KG = 83;
const CDA_M2 = 0.3;
const CRR = 0.004;
const AIR_KG_M3 = 1.225;
const GRAVITY = 9.80665;
const DRAG = 0.5 * AIR_KG_M3 * CDA_M2; // N per (m/s)²
const ROLLING = CRR * MASS_KG * GRAVITY; // N

// v³ + p v = q has one real root for p > 0 (Cardano's formula). m/s.
function speedFor(watts) {
  const p = ROLLING / DRAG;
  const q = watts / DRAG;
  const root = Math.sqrt((q / 2) ** 2 + (p / 3) ** 3);
  return Math.cbrt(q / 2 + root) + Math.cbrt(q / 2 - root);
}

// Normalized power (Allen and Coggan, Training and Racing with a Power Meter): the 30-s rolling average
// from the 30th second on, raised to the 4th power, averaged, its 4th root. Over the seconds with watts,
// in order (a gap closes up, as a stopped timer's would); none under 30 of them.
const NP_WINDOW = 30;
function normalizedPower(watts) {
  if (watts.length < NP_WINDOW) return undefined;
  let window = watts.slice(0, NP_WINDOW).reduce((sum, w) => sum + w, 0);
  let fourths = (window / NP_WINDOW) ** 4;
  for (let i = NP_WINDOW; i < watts.length; i++) {
    window += watts[i] - watts[i - NP_WINDOW];
    fourths += (window / NP_WINDOW) ** 4;
  }
  return Math.round((fourths / (watts.length - NP_WINDOW + 1)) ** 0.25);
}

const sum = (values) => values.reduce((total, v) => total + v, 0);
const mean = (values) => (values.length ? Math.round(sum(values) / values.length) : undefined);
const most = (values) => (values.length ? Math.max(...values) : undefined);
const known = (values) => values.filter((value) => value !== null && value !== undefined);

// startsAt: the race's; equipment: "bike"|"trainer"|"virtual"; samples: the history's rows
// [[second, cadence, resistance, output, heartRate, power], ...] sorted by second. -> the file's bytes,
// or null for a ride without a second (no file).
export function rideFit({ startsAt, equipment, samples }) {
  if (!samples?.length) return null;
  const start = Date.parse(startsAt);
  const at = (second) => new Date(start + second * 1000);
  const first = samples[0][0];
  const last = samples[samples.length - 1][0];
  const begun = at(first);
  const ended = at(last + 1); // the end of the last second ridden

  let distance = 0; // m
  const records = samples.map(([second, cadence, resistance, , heartRate, power]) => {
    const record = { timestamp: at(second), cadence: Math.round(cadence),
      resistance: Math.round((resistance / 100) * FIT_RESISTANCE_MAX), heartRate: heartRate ?? undefined };
    if (power === null || power === undefined) return record;
    const speed = speedFor(Math.round(power));
    distance += speed; // for the second it lasts
    return { ...record, power: Math.round(power), speed, distance };
  });
  const stints = []; // runs of consecutive seconds: {from, to, records}
  samples.forEach(([second], i) => {
    if (i === 0 || second !== samples[i - 1][0] + 1) stints.push({ from: second, records: [] });
    const stint = stints.at(-1);
    stint.to = second;
    stint.records.push(records[i]);
  });
  const watts = known(records.map((record) => record.power));
  const speeds = known(records.map((record) => record.speed));
  const cadences = records.map((record) => record.cadence);
  const beats = known(samples.map((sample) => sample[4]));
  const sport = { sport: "cycling", subSport: SUB_SPORT[equipment] ?? "indoorCycling" };
  const summary = {
    startTime: begun, totalElapsedTime: last - first + 1, totalTimerTime: samples.length, ...sport,
    avgCadence: mean(cadences), maxCadence: most(cadences), avgHeartRate: mean(beats), maxHeartRate: most(beats),
    avgPower: mean(watts), maxPower: most(watts), normalizedPower: normalizedPower(watts),
    totalWork: watts.length ? sum(watts) : undefined, // J: a second's watts for that second
    totalDistance: speeds.length ? distance : undefined,
    avgSpeed: speeds.length ? distance / speeds.length : undefined, maxSpeed: most(speeds),
  };

  const encoder = new Encoder();
  const put = (mesgNum, mesg) => encoder.onMesg(mesgNum, Object.fromEntries(Object.entries(mesg).filter(([, v]) => v !== undefined)));
  put(Profile.MesgNum.FILE_ID, { type: "activity", manufacturer: "development", product: 0, timeCreated: begun });
  put(Profile.MesgNum.DEVICE_INFO, { timestamp: begun, deviceIndex: "creator", manufacturer: "development", product: 0,
    productName: `Alleycat ${EQUIPMENT_NAME[equipment] ?? equipment}` });
  for (const stint of stints) {
    put(Profile.MesgNum.EVENT, { timestamp: at(stint.from), event: "timer", eventType: "start" });
    for (const record of stint.records) put(Profile.MesgNum.RECORD, record);
    put(Profile.MesgNum.EVENT, { timestamp: at(stint.to + 1), event: "timer", eventType: "stopAll" });
  }
  put(Profile.MesgNum.LAP, { messageIndex: 0, timestamp: ended, event: "lap", eventType: "stop", ...summary });
  put(Profile.MesgNum.SESSION, { messageIndex: 0, timestamp: ended, event: "session", eventType: "stop",
    firstLapIndex: 0, numLaps: 1, ...summary });
  put(Profile.MesgNum.ACTIVITY, { timestamp: ended, numSessions: 1, totalTimerTime: samples.length, type: "manual",
    event: "activity", eventType: "stop" });
  return encoder.close();
}
