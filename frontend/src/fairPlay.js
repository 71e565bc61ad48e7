// Fair play as the pages show it, in one place: a ride's equipment (an icon and a word), its review
// state, and the plausibility rules (docs/fair-play.md) as sentences a person reads, with the seconds
// of a ride that broke each. Pure: no DOM, so Node tests it (tests/integration/test_fair_play_js.py).

// Equipment (contract v1.2, Domain): bikes and trainers are real; the on-screen bike is virtual. A page
// shows the word with its icon: an element of class equipmentClass(...) (style.css draws the icon, an
// SVG, so it shows on any system, emoji font or not).
export const EQUIPMENT = {
  bike: { word: "bike", real: true },
  trainer: { word: "trainer", real: true },
  virtual: { word: "virtual", real: false },
};

// "bike"; an equipment this page does not know reads as its own word ("" for none).
export const equipmentLabel = (equipment) => EQUIPMENT[equipment]?.word ?? String(equipment ?? "");

// "eq eq-bike real": the icon's class (and whether it is real); "eq" alone for an unknown one.
export function equipmentClass(equipment) {
  const known = EQUIPMENT[equipment];
  return known ? `eq eq-${equipment} ${known.real ? "real" : "not-real"}` : "eq";
}

// Review states (the `review` of a board row or a result): what a row says, null for none.
export const REVIEW_LABELS = { pending: "under review", disqualified: "disqualified", cleared: "cleared" };
export const reviewLabel = (review) => REVIEW_LABELS[review] ?? null;

// A rank as a board shows it: a disqualified ride has none ("—"; the server gives null).
export const rankText = (rank) => (rank == null ? "—" : String(rank));

// The rules, by id (docs/fair-play.md, contract v1.3): the sentence a racer and an admin read, and which
// seconds of a ride broke it. Each adds up what every second sent contributes over any window of
// consecutive seconds of race time (a second not sent contributes nothing), as alleycat.rules.fairplay
// judges it; a rule marks, in every window that breaks it, the seconds that contributed.
// samples: [[second, cadence, resistance, output, heartRate, power], ...] sorted by second (GET .../history;
// power null or left out where none was sent).
const CADENCE_HELD_RPM = 170;
const CADENCE_HELD_SECONDS = 10;
const CADENCE_HELD_WINDOW = 20;
const OUTPUT_HELD = 250;
const OUTPUT_HELD_SECONDS = 60;
const CADENCE_SWING_RPM = 200;
const CADENCE_SWING_SECONDS = 10;
const CADENCE_JUMP_RPM = 80;
// A power class's (docs/fair-play.md, "Plausibility in watts"): average watts over a window, and watts the
// cadence cannot carry (above 100 W and above 42 W per rpm, a crank torque of 401 N·m).
const POWER_HELD = [["power-peak", 2700, 5], ["power-minute", 1400, 60], ["power-5-minutes", 800, 300],
  ["power-20-minutes", 600, 1200]];
const WATTS_PER_RPM = 42;
const WATTS_JUDGED_ABOVE = 100;
const POWER_CADENCE_SECONDS = 15;
const POWER_CADENCE_WINDOW = 30;
// Sums in ten-thousandths (the contract's places) are whole numbers: exact, as the server's decimals are.
const exact = (value) => Math.round(value * 10_000);

export const RULES = {
  "cadence-held": {
    sentence: `cadence above ${CADENCE_HELD_RPM} rpm in ${CADENCE_HELD_SECONDS} or more of any ${CADENCE_HELD_WINDOW} seconds`,
    on: "cadence", // what a chart marks at the seconds that broke it
    seconds: (samples) => windowed(samples, CADENCE_HELD_WINDOW, (sample) => (sample[1] > CADENCE_HELD_RPM ? 1 : 0),
      (total) => total >= CADENCE_HELD_SECONDS),
  },
  "output-held": {
    sentence: `average output above ${OUTPUT_HELD} over any ${OUTPUT_HELD_SECONDS} seconds (a second not sent counts 0)`,
    on: "output",
    // Every second sent of a breaking window is marked, an idle one too: the window's sum is the rule.
    seconds: (samples) => windowed(samples, OUTPUT_HELD_SECONDS, (sample) => exact(sample[3]),
      (total) => total > exact(OUTPUT_HELD * OUTPUT_HELD_SECONDS), () => true),
  },
  "cadence-swing": {
    sentence: `cadence rising ${CADENCE_SWING_RPM} rpm or more in all within any ${CADENCE_SWING_SECONDS} seconds`,
    on: "cadence",
    // A second's rise: above the ride's previous second sent, however far back.
    seconds: (samples) => windowed(samples, CADENCE_SWING_SECONDS,
      (sample, previous) => (previous ? Math.max(0, exact(sample[1]) - exact(previous[1])) : 0),
      (total) => total >= exact(CADENCE_SWING_RPM)),
  },
};

// A second's watts (a second without any adds none).
const wattsOf = (sample) => sample[5] ?? 0;

