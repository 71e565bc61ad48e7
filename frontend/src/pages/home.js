// Home: the races live now and the next ones, across classes, then the classes. A viewer is one
// click from a live board.
import { api } from "../api.js";
import { countdowns } from "../countdown.js";
import { h } from "../dom.js";
import { PagedList } from "../pagedList.js";
import { adminNewClass } from "./newClass.js";
import { poll } from "../poll.js";
import { POWER } from "../power.js";
import { raceRow } from "../raceList.js";
import { raceState } from "../races.js";

const REFRESH_MS = 15_000;
const RACES_PAGE = 10;
const CLASSES_PAGE = 24;
const LISTS_CACHE_MS = 5000; // how long CloudFront keeps an answer of GET /races (docs/edge.md)

const latestFirst = (a, b) => Date.parse(b.startsAt) - Date.parse(a.startsAt);

function classRow(item) {
  return h("li", { class: "class" },
    h("a", { class: "label", href: `#/classes/${encodeURIComponent(item.classId)}` }, item.name),
    item.metric === POWER ? h("span", { class: "status power", title: "Ranks measured power (kJ): a trainer or power meter rides it" },
      "power") : null,
    item.description ? h("span", { class: "muted description" }, item.description) : null);
}

export function homePage() {
  // A countdown that reaches its start: that race is live now. The lists (kept LISTS_CACHE_MS at the
  // edge) may not say so yet: the race moves from "Up next" to "Live now" at once, on this page's
  // clock, and both lists are read again once the edge's answers are newer than the start.
  let reread = null;
  const ticker = countdowns(() => {
    upcoming.draw();
    live.draw();
    clearTimeout(reread);
    reread = setTimeout(() => {
      reread = null;
      refreshRaces();
    }, LISTS_CACHE_MS + 1000);
  });
  const races = (state, empty, view) => new PagedList({
    read: (nextToken) => api.races(state, RACES_PAGE, nextToken),
    row: (race) => raceRow(race, { ticker }),
    key: (race) => race.raceId,
    what: "races",
    empty,
    view,
  });
  // "Up next": the races read as upcoming that have not started on this clock. "Live now": those that
  // have and are not read as live yet (the latest start first), then the races read as live.
  const started = (live) => upcoming.items
    .filter((race) => raceState(race) === "live" && !live.some((item) => item.raceId === race.raceId))
    .sort(latestFirst);
  const live = races("live", "No race is live right now. Races under “Up next” show here when they start.",
    (items) => [...started(items), ...items]);
  const upcoming = races("upcoming", "No races are scheduled yet. Each class below has its past races and all-time bests.",
    (items) => items.filter((race) => raceState(race) === "upcoming"));
  const classes = new PagedList({
    read: (nextToken) => api.classes(CLASSES_PAGE, nextToken),
    row: classRow,
    key: (item) => item.classId,
    what: "classes",
    empty: "No classes yet: an admin creates them, then schedules their races.",
    className: "rows classes",
  });
  const refreshRaces = async () => {
    await Promise.all([live.refresh(), upcoming.refresh()]);
    live.draw(); // with the races that started since the upcoming list was read
  };

  const admin = adminNewClass(); // admins only: a "New class" form
  const element = h("section", { class: "home" },
    h("h1", {}, "Race day"),
    h("div", { class: "columns" },
      h("section", { class: "live" }, h("h2", {}, "Live now"), live.element),
      h("section", { class: "upcoming" }, h("h2", {}, "Up next"), upcoming.element)),
    h("section", { class: "class-list" }, h("h2", {}, "Classes"), admin.element, classes.element));

  const stopPolling = poll(REFRESH_MS, async () => {
    if (reread === null) await refreshRaces(); // else the read after a start is due in a few seconds
    return true;
  });
  classes.refresh();
  return {
    element,
    stop: () => {
      stopPolling();
      ticker.stop();
      clearTimeout(reread);
      admin.stop();
    },
  };
}
