// Home: the races live now and the next ones, across classes, then the classes. A viewer is one
// click from a live board.
import { api } from "../api.js";
import { countdowns } from "../countdown.js";
import { h } from "../dom.js";
import { PagedList } from "../pagedList.js";
import { poll } from "../poll.js";
import { raceRow } from "../raceList.js";

const REFRESH_MS = 15_000;
const RACES_PAGE = 10;
const CLASSES_PAGE = 24;

function classRow(item) {
  return h("li", { class: "class" },
    h("a", { class: "label", href: `#/classes/${encodeURIComponent(item.classId)}` }, item.name),
    item.description ? h("span", { class: "muted description" }, item.description) : null);
}

export function homePage() {
  // A countdown that reaches its start: that race is live now, read both lists again.
  const ticker = countdowns(() => refreshRaces());
  const races = (state, empty) => new PagedList({
    read: (nextToken) => api.races(state, RACES_PAGE, nextToken),
    row: (race) => raceRow(race, { ticker }),
    key: (race) => race.raceId,
    what: "races",
    empty,
  });
  const live = races("live", "No race is live right now. Races under “Up next” show here when they start.");
  const upcoming = races("upcoming", "No races are scheduled yet. Each class below has its past races and all-time bests.");
  const classes = new PagedList({
    read: (nextToken) => api.classes(CLASSES_PAGE, nextToken),
    row: classRow,
    key: (item) => item.classId,
    what: "classes",
    empty: "No classes yet: an admin creates them, then schedules their races.",
    className: "rows classes",
  });
  const refreshRaces = () => Promise.all([live.refresh(), upcoming.refresh()]);

  const element = h("section", { class: "home" },
    h("h1", {}, "Race day"),
    h("div", { class: "columns" },
      h("section", { class: "live" }, h("h2", {}, "Live now"), live.element),
      h("section", { class: "upcoming" }, h("h2", {}, "Up next"), upcoming.element)),
    h("section", { class: "class-list" }, h("h2", {}, "Classes"), classes.element));

  const stopPolling = poll(REFRESH_MS, async () => {
    await refreshRaces();
    return true;
  });
  classes.refresh();
  return {
    element,
    stop: () => {
      stopPolling();
      ticker.stop();
    },
  };
}
