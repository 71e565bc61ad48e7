// Riding with a ghost, as arithmetic with no page: a past ride taken from a race's replay (contract
// v1.2, GET /races/{raceId}/replay), its cumulative score at a second of the race being ridden, and
// the rider's gap to it; which ride "your best" and "the class record" are. Runs in a browser and in
// Node (tests/integration/test_ghost_js.py).
//
// Time is the race's: second s of the race being ridden is second s of the ghost's race. The gap is
// the rider's board row (score and lastSecond, the server's) against the ghost's cumulative score after
// that same lastSecond; once the race is finished, the final score against the ghost's at the race's
// last second (a rider who stopped early is not compared with a ghost that stopped with them).
import { EQUIPMENT } from "./fairPlay.js";
import { kilojoules, POWER } from "./power.js";

// The kinds of ghost a racer picks, and how the ride page names each beside the ghost's name.
export const KINDS = { best: "your best", record: "the class record", racer: "a past racer" };

// The ghost of `racerId` in `replay`: its race, its name and place there, and its cumulative scores
// (a Float64Array; scores[k] after second k × step); null when the racer is not in that replay.
export function ghostOf(replay, racerId) {
  const index = (replay?.racers || []).findIndex((racer) => racer.racerId === racerId);
  if (index < 0) return null;
  const racer = replay.racers[index];
  return {
    raceId: replay.raceId,
    classId: replay.classId,
    startsAt: replay.startsAt,
    durationSeconds: replay.durationSeconds,
    step: Math.max(1, replay.step || 1),
    racerId: racer.racerId,
    name: racer.name,
    equipment: racer.equipment,
    rank: racer.rank ?? null,
    scores: Float64Array.from(replay.scores[index] || []),
  };
}

// The ghost's final score (the last entry of its row; 0 for a ride with no entry).
export const finalScore = (ghost) => (ghost.scores.length ? ghost.scores[ghost.scores.length - 1] : 0);

// The ghost's cumulative score after second `second` of the race (the race's time): 0 before its first
// second; with step > 1, after the last step at or before `second`; past the end of the ghost's
// race, its final score.
export function scoreAt(ghost, second) {
  if (!(second >= 0) || !ghost.scores.length) return 0;
  if (second >= ghost.durationSeconds - 1) return finalScore(ghost);
  const at = Math.floor(second / ghost.step);
  return at < ghost.scores.length ? ghost.scores[at] : finalScore(ghost);
}

// a − b in points, to the nearest tenth, halves away from zero (the same gap reads the same ahead or
// behind). Counted in ten-thousandths (the contract's scores have four places): no binary leftovers.
export function tenthsApart(a, b) {
  const units = Math.round(a * 10_000) - Math.round(b * 10_000);
  const tenths = Math.floor((Math.abs(units) + 500) / 1000);
  return (Math.sign(units) * tenths) / 10 || 0;
}

// The rider's gap to the ghost from their board row (`own`: its score and lastSecond), or null while
// the row has no second. `finished`: the race is over, and `race` the race being ridden: the final
// score against the ghost's at the race's last second. { second, ghostScore, gap } with gap > 0 ahead.
export function gapTo(ghost, own, { race = null, finished = false } = {}) {
  if (!ghost || !own) return null;
  if (finished && race) {
    const second = race.durationSeconds - 1;
    const ghostScore = scoreAt(ghost, second);
    return { second, ghostScore, gap: tenthsApart(own.score ?? 0, ghostScore), final: true };
  }
  if (own.lastSecond == null) return null;
  const ghostScore = scoreAt(ghost, own.lastSecond);
  return { second: own.lastSecond, ghostScore, gap: tenthsApart(own.score ?? 0, ghostScore), final: false };
}

const points = (value) => Math.abs(value).toLocaleString(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

// The gap as the ride page writes it: "+12.3 ahead", "8.1 behind", "level". In a power class (`metric`
// "power": scores are joules) in kilojoules to a tenth, halves away from zero, "+1.2 kJ ahead" (counted
// in tenths of a joule, tenthsApart's: no binary leftovers); a gap under 0.05 kJ is level.
export function gapText(gap, metric = null) {
  if (metric === POWER) {
    const hundredJoules = Math.floor((Math.round(Math.abs(gap) * 10) + 500) / 1000);
    if (hundredJoules === 0) return "level";
    return `${gap > 0 ? "+" : ""}${kilojoules(hundredJoules * 100)} ${gap > 0 ? "ahead" : "behind"}`;
  }
  if (gap > 0) return `+${points(gap)} ahead`;
  if (gap < 0) return `${points(gap)} behind`;
  return "level";
}

// A board row counts toward a best in a class (contract v1.2, Fair play): real equipment, neither
// pending review nor disqualified.
const counts = (item) => EQUIPMENT[item.equipment]?.real === true && item.review !== "pending" && item.review !== "disqualified";

// The racer's best in a class, from the class leaderboard's rows (GET /classes/{classId}/leaderboard):
// their row ({ racerId, name, bestScore, raceId }), or null when they are not on it.
export const bestOnBoard = (items, racerId) => (items || []).find((item) => item.racerId === racerId) ?? null;

// The class record: the class leaderboard's first row, or null for a class with none yet.
export const recordOf = (items) => (items || [])[0] ?? null;

// The racer's best in a class from their own results (GET /racers/{racerId}/results items): the
// finished race of that class that counts with the highest score (the earlier race on a tie, as the
// first to reach it), or null. For a racer beyond the class board's 1,000 rows.
export function bestInResults(items, classId) {
  let best = null;
  for (const item of items || []) {
    if (item.classId !== classId || item.status !== "finished" || !counts(item)) continue;
    if (!best || item.score > best.score || (item.score === best.score && item.startsAt < best.startsAt)) best = item;
  }
  return best;
}

// The finished races of a class's list (GET /classes/{classId}/races items): the ones a racer of a replay
// may be picked from, the latest start first.
export const finishedRaces = (items) => (items || []).filter((race) => race.status === "finished")
  .sort((a, b) => Date.parse(b.startsAt) - Date.parse(a.startsAt));
