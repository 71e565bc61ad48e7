// A class: its upcoming races first (soonest first, counting down), then the rest (live and
// finished, newest first), refreshed every few seconds.
import { api } from "../api.js";
import { countdowns } from "../countdown.js";
import { errorBox, h, link } from "../dom.js";
import { poll } from "../poll.js";
import { raceRow } from "../raceList.js";
import { raceState } from "../races.js";

const REFRESH_MS = 5000;

const soonestFirst = (a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt);

export function classPage(classId) {
  const href = `#/classes/${encodeURIComponent(classId)}`;
  const title = h("h1", {}, "…");
  const upcoming = h("ul", { class: "rows" });
  const upcomingEmpty = h("p", { class: "muted empty" }, "No race of this class is scheduled yet.");
  const rest = h("ul", { class: "rows" });
  const restEmpty = h("p", { class: "muted empty" }, "No race of this class has started yet.");
  const crumb = link(href, "…");
  const element = h("section", {}, title,
    h("p", {}, link(`${href}/leaderboard`, "All-time leaderboard →")),
    h("section", { class: "upcoming" }, h("h2", {}, "Up next"), upcoming, upcomingEmpty),
    h("section", { class: "races" }, h("h2", {}, "Races"), rest, restEmpty));

  // A countdown that reaches its start: that race is live, it moves to the races below.
  const ticker = countdowns(() => load());
  async function load() {
    try {
      const races = await api.classRaces(classId);
      title.textContent = crumb.textContent = races.name;
      const now = Date.now();
      const next = races.items.filter((race) => raceState(race, now) === "upcoming").sort(soonestFirst);
      const others = races.items.filter((race) => raceState(race, now) !== "upcoming");
      upcoming.replaceChildren(...next.map((race) => raceRow(race, { className: races.name, ticker })));
      rest.replaceChildren(...others.map((race) => raceRow(race, { className: races.name })));
      upcomingEmpty.hidden = next.length > 0;
      restEmpty.hidden = others.length > 0;
    } catch (error) {
      title.textContent = classId;
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
    },
    crumbs: [link("#/", "Home"), " / ", crumb],
  };
}
