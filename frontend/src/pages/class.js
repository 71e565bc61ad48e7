// A class: its upcoming races first (soonest first, counting down), then the rest (live and
// finished, the latest start first), refreshed every few seconds.
//
// The class's own list (GET /classes/{id}/races) is its 50 newest-created races, and a race can be
// created long before it starts (a week's schedule at once): its upcoming and live races also come
// from the lists across classes (GET /races?state=upcoming, soonest first, and state=live), 100 a
// page — the same answers for every class page at the edge. "Up next" so holds every race of the
// class among the UPCOMING_PAGES × 100 soonest of all classes, and any later one the class's list has.
import { api } from "../api.js";
import { classMetric } from "../classNames.js";
import { countdowns } from "../countdown.js";
import { errorBox, h, link } from "../dom.js";
import { poll } from "../poll.js";
import { POWER } from "../power.js";
import { classAdmin } from "./classAdmin.js";
import { raceRow } from "../raceList.js";
import { raceState } from "../races.js";
import { crumbs } from "../header.js";

const REFRESH_MS = 5000;
const STATE_PAGE = 100; // the contract's largest
const UPCOMING_PAGES = 3;

const soonestFirst = (a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt);
const latestFirst = (a, b) => soonestFirst(b, a);

// The races of `classId` among the first `pages` pages of the races across classes in `state`.
async function racesIn(state, classId, pages) {
  const found = [];
  let nextToken = null;
  let read = 0;
  do {
    const page = await api.races(state, STATE_PAGE, nextToken);
    found.push(...page.items.filter((race) => race.classId === classId));
    nextToken = page.nextToken;
    read += 1;
  } while (nextToken && read < pages);
  return found;
}

// One race per raceId: the first answer's.
function unique(races) {
  const seen = new Set();
  return races.filter((race) => !seen.has(race.raceId) && seen.add(race.raceId));
}

export function classPage(classId) {
  const href = `#/classes/${encodeURIComponent(classId)}`;
  const title = h("h1", {}, "…");
  const upcoming = h("ul", { class: "rows" });
  const upcomingEmpty = h("p", { class: "muted empty" }, "No race of this class is scheduled yet.");
  const rest = h("ul", { class: "rows" });
  const restEmpty = h("p", { class: "muted empty" }, "No race of this class has started yet.");
  const crumb = link(href, "…");
  // What an admin did here shows at once, before the lists (kept seconds at the edge) say so: the
  // class's new name until its list has it, the races scheduled (the lists' own answers first).
  let renamedTo = null;
  const scheduled = [];
  const admin = classAdmin(classId, {
    renamed: (name) => {
      renamedTo = title.textContent = crumb.textContent = name;
    },
    scheduled: (race) => {
      scheduled.push({ racerCount: 0, ...race });
      load();
    },
  });
  // A power class says so (contract v1.3): what it ranks, and what can ride it.
  const metricNote = h("p", { class: "muted metric-note", hidden: true },
    "A power class: it ranks the energy of each racer's measured watts (kJ). Ride it on a smart trainer or power meter "
    + "that measures power: the on-screen bike cannot join.");
  classMetric(classId).then((metric) => { metricNote.hidden = metric !== POWER; }, () => {});
  const element = h("section", {}, title, metricNote,
    h("p", {}, link(`${href}/leaderboard`, "All-time leaderboard →")),
    admin.element,
    h("section", { class: "upcoming" }, h("h2", {}, "Up next"), upcoming, upcomingEmpty),
    h("section", { class: "races" }, h("h2", {}, "Races"), rest, restEmpty));

  // A countdown that reaches its start: that race is live, it moves to the races below.
  const ticker = countdowns(() => load());
  let generation = 0; // the poll and the countdowns both read: an answer to an older read is dropped
  async function load() {
    const mine = ++generation;
    try {
      // Without the lists across classes (they failed), the class's own list still shows what it holds.
      const [races, ...more] = await Promise.all([api.classRaces(classId),
        racesIn("upcoming", classId, UPCOMING_PAGES).catch(() => []), racesIn("live", classId, 1).catch(() => [])]);
      if (mine !== generation) return true;
      if (races.name === renamedTo) renamedTo = null;
      const name = renamedTo ?? races.name;
      title.textContent = crumb.textContent = name;
      const now = Date.now();
      const items = unique([races.items, ...more, scheduled].flat());
      const next = items.filter((race) => raceState(race, now) === "upcoming").sort(soonestFirst);
      const others = items.filter((race) => raceState(race, now) !== "upcoming").sort(latestFirst);
      upcoming.replaceChildren(...next.map((race) => raceRow(race, { className: name, ticker })));
      rest.replaceChildren(...others.map((race) => raceRow(race, { className: name })));
      upcomingEmpty.hidden = next.length > 0;
      restEmpty.hidden = others.length > 0;
      return true;
    } catch (error) {
      if (mine !== generation) return true;
      title.textContent = classId;
      crumb.textContent = ""; // no way back to a class that could not be read
      element.replaceChildren(title, errorBox(error));
      return false;
    }
  }
  const stopPolling = poll(REFRESH_MS, load);
  return {
    element,
    stop: () => {
      stopPolling();
      ticker.stop();
      admin.stop();
    },
    crumbs: crumbs(link("#/", "Home"), crumb),
  };
}
