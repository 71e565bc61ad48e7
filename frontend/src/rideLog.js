// What the rider rode, moment by moment (this page's clock, ms): the on-screen bike's settings as they
// were set, a smart trainer's readings as they arrived, when the trainer was lost, and a heart-rate
// strap's bpm as they arrived (sent with a second while at most HEART_RATE_FRESH_MS old). A second of the
// race is sampled as it began, so a page woken late (a hidden tab whose timers Chrome throttles) still
// sends each second as it was ridden. Runs in a browser and in Node (tests/integration/test_ride_js.py).

export const QUIET_MS = 3000; // a trainer silent this long is read as not pedalling
// A strap's bpm older than this at a second's start is not sent with it: the strap has gone quiet (they
// notify about once a second), and a heart rate is not made up from an older one.
export const HEART_RATE_FRESH_MS = 3000;
export const BIKE = "bike"; // the on-screen bike
export const TRAINER = "trainer"; // a smart trainer, connected
export const LOST = "lost"; // a smart trainer gone away (reconnecting), or not connected again after a reload

// The last entry of `list` (in time order) at or before `at`.
function lastAt(list, at) {
  for (let i = list.length - 1; i >= 0; i -= 1) if (list[i].at <= at) return list[i];
  return null;
}

// `list` without what no moment from `from` on reads: the entries from `from`, and the one before.
function since(list, from) {
  const first = list.findIndex((entry) => entry.at > from);
  return first === -1 ? list.slice(-1) : list.slice(Math.max(0, first - 1));
}

export class RideLog {
  constructor(at, { cadence, resistance }, mode = BIKE) {
    this.settings = [{ at, cadence, resistance }];
    this.modes = [{ at, mode }];
    this.readings = [];
    this.heartRates = [];
  }

  bike(at, cadence, resistance) {
    this.settings.push({ at, cadence, resistance });
  }

  // The ride is on `mode` from `at`: BIKE, TRAINER (connected again: readings before `at` are not its) or LOST.
  ride(at, mode) {
    this.modes.push({ at, mode });
  }

  get mode() {
    return this.modes[this.modes.length - 1].mode;
  }

  // A trainer's reading ({cadence, resistance, power, ...}, each as it last said) as it arrived.
  reading(at, reading) {
    this.readings.push({ ...reading, at });
  }

  // A heart-rate strap's bpm as it arrived; null: the strap has none to give from `at` (lost, no skin
  // contact, disconnected).
  heartRate(at, bpm) {
    this.heartRates.push({ at, bpm });
  }

  // The strap's bpm at `at`, or undefined: none, or none in the HEART_RATE_FRESH_MS before it.
  heartRateAt(at) {
    const said = lastAt(this.heartRates, at);
    return said && said.bpm !== null && at - said.at < HEART_RATE_FRESH_MS ? said.bpm : undefined;
  }

  // What was ridden at `at`: {cadence, resistance, power, heartRate, source} (heartRate: undefined
  // without a fresh one), or null when nobody knows (the trainer lost, or connected and silent since):
  // such a second is not sent, never made up.
  at(at) {
    const ridden = this.#ridden(at);
    return ridden && { ...ridden, heartRate: this.heartRateAt(at) };
  }

  #ridden(at) {
    const { mode, at: from } = lastAt(this.modes, at) ?? this.modes[0];
    const setting = lastAt(this.settings, at) ?? this.settings[0];
    if (mode === BIKE) return { cadence: setting.cadence, resistance: setting.resistance, source: BIKE };
    if (mode === LOST) return null;
    const said = lastAt(this.readings, at);
    if (!said || said.at < from) return null;
    // Silent: not pedalling; a trainer that measures power is at 0 W then (a power class counts the second as 0 J).
    if (at - said.at >= QUIET_MS) {
      return { cadence: 0, resistance: setting.resistance, ...(said.power === undefined ? {} : { power: 0 }), source: TRAINER };
    }
    return { cadence: said.cadence ?? 0, resistance: said.resistance ?? setting.resistance, power: said.power, source: TRAINER };
  }

  // Forgets what no moment from `from` on reads.
  forget(from) {
    this.settings = since(this.settings, from);
    this.modes = since(this.modes, from);
    this.readings = since(this.readings, from);
    this.heartRates = since(this.heartRates, from);
  }
}
