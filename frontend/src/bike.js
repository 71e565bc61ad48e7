// A ride's arithmetic, with no page: which second of the race it is, what a second's sample is
// worth, and the virtual bike a rider steers with keys or buttons. Runs in a browser and in Node
// (tests/integration/test_ride_js.py).

export const CADENCE = { min: 0, max: 300, step: 5, unit: "rpm" }; // the contract's ranges
export const RESISTANCE = { min: 0, max: 100, step: 5, unit: "%" };

// One second's output: the contract's formula, the twin of alleycat.scores.output.
export const output = (cadence, resistance) => Math.round((cadence + 35) * (resistance + 65) * 100) / 1e4;

// The race's second at `now` (ms): -1 before its start, `durationSeconds` once it is over.
export function raceSecond(race, now) {
  const elapsed = Math.floor((now - Date.parse(race.startsAt)) / 1000);
  return elapsed < 0 ? -1 : Math.min(elapsed, race.durationSeconds);
}

// The keys that steer the virtual bike: [which, steps].
export const KEYS = {
  ArrowUp: ["cadence", 1],
  ArrowDown: ["cadence", -1],
  ArrowRight: ["resistance", 1],
  ArrowLeft: ["resistance", -1],
};

const within = (range, value) => Math.min(range.max, Math.max(range.min, value));

export class VirtualBike {
  constructor(cadence = 0, resistance = 50) {
    this.cadence = within(CADENCE, cadence);
    this.resistance = within(RESISTANCE, resistance);
  }

  // Moves cadence or resistance by `steps` steps, within its range; whether it changed.
  step(which, steps) {
    const range = which === "cadence" ? CADENCE : RESISTANCE;
    const next = within(range, this[which] + steps * range.step);
    const changed = next !== this[which];
    this[which] = next;
    return changed;
  }

  set(which, value) {
    this[which] = within(which === "cadence" ? CADENCE : RESISTANCE, Number(value) || 0);
  }
}
