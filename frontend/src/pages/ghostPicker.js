// Picking a ghost before joining a race (the race page of an open race, the ride page before the
// start): "No ghost" (the default), "Your best in this class", "The class record", or "A racer of a
// finished race" of the class. The arithmetic is in ghost.js; the ride with it in rideGhost.js.
//
// - Your best: the class leaderboard (GET /classes/{classId}/leaderboard?limit=1000, one answer every
//   viewer shares at the edge) names the race of the racer's best; a racer beyond its 1,000 rows is
//   found in their own results (GET /racers/{racerId}/results, 100 a page).
// - The class record: that leaderboard's first row.
// - A racer of a finished race: the class's finished races (GET /classes/{classId}/races), then a
//   racer of the chosen race's replay.
// Each choice is checked against the ghost race's replay (GET /races/{raceId}/replay): a race not
// settled yet (409) is explained, and nothing is kept.
//
// The choice is kept per race and racer in localStorage (`alleycat.ghost.<raceId>.<racerId>`), as the
// ride itself is (ride.js): the ride goes on in another tab of this browser ("Ride here instead", a
// ride link opened in a new tab) and after a reload, and its ghost with it. Choices older than
// KEEP_MS are dropped as another is saved.
//
// A power class's ghosts (contract v1.3; the metric read from the class: classNames.js) read their final
// scores in kJ.
import { api, ApiError } from "../api.js";
import { classMetric } from "../classNames.js";
import { h } from "../dom.js";
import { bestInResults, bestOnBoard, finalScore, finishedRaces, ghostOf, KINDS, recordOf } from "../ghost.js";
import { OUTPUT, scoreText } from "../power.js";
import { racers } from "../raceList.js";
import { ordinal } from "../rideFeel.js";
import { startDate } from "../time.js";

const PREFIX = "alleycat.ghost.";
const KEEP_MS = 30 * 86_400_000;
const BOARD_ROWS = 1000; // api.classLeaderboard's limit, the contract's largest
const RESULT_PAGES = 20; // a best looked for in the racer's results: at most so many pages of 100
const REPLAYS_KEPT = 3;

// --- the choice, kept --------------------------------------------------------------------------------

const keyOf = (raceId, racerId) => `${PREFIX}${raceId}.${racerId}`;

// The ghost chosen for this race: { kind, raceId, racerId } (the ghost's race and racer), or null.
export function savedGhost(raceId, racerId) {
  try {
    const kept = JSON.parse(localStorage.getItem(keyOf(raceId, racerId)));
    return kept && KINDS[kept.kind] && kept.raceId && kept.racerId ? kept : null;
  } catch {
    return null;
  }
}

function saveGhost(raceId, racerId, choice) {
  try {
    const now = Date.now();
    for (let i = localStorage.length - 1; i >= 0; i -= 1) {
      const key = localStorage.key(i);
      if (!key?.startsWith(PREFIX)) continue;
      const savedAt = JSON.parse(localStorage.getItem(key))?.savedAt ?? 0;
      if (now - savedAt > KEEP_MS) localStorage.removeItem(key);
    }
    if (choice) localStorage.setItem(keyOf(raceId, racerId), JSON.stringify({ ...choice, savedAt: now }));
    else localStorage.removeItem(keyOf(raceId, racerId));
  } catch {
    // no storage (a policy): the choice lasts as long as the page
  }
}

// --- replays, read once --------------------------------------------------------------------------------

const replays = new Map(); // raceId -> Promise<replay answer>: the race page's read serves the ride page

export function readReplay(raceId) {
  if (!replays.has(raceId)) {
    if (replays.size >= REPLAYS_KEPT) replays.delete(replays.keys().next().value);
    replays.set(raceId, api.replay(raceId).catch((error) => {
      replays.delete(raceId); // asked again next time
      throw error;
    }));
  }
  return replays.get(raceId);
}