// A power class's rules (contract v1.3, alleycat.rules.fairplay.POWER_RULES, in its order): the cadence's,
// and the watts' in place of output-held. Marked on the power line, but for the cadence's.
export const POWER_RULES = {
  "cadence-held": RULES["cadence-held"],
  "cadence-swing": RULES["cadence-swing"],
  ...Object.fromEntries(POWER_HELD.map(([id, watts, length]) => [id, {
    sentence: `average power above ${watts} W over any ${length} seconds (a second not sent counts 0)`,
    on: "power",
    // As output-held: every second sent of a breaking window is marked, the window's sum is the rule.
    seconds: (samples) => windowed(samples, length, (sample) => exact(wattsOf(sample)),
      (total) => total > exact(watts * length), () => true),
  }])),
  "power-cadence": {
    sentence: `power above ${WATTS_JUDGED_ABOVE} W and above ${WATTS_PER_RPM} W per rpm of the cadence (a crank torque`
      + ` of 401 N·m) in ${POWER_CADENCE_SECONDS} or more of any ${POWER_CADENCE_WINDOW} seconds, on a ride`
      + " whose cadence is ever above 0",
    on: "power",
    // A device that measures no cadence sends 0 throughout: such a ride is not judged.
    seconds: (samples) => (samples.some((sample) => sample[1] > 0)
      ? windowed(samples, POWER_CADENCE_WINDOW, (sample) => (wattsOf(sample) > WATTS_JUDGED_ABOVE
        && exact(wattsOf(sample)) > WATTS_PER_RPM * exact(sample[1]) ? 1 : 0), (total) => total >= POWER_CADENCE_SECONDS)
      : []),
  },
};

// The rules a ride in a class of `metric` is judged by ("power", else an output class's), by id.
export const rulesOf = (metric) => (metric === "power" ? POWER_RULES : RULES);

// Rules no longer checked (contract v1.3), as reviews stored before then name them.
export const RETIRED_RULES = {
  "cadence-jump": {
    sentence: `cadence rising ${CADENCE_JUMP_RPM} rpm or more in one second (a rule before contract v1.3)`,
    on: "cadence",
    // The seconds whose cadence is that much above the second before's.
    seconds: (samples) => samples.filter((sample, i) => i > 0 && samples[i - 1][0] === sample[0] - 1
      && sample[1] - samples[i - 1][1] >= CADENCE_JUMP_RPM).map((sample) => sample[0]),
  },
};

const ruleOf = (rule) => RULES[rule] ?? POWER_RULES[rule] ?? RETIRED_RULES[rule];

// The sentence for a rule id; an id this page does not know reads as itself.
export const ruleSentence = (rule) => ruleOf(rule)?.sentence ?? rule;

// Why a result is under review or disqualified, for the racer: "Under review: cadence above … ."
export function reviewReason(review, rules = [], note = null) {
  const label = reviewLabel(review);
  if (!label || review === "cleared") return note ? `Cleared: ${note}` : null;
  const sentences = (rules || []).map(ruleSentence);
  const why = sentences.length ? `: ${sentences.join("; ")}` : "";
  const head = `${label[0].toUpperCase()}${label.slice(1)}${why}.`;
  return note ? `${head} ${review === "disqualified" ? "The admin's note" : "Note"}: ${note}` : head;
}

// What a chart marks for a rule: "output", "cadence" or "power" (a power class's watts).
export const ruleMarksOn = (rule) => ruleOf(rule)?.on ?? "output";

// The seconds of a ride that broke `rule` (sorted), [] for a rule this page cannot locate.
export const brokenSeconds = (rule, samples) => ruleOf(rule)?.seconds(samples || []) ?? [];

// Sorted seconds as ranges a person reads: [3,4,5,9] -> "3–5, 9".
export function secondRanges(seconds) {
  const parts = [];
  let start = null;
  let last = null;
  for (const second of seconds) {
    if (last !== null && second === last + 1) {
      last = second;
      continue;
    }
    if (start !== null) parts.push(start === last ? `${start}` : `${start}–${last}`);
    start = last = second;
  }
  if (start !== null) parts.push(start === last ? `${start}` : `${start}–${last}`);
  return parts.join(", ");
}

// The seconds of `samples` that `marks` in every window of `length` seconds of race time whose total of
// `adds(sample, previous sample sent)` `breaks`. A window starting between seconds sent holds no more
// than the one starting at its first second sent (nothing adds less than 0): those are the windows to try.
function windowed(samples, length, adds, breaks, marks = (_sample, added) => added > 0) {
  const added = samples.map((sample, i) => adds(sample, i > 0 ? samples[i - 1] : null));
  const covered = new Array(samples.length + 1).fill(0); // +1 where a breaking window starts, -1 past its end
  let total = 0;
  let end = 0;
  for (let start = 0; start < samples.length; start += 1) {
    for (; end < samples.length && samples[end][0] < samples[start][0] + length; end += 1) total += added[end];
    if (breaks(total)) {
      covered[start] += 1;
      covered[end] -= 1;
    }
    total -= added[start];
  }
  const marked = [];
  let inside = 0;
  samples.forEach((sample, i) => {
    inside += covered[i];
    if (inside > 0 && marks(sample, added[i])) marked.push(sample[0]);
  });
  return marked;
}
