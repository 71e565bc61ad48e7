// A ride as a FIT activity file, built in the browser with Garmin's FIT JavaScript SDK (@garmin/fitsdk,
// its Encoder). Built by frontend/build.mjs as a module of its own (assets/fit-<hash>.js) that the racer's
// page imports only when the racer clicks "Download .fit": the SDK (its profile is most of it) costs the
// site's cold start nothing.
//
// The messages, in the order Garmin's activity files have them: file id; device info (the equipment);
// a timer start event; a record per second ridden (timestamp = the race's start + the second; cadence
// in rpm; heart rate in bpm where one was sent; resistance on FIT's relative 0-254 scale); a timer stop
// event; one lap and one session over the ride (sport cycling: sub-sport indoor cycling for a bike or a
// trainer, virtual activity for the on-screen bike), then the activity. No power: Alleycat's output,
// (cadence + 35) x (resistance + 65) / 100, is a score, not watts, and a FIT reader would take a
// record's power as watts.
import { Encoder, Profile } from "@garmin/fitsdk";

const SUB_SPORT = { bike: "indoorCycling", trainer: "indoorCycling", virtual: "virtualActivity" };
const EQUIPMENT_NAME = { bike: "Connected bike", trainer: "Smart trainer", virtual: "On-screen bike" };
const FIT_RESISTANCE_MAX = 254; // a record's resistance: "Relative. 0 is none 254 is Max."

const mean = (values) => (values.length ? Math.round(values.reduce((sum, v) => sum + v, 0) / values.length) : undefined);
const most = (values) => (values.length ? Math.max(...values) : undefined);
const known = (values) => values.filter((value) => value !== null && value !== undefined);

// race: {startsAt}; equipment: "bike"|"trainer"|"virtual"; samples: the history's rows
// [[second, cadence, resistance, output, heartRate], ...] sorted by second. -> the file's bytes.
export function rideFit({ startsAt, equipment, samples }) {
  const start = Date.parse(startsAt);
  const at = (second) => new Date(start + second * 1000);
  const first = samples.length ? samples[0][0] : 0;
  const last = samples.length ? samples[samples.length - 1][0] : 0;
  const begun = at(first);
  const ended = at(last);
  const elapsed = last - first + 1; // s: the seconds from the first ridden to the end of the last
  const cadences = samples.map(([, cadence]) => Math.round(cadence));
  const beats = known(samples.map((sample) => sample[4]));
  const sport = { sport: "cycling", subSport: SUB_SPORT[equipment] ?? "indoorCycling" };
  const summary = {
    startTime: begun, totalElapsedTime: elapsed, totalTimerTime: elapsed, ...sport,
    avgCadence: mean(cadences), maxCadence: most(cadences), avgHeartRate: mean(beats), maxHeartRate: most(beats),
  };

  const encoder = new Encoder();
  const put = (mesgNum, mesg) => encoder.onMesg(mesgNum, Object.fromEntries(Object.entries(mesg).filter(([, v]) => v !== undefined)));
  put(Profile.MesgNum.FILE_ID, { type: "activity", manufacturer: "development", product: 0, timeCreated: begun });
  put(Profile.MesgNum.DEVICE_INFO, { timestamp: begun, deviceIndex: "creator", manufacturer: "development", product: 0,
    productName: `Alleycat ${EQUIPMENT_NAME[equipment] ?? equipment}` });
  put(Profile.MesgNum.EVENT, { timestamp: begun, event: "timer", eventType: "start" });
  for (const [second, cadence, resistance, , heartRate] of samples) {
    put(Profile.MesgNum.RECORD, { timestamp: at(second), cadence: Math.round(cadence),
      resistance: Math.round((resistance / 100) * FIT_RESISTANCE_MAX), heartRate: heartRate ?? undefined });
  }
  put(Profile.MesgNum.EVENT, { timestamp: ended, event: "timer", eventType: "stopAll" });
  put(Profile.MesgNum.LAP, { messageIndex: 0, timestamp: ended, event: "lap", eventType: "stop", ...summary });
  put(Profile.MesgNum.SESSION, { messageIndex: 0, timestamp: ended, event: "session", eventType: "stop",
    firstLapIndex: 0, numLaps: 1, ...summary });
  put(Profile.MesgNum.ACTIVITY, { timestamp: ended, numSessions: 1, totalTimerTime: elapsed, type: "manual",
    event: "activity", eventType: "stop" });
  return encoder.close();
}
