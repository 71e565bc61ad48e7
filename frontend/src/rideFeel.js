// What makes a ride feel like a race, as arithmetic with no page: the time left, the 3-2-1 before the
// start, the riders just ahead and behind, and the field as bands of score. Runs in a browser and in
// Node (tests/integration/test_ride_feel_js.py). The clock is the server's (serverTime.js): `now` is its ms.
import { byBoardOrder } from "./push.js";
import { timeLeft } from "./time.js";

export const COUNT_FROM = 3; // the 3-2-1 before the start

export const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
};

const startOf = (race) => Date.parse(race.startsAt);
const endOf = (race) => startOf(race) + race.durationSeconds * 1000;

// The race's time left at `now` as it reads ("4:12 left"), counted in whole seconds rounded up, so it
// reads durationSeconds − k during the race's second k ("Second k+1 of …"); null outside the race.
export function timeLeftText(race, now) {
  if (now < startOf(race) || now >= endOf(race)) return null;
  return `${timeLeft(endOf(race) - now)} left`;
}

// The big count before the start: "3", "2", "1" in the last three seconds before it, "Go" during the
// race's first second; null otherwise.
export function countIn(race, now) {
  const until = startOf(race) - now;
  if (until > 0 && until <= COUNT_FROM * 1000) return String(Math.ceil(until / 1000));
  if (until <= 0 && until > -1000) return "Go";
  return null;
}

// The race's moment at `now`: "before", "3", "2", "1", "Go", "live", "over".
const MOMENTS = ["before", "3", "2", "1", "Go", "live", "over"];
export function momentOf(race, now) {
  const count = countIn(race, now);
  if (count !== null) return count;
  return now >= endOf(race) ? "over" : now >= startOf(race) ? "live" : "before";
}

// The moment to show, going from `before` to `now`: never back (the page's estimate of the server's
// clock may move back a little as answers narrow it: a count never reads 2 again after 1).
export const onwards = (before, now) => (before !== null && MOMENTS.indexOf(now) < MOMENTS.indexOf(before) ? before : now);

// The sound going from the moment `before` to `now` calls for: "count" as 3, 2 and 1 show, "go" at the
// start, "finish" as the race's last second ends; null when nothing changed, or when the page looks
// only now (no cue for a moment long gone).
export function cueFor(before, now) {
  if (before === null || before === now) return null;
  if (now === "Go") return "go";
  if (["1", "2", "3"].includes(now)) return "count";
  if (now === "over" && ["live", "Go"].includes(before)) return "finish";
  return null;
}

// Every row the page knows, one per racer, in the board's order: a racer's row from the list that has
// it latest (its highest lastSecond; a later list wins a tie), so the board pushed a second ago beats
// the whole field read a few seconds before.
export function mergeRows(...lists) {
  const rows = new Map();
  for (const list of lists) {
    for (const row of list || []) {
      const held = rows.get(row.racerId);
      if (!held || (row.lastSecond ?? -1) >= (held.lastSecond ?? -1)) rows.set(row.racerId, row);
    }
  }
  return [...rows.values()].sort(byBoardOrder);
}

// The riders just ahead of and behind `racerId` in `rows` (board order; disqualified rides, which have
// no place, are passed over), each with the gap in score points to that racer (≥ 0); null where there
// is none (the leader has no one ahead), or where `racerId` has no place.
export function neighbours(rows, racerId) {
  const ranked = rows.filter((row) => row.review !== "disqualified");
  const at = ranked.findIndex((row) => row.racerId === racerId);
  if (at < 0) return { ahead: null, behind: null };
  const mine = ranked[at].score ?? 0;
  const ahead = at > 0 ? ranked[at - 1] : null;
  const behind = at + 1 < ranked.length ? ranked[at + 1] : null;
  return {
    ahead: ahead && { racerId: ahead.racerId, name: ahead.name, gap: (ahead.score ?? 0) - mine },
    behind: behind && { racerId: behind.racerId, name: behind.name, gap: mine - (behind.score ?? 0) },
  };
}

// Where a score sits on the field's strip, 0 (the last rider's score) to 1 (the leader's); a field all
// level sits at 1, with the leader.
export function positionOf(score, low, high) {
  if (!(high > low)) return 1;
  return Math.min(1, Math.max(0, ((score ?? 0) - low) / (high - low)));
}

// The field as `bins` equal bands of score from the last rider's to the leader's: how many riders each
// holds (the leader's score in the last band). Disqualified rides are left out.
export const fieldBins = (rows, bins) => scoreBins(rows.filter((row) => row.review !== "disqualified").map((row) => row.score ?? 0), bins);

// The same bands of a list of scores (an array or a typed array): the riders that count.
export function scoreBins(scores, bins) {
  const counts = new Array(bins).fill(0);
  if (!scores.length) return { counts, low: 0, high: 0, riders: 0 };
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  for (const score of scores) counts[Math.min(bins - 1, Math.floor(positionOf(score, low, high) * bins))] += 1;
  return { counts, low, high, riders: scores.length };
}

// The smallest limit, a multiple of `page` rows (the board's answers shared at the edge), of a board
// read that holds all `racers`, at most `max` (the contract's largest limit).
export const fieldLimit = (racers, page, max) => Math.min(max, Math.max(page, Math.ceil(racers / page) * page));
