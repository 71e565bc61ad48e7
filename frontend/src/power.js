// Power classes (contract v1.3), with no page: what a class's metric ranks, how a score of each reads, and
// the whole watts a second's sample carries. Runs in a browser and in Node (tests/integration/test_power_js.py).
//
// A class ranks `output` (the default: the contract's formula of cadence and resistance, summed) or
// `power` (the watts a trainer or power meter measured, summed over the seconds: joules). A power
// class's scores read as kilojoules ("54.3 kJ"); where the seconds ridden are known, with the average
// watts they make (score ÷ seconds).
import { score } from "./dom.js";

export const OUTPUT = "output";
export const POWER = "power";
export const POWER_MAX_W = 3000; // the contract's largest power
export const NO_POWER = "no power"; // a rejected sample's reason: a power class's second without power

// The metrics an admin chooses from, each with what it ranks, for the new-class form.
export const METRICS = [
  { metric: OUTPUT, label: "Output",
    ranks: "Ranks the sum of each second's output (cadence and resistance, by the contract's formula): any bike, "
      + "smart trainer or the on-screen bike can race." },
  { metric: POWER, label: "Power",
    ranks: "Ranks the energy of the watts a trainer or power meter measures (each second's watts summed, shown in kJ): "
      + "only equipment that measures power can race; the on-screen bike cannot join." },
];

// A class's metric as the API answers it: `power`, else `output` (an API before v1.3 has none).
export const metricOf = (item) => (item?.metric === POWER ? POWER : OUTPUT);

const kilojouleFormat = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const wattFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

const NBSP = "\u00a0"; // a number and its unit stay on one line

// Joules as kilojoules, to a tenth: 54321 -> "54.3 kJ" (a no-break space before the unit).
export const kilojoules = (joules) => `${kilojouleFormat.format((Number(joules) || 0) / 1000)}${NBSP}kJ`;

export const watts = (value) => `${wattFormat.format(Math.round(value))}${NBSP}W`;

// The average watts of `joules` over `seconds`, or null where no second is known (none ridden yet).
export function averageWatts(joules, seconds) {
  if (!(seconds > 0) || !Number.isFinite(Number(joules))) return null;
  return Math.round(Number(joules) / seconds);
}

// The seconds a race board's row stands for: its racer's seconds from the race's first up to their last
// accepted (lastSecond + 1). A racer who joined late or skipped seconds rode fewer: their average reads
// lower than they rode, never higher. null before any second.
export const secondsUpTo = (lastSecond) => (Number.isInteger(lastSecond) && lastSecond >= 0 ? lastSecond + 1 : null);

// A score as its class ranks it: kJ for a power class, the output points otherwise.
export const scoreText = (value, metric) => (metric === POWER ? kilojoules(value) : score(value));

// A power class's score with its average watts where the seconds are known: "54.3 kJ · 181 W".
export function scoreWithWatts(joules, seconds, metric) {
  if (metric !== POWER) return score(joules);
  const average = averageWatts(joules, seconds);
  return average === null ? kilojoules(joules) : `${kilojoules(joules)} · ${watts(average)}`;
}

// The watts a second's sample carries: a trainer's reading as whole watts (a negative reading, a trainer
// coasting, is 0), or undefined where it has none or one beyond the contract's range (a garbled packet:
// it would get the whole batch refused).
export function samplePower(power) {
  if (power === undefined || power === null || !Number.isFinite(power)) return undefined;
  const whole = Math.max(0, Math.round(power));
  return whole <= POWER_MAX_W ? whole : undefined;
}

// A second's sample: its fields, with `heartRate` and `power` only where they are known.
export function sample(racerId, second, { cadence, resistance, heartRate, power }) {
  const watts = samplePower(power);
  return { racerId, second, cadence, resistance, ...(heartRate === undefined ? {} : { heartRate }),
    ...(watts === undefined ? {} : { power: watts }) };
}
