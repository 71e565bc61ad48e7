// A settled race watched again, as arithmetic with no page: from the replay the API gives
// (GET /races/{raceId}/replay: every racer's cumulative score at every step), the board as it stood at
// any step, each row's movement since an earlier step, who led from which step to which, and the
// field's bands. Runs in a browser and in Node (tests/integration/test_replay_js.py).
//
// Steps are the replay's: step k holds the scores after the race's second k × step (step is 1 for a
// race of 300 s or less, so step k is second k). The answer is read once into one array of every
// racer's score at every step; a board is one sort of the race's racers (the boards' own order,
// push.js byBoardOrder), kept for the steps asked for again (a row's movement needs two).
import { byBoardOrder } from "./push.js";
import { fieldBins } from "./rideFeel.js";

const KEPT_BOARDS = 64; // boards kept for steps asked again (a scrubber going back and forth, movement's earlier step)

export function replayOf(answer) {
  const racers = answer.racers || [];
  const count = racers.length;
  const step = answer.step || 1;
  const duration = answer.durationSeconds;
  const steps = Math.max(1, ...(answer.scores || []).map((row) => row.length), count ? 0 : Math.ceil(duration / step));
  const scores = new Float64Array(steps * count); // step-major: scores[k * count + i] is racer i's after step k
  (answer.scores || []).forEach((row, i) => {
    let last = 0;
    for (let k = 0; k < steps; k += 1) {
      last = k < row.length ? row[k] : last; // a short row holds its last score to the end
      scores[k * count + i] = last;
    }
  });
  // A disqualified ride has no rank (the contract: rank null, listed last) and no place at any step.
  const reviews = racers.map((racer) => (racer.rank == null ? "disqualified" : null));

  const boards = new Map();
  const stepOf = (k) => Math.min(steps - 1, Math.max(0, Math.round(k)));

  // The rows at step k in the boards' order: {racerId, name, equipment, review, score, rank, index}
  // (index: the racer's place in the answer; rank null for a disqualified ride), and each racer's rank
  // by index (0 for none).
  function rowsAt(k) {
    const at = stepOf(k);
    let kept = boards.get(at);
    if (kept) {
      boards.delete(at);
      boards.set(at, kept); // the most recently asked is kept longest
      return kept;
    }
    const base = at * count;
    const rows = racers.map((racer, index) => ({ racerId: racer.racerId, name: racer.name, equipment: racer.equipment,
      review: reviews[index], score: scores[base + index], rank: null, index }));
    rows.sort(byBoardOrder);
    const ranks = new Int32Array(count); // by index: the rank at this step, 0 for none
    rows.forEach((row, place) => {
      if (row.review !== "disqualified") row.rank = place + 1;
      ranks[row.index] = row.rank ?? 0;
    });
    kept = { rows, ranks };
    boards.set(at, kept);
    if (boards.size > KEPT_BOARDS) boards.delete(boards.keys().next().value);
    return kept;
  }

  // Who led at each step (the board's first ranked row: the highest score, of a tie the racerId first
  // by code unit, as byBoardOrder), -1 where no one had scored yet; worked out once, a pass over the scores.
  const leaderAt = new Int32Array(steps).fill(-1);
  for (let k = 0; k < steps; k += 1) {
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < count; i += 1) {
      const score = scores[k * count + i];
      if (reviews[i] || !(score > 0)) continue;
      if (best < 0 || score > bestScore || (score === bestScore && racers[i].racerId < racers[best].racerId)) {
        best = i;
        bestScore = score;
      }
    }
    leaderAt[k] = best;
  }
  const leads = [];
  for (let k = 0; k < steps; k += 1) {
    const i = leaderAt[k];
    if (i < 0) continue;
    const last = leads[leads.length - 1];
    if (last && last.index === i && last.to === k - 1) last.to = k;
    else leads.push({ racerId: racers[i].racerId, name: racers[i].name, index: i, from: k, to: k });
  }

  return {
    raceId: answer.raceId,
    durationSeconds: duration,
    step,
    steps, // step indexes 0 … steps − 1
    racers,
    // The race's second step k shows (0-based, as the history and the board's "second" count them).
    secondOf: (k) => Math.min(duration - 1, stepOf(k) * step),
    // The board at step k, every row in order (rows shared between calls: read them, never change them).
    board: (k) => rowsAt(k).rows,
    // The places each racer (by index) went up from step `since` to step k (negative: down; 0 for a
    // disqualified ride).
    movedSince(k, since) {
      const now = rowsAt(k).ranks;
      const before = rowsAt(since).ranks;
      return Int32Array.from(now, (rank, index) => (rank && before[index] ? before[index] - rank : 0));
    },
    // Who led from which step to which (both included), in order: [{racerId, name, index, from, to}];
    // before the first, no one had scored.
    leads,
    // The lead at step k (one of `leads`), null before anyone scored.
    leadAt(k) {
      const at = stepOf(k);
      return leaderAt[at] < 0 ? null : leads.find((lead) => lead.from <= at && at <= lead.to);
    },
    // The field at step k as `bins` bands of score (rideFeel.fieldBins).
    bins: (k, bins) => fieldBins(rowsAt(k).rows, bins),
  };
}
