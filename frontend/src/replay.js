// A settled race watched again, as arithmetic with no page: from the replay the API gives
// (GET /races/{raceId}/replay: every racer's cumulative score at every step), the board as it stood at
// any step, each row's movement since an earlier step, who led from which step to which, and the
// field's bands. Runs in a browser and in Node (tests/integration/test_replay_js.py).
//
// Steps are the replay's: step k holds the scores after the race's second k × step (step is 1 for a
// race of 300 s or less, so step k is second k). The answer is read once into one typed array of every
// racer's score at every step. A step's board is its racers' indexes sorted in the boards' order, from
// the order of the step sorted last (played or scrubbed, the next step's order is nearly the same: the
// sort's runs make it about one pass); boards are kept for the steps asked again (a row's movement
// needs two). A board's rows are objects only for the places a page shows.
import { byBoardOrder } from "./push.js";
import { scoreBins } from "./rideFeel.js";

const KEPT_BOARDS = 64; // boards kept for steps asked again (a scrubber going back and forth, movement's earlier step)

export function replayOf(answer) {
  const racers = answer.racers || [];
  const count = racers.length;
  const step = answer.step || 1;
  const duration = answer.durationSeconds;
  const rows = answer.scores || [];
  const steps = Math.max(1, ...rows.map((row) => row.length), count ? 0 : Math.ceil(duration / step));
  const scores = new Float64Array(steps * count); // step-major: scores[k * count + i] is racer i's after step k
  rows.forEach((row, i) => {
    let last = 0;
    for (let k = 0; k < steps; k += 1) {
      last = k < row.length ? row[k] : last; // a short row holds its last score to the end
      scores[k * count + i] = last;
    }
  });
  // A disqualified ride has no rank (the contract: rank null, listed last) and no place at any step.
  const disqualified = Uint8Array.from(racers, (racer) => (racer.rank == null ? 1 : 0));
  const indexOf = new Map(racers.map((racer, index) => [racer.racerId, index]));
  // Of a tie in score, the boards' order (push.js byBoardOrder: by racerId) as each racer's place in it.
  const tieOrder = new Int32Array(count);
  racers.map((racer, index) => ({ racerId: racer.racerId, score: 0, index })).sort(byBoardOrder)
    .forEach((racer, place) => { tieOrder[racer.index] = place; });

  const boards = new Map();
  let lastOrder = Array.from({ length: count }, (_, index) => index);
  const stepOf = (k) => Math.min(steps - 1, Math.max(0, Math.round(k)));

  // Step k's board: `order`, the racers' indexes in the boards' order (a disqualified ride last, then
  // score descending, then tieOrder); `ranks`, each racer's rank by index (0 for none).
  function boardAt(k) {
    const at = stepOf(k);
    let board = boards.get(at);
    if (board) {
      boards.delete(at);
      boards.set(at, board); // the most recently asked is kept longest
      return board;
    }
    const base = at * count;
    const order = lastOrder.slice();
    order.sort((a, b) => disqualified[a] - disqualified[b] || scores[base + b] - scores[base + a] || tieOrder[a] - tieOrder[b]);
    lastOrder = order;
    const ranks = new Int32Array(count);
    order.forEach((index, place) => { ranks[index] = disqualified[index] ? 0 : place + 1; });
    board = { order, ranks };
    boards.set(at, board);
    if (boards.size > KEPT_BOARDS) boards.delete(boards.keys().next().value);
    return board;
  }

  const rowOf = (at, index, ranks) => ({ racerId: racers[index].racerId, name: racers[index].name,
    equipment: racers[index].equipment, review: disqualified[index] ? "disqualified" : null,
    score: scores[at * count + index], rank: ranks[index] || null, index });

  // Who led at each step (the board's first ranked row: the highest score, of a tie the first in
  // tieOrder), -1 where no one had scored yet; worked out once, a pass over the scores.
  const leaderAt = new Int32Array(steps).fill(-1);
  for (let k = 0; k < steps; k += 1) {
    let best = -1;
    let bestScore = 0;
    for (let i = 0; i < count; i += 1) {
      const score = scores[k * count + i];
      if (disqualified[i] || !(score > 0)) continue;
      if (best < 0 || score > bestScore || (score === bestScore && tieOrder[i] < tieOrder[best])) {
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
    // The board at step k, its first `limit` places in order: {racerId, name, equipment, review, score,
    // rank, index} (index: the racer's place in the answer; rank null for a disqualified ride).
    board(k, limit = count) {
      const at = stepOf(k);
      const { order, ranks } = boardAt(at);
      return order.slice(0, limit).map((index) => rowOf(at, index, ranks));
    },
    // Racer `racerId`'s row at step k, null if not in the race.
    rowOf(racerId, k) {
      const index = indexOf.get(racerId);
      return index === undefined ? null : rowOf(stepOf(k), index, boardAt(k).ranks);
    },
    // The places each racer (by index) went up from step `since` to step k (negative: down; 0 for a
    // disqualified ride).
    movedSince(k, since) {
      const now = boardAt(k).ranks;
      const before = boardAt(since).ranks;
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
    // The field at step k as `bins` bands of score (rideFeel.js: the ranked rides').
    bins(k, bins) {
      const at = stepOf(k);
      const ranked = [];
      for (let i = 0; i < count; i += 1) if (!disqualified[i]) ranked.push(scores[at * count + i]);
      return scoreBins(ranked, bins);
    },
  };
}