// The ghost a choice names, from its race's replay (read once); a reason a person reads when it cannot be had.
export async function ghostFor(choice) {
  let replay;
  try {
    replay = await readReplay(choice.raceId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 409) {
      throw new Error("its race has not been settled yet (a race's replay comes a few seconds after it finishes): try again in a moment.");
    }
    if (error instanceof ApiError && error.status === 404) throw new Error("its race no longer exists.");
    throw new Error(`its race's replay could not be read (${error.message}).`);
  }
  const ghost = ghostOf(replay, choice.racerId);
  if (!ghost) throw new Error("that racer is not in its race's replay.");
  return ghost;
}

// How a ghost is named beside its name: "your best", "the class record", "2nd on Fri, 20 Nov, 18:00".
export function whose(choice, ghost) {
  if (choice.kind !== "racer") return KINDS[choice.kind];
  const place = ghost.rank != null ? `${ordinal(ghost.rank)} on` : "on";
  return `${place} ${startDate(ghost.startsAt)}`;
}

// --- the picker ------------------------------------------------------------------------------------------

// The racer's best in the class: their row of the class board, else their results' best; null for none.
async function bestOf(classId, racerId) {
  const board = await api.classLeaderboard(classId);
  const row = bestOnBoard(board.items, racerId);
  if (row) return { raceId: row.raceId };
  if (board.items.length < BOARD_ROWS) return null; // the whole board: they have no best
  let nextToken = null;
  let found = null;
  for (let page = 0; page < RESULT_PAGES; page += 1) {
    const results = await api.racerResultsPage(racerId, nextToken);
    const best = bestInResults([...(found ? [found] : []), ...results.items], classId);
    found = best ?? found;
    nextToken = results.nextToken;
    if (!nextToken) break;
  }
  return found && { raceId: found.raceId };
}

