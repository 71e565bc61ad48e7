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

// The rules, by id: the sentence a racer and an admin read, and which seconds of a ride broke it.
// samples: [[second, cadence, resistance, output, heartRate], ...] sorted by second (GET .../history).
const CADENCE_HELD_RPM = 170;
const CADENCE_HELD_SECONDS = 10;
const OUTPUT_HELD = 250;
const OUTPUT_HELD_SECONDS = 60;
const CADENCE_JUMP_RPM = 80;

export const RULES = {
  "cadence-held": {
    sentence: `cadence above ${CADENCE_HELD_RPM} rpm for ${CADENCE_HELD_SECONDS} s or more`,
    on: "cadence", // what a chart marks at the seconds that broke it
    // Runs of consecutive seconds above the cadence, at least CADENCE_HELD_SECONDS long.
    seconds: (samples) => runs(samples, (sample) => sample[1] > CADENCE_HELD_RPM)
      .filter((run) => run.length >= CADENCE_HELD_SECONDS).flat(),
  },
  "output-held": {
    sentence: `average output above ${OUTPUT_HELD} over ${OUTPUT_HELD_SECONDS} s`,
    on: "output",
    // The seconds of every window of OUTPUT_HELD_SECONDS consecutive seconds whose average is above.
    seconds: (samples) => {
      const marked = new Set();
      const bySecond = new Map(samples.map((sample) => [sample[0], sample[3]]));
      for (const [start] of samples) {
        let sum = 0;
        for (let s = start; s < start + OUTPUT_HELD_SECONDS; s += 1) sum += bySecond.get(s) ?? 0;
        if (sum / OUTPUT_HELD_SECONDS > OUTPUT_HELD) {
          for (let s = start; s < start + OUTPUT_HELD_SECONDS; s += 1) if (bySecond.has(s)) marked.add(s);
        }
      }
      return [...marked].sort((a, b) => a - b);
    },
  },
  "cadence-jump": {
    sentence: `cadence rising ${CADENCE_JUMP_RPM} rpm or more in one second`,
    on: "cadence",
    // The seconds whose cadence is that much above the second before's.
    seconds: (samples) => samples.filter((sample, i) => i > 0 && samples[i - 1][0] === sample[0] - 1
      && sample[1] - samples[i - 1][1] >= CADENCE_JUMP_RPM).map((sample) => sample[0]),
  },
};

// The sentence for a rule id; an id this page does not know reads as itself.
export const ruleSentence = (rule) => RULES[rule]?.sentence ?? rule;

// Why a result is under review or disqualified, for the racer: "Under review: cadence above … ."
export function reviewReason(review, rules = [], note = null) {
  const label = reviewLabel(review);
  if (!label || review === "cleared") return note ? `Cleared: ${note}` : null;
  const sentences = (rules || []).map(ruleSentence);
  const why = sentences.length ? `: ${sentences.join("; ")}` : "";
  const head = `${label[0].toUpperCase()}${label.slice(1)}${why}.`;
  return note ? `${head} ${review === "disqualified" ? "The admin's note" : "Note"}: ${note}` : head;
}

// What a chart marks for a rule: "output" or "cadence".
export const ruleMarksOn = (rule) => RULES[rule]?.on ?? "output";

// The seconds of a ride that broke `rule` (sorted), [] for a rule this page cannot locate.
export const brokenSeconds = (rule, samples) => (RULES[rule] ? RULES[rule].seconds(samples || []) : []);

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

// Runs of consecutive seconds whose sample passes `test`: [[second, ...], ...].
function runs(samples, test) {
  const found = [];
  let current = [];
  let previous = null;
  for (const sample of samples) {
    const continues = previous !== null && sample[0] === previous + 1;
    if (!test(sample) || !continues) {
      if (current.length) found.push(current);
      current = [];
    }
    if (test(sample)) current.push(sample[0]);
    previous = sample[0];
  }
  if (current.length) found.push(current);
  return found;
}