// onChange(choice | null): the racer picked (or dropped) a ghost. update(race): the race (its class) is known.
export function ghostPicker(raceId, racerId, { onChange = () => {} } = {}) {
  const name = `ghost-${raceId}`;
  const option = (value, text) => h("label", { class: "ghost-option" },
    h("input", { type: "radio", name, value, onchange: () => picked(value) }), ` ${text}`);
  const racesBox = h("select", { class: "ghost-race", "aria-label": "A finished race of this class", onchange: () => racePicked() });
  const racersBox = h("select", { class: "ghost-racer", "aria-label": "A racer of that race", onchange: () => racerPicked() });
  const pastRacer = h("div", { class: "ghost-past", hidden: true }, racesBox, racersBox);
  const note = h("p", { class: "ghost-note muted", role: "status" });
  const element = h("fieldset", { class: "ghost-picker", hidden: true },
    h("legend", {}, "Ride with a ghost"),
    option("none", "No ghost"), option("best", "Your best in this class"), option("record", "The class record"),
    option("racer", "A racer of a finished race"), pastRacer, note);
  let classId = null;
  let metric = Promise.resolve(OUTPUT); // the class's, once its class is known (unread: an output class's scores)
  let asked = 0; // the latest pick: an older pick's answer arriving late changes nothing

  const check = (value) => element.querySelectorAll("input[type=radio]").forEach((input) => { input.checked = input.value === value; });
  const say = (text, trouble = false) => {
    note.textContent = text;
    note.className = `ghost-note ${trouble ? "error" : "muted"}`;
  };
  const chosen = async (choice, ghost) =>
    `Your ghost: ${ghost.name} (${whose(choice, ghost)}), final score ${scoreText(finalScore(ghost), await metric)}.`;

  // A choice checked against its replay, then kept; or why not, and the kept choice stays.
  async function keep(choice, pick) {
    try {
      const ghost = await ghostFor(choice);
      const text = await chosen(choice, ghost);
      if (pick !== asked) return;
      saveGhost(raceId, racerId, choice);
      say(text);
      onChange(choice);
    } catch (error) {
      if (pick !== asked) return;
      refused(`This ghost cannot be had: ${error.message}`);
    }
  }

  // The kept choice shows again (its radio), with why the one asked for was not kept.
  function refused(text) {
    const kept = savedGhost(raceId, racerId);
    check(kept?.kind ?? "none");
    pastRacer.hidden = kept?.kind !== "racer";
    say(text, true);
  }

  async function picked(value) {
    const pick = (asked += 1);
    pastRacer.hidden = value !== "racer";
    if (value === "none") {
      saveGhost(raceId, racerId, null);
      say("No ghost: you ride with the field.");
      onChange(null);
      return;
    }
    say("Looking…");
    try {
      if (value === "best") {
        const best = await bestOf(classId, racerId);
        if (pick !== asked) return;
        if (!best) return refused("You have no best in this class yet: it is your highest score of a finished race of it, ridden on a bike or a trainer, that counts (not virtual, not under review).");
        await keep({ kind: "best", raceId: best.raceId, racerId }, pick);
      } else if (value === "record") {
        const record = recordOf((await api.classLeaderboard(classId)).items);
        if (pick !== asked) return;
        if (!record) return refused("This class has no record yet: no finished race of it has a ride on a bike or a trainer that counts.");
        await keep({ kind: "record", raceId: record.raceId, racerId: record.racerId }, pick);
      } else {
        await listRaces(pick);
      }
    } catch (error) {
      if (pick === asked) refused(`The class could not be read (${error.message}): try again.`);
    }
  }

  // "A racer of a finished race": the class's finished races, then the chosen one's racers.
  async function listRaces(pick, kept = null) {
    const races = finishedRaces((await api.classRaces(classId)).items);
    if (pick !== asked) return;
    if (!races.length) return refused("No race of this class has finished yet: there is no one to pick.");
    racesBox.replaceChildren(h("option", { value: "" }, "Choose a race…"),
      ...races.map((race) => h("option", { value: race.raceId }, `${startDate(race.startsAt)} · ${racers(race.racerCount)}`)));
    racesBox.value = kept && races.some((race) => race.raceId === kept.raceId) ? kept.raceId : "";
    racersBox.replaceChildren();
    racersBox.hidden = true;
    if (racesBox.value) await racePicked(kept, pick);
    else say("Choose a race, then a racer of it.");
  }

  async function racePicked(kept = null, pick = (asked += 1)) {
    const ghostRace = racesBox.value;
    racersBox.hidden = true;
    if (!ghostRace) return;
    say("Reading that race…");
    let replay;
    try {
      replay = await readReplay(ghostRace);
    } catch (error) {
      if (pick !== asked) return;
      const why = error instanceof ApiError && error.status === 409
        ? "that race has not been settled yet (a race's replay comes a few seconds after it finishes): try again in a moment."
        : `its replay could not be read (${error.message}).`;
      return say(`This race cannot be ridden against: ${why}`, true);
    }
    const shownAs = await metric; // never refused: an unread metric is output
    if (pick !== asked) return;
    racersBox.replaceChildren(h("option", { value: "" }, "Choose a racer…"), ...replay.racers.map((racer, index) =>
      h("option", { value: racer.racerId }, `${racer.rank != null ? `${ordinal(racer.rank)} · ` : ""}${racer.name} · `
        + `${scoreText(finalScore({ scores: replay.scores[index] || [] }), shownAs)}`)));
    racersBox.hidden = false;
    racersBox.value = kept?.raceId === ghostRace ? kept.racerId : "";
    if (!racersBox.value) say("Choose a racer of that race.");
  }

  function racerPicked() {
    const pick = (asked += 1);
    if (!racersBox.value) return;
    keep({ kind: "racer", raceId: racesBox.value, racerId: racersBox.value }, pick);
  }

  // The kept choice, shown as the page opens.
  async function showKept() {
    const kept = savedGhost(raceId, racerId);
    check(kept?.kind ?? "none");
    if (!kept) return say("No ghost: you ride with the field.");
    const pick = (asked += 1);
    pastRacer.hidden = kept.kind !== "racer";
    try {
      if (kept.kind === "racer") await listRaces(pick, kept);
      const ghost = await ghostFor(kept);
      const text = await chosen(kept, ghost);
      if (pick === asked) say(text);
    } catch (error) {
      if (pick === asked) say(`Your ghost cannot be had: ${error.message}`, true);
    }
  }

  return {
    element,
    // The race this picker is for (its class), once known; `open`: whether picking is still offered.
    update(race, open) {
      element.hidden = !open || !racerId;
      if (!racerId || classId === race.classId) return;
      classId = race.classId;
      metric = classMetric(classId).catch(() => OUTPUT);
      showKept();
    },
  };
}
