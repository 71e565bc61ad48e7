// A racer: their races, and the per-second chart of one race (refreshed while it is open).
import { api } from "../api.js";
import { auth } from "../auth.js";
import { className, classNames } from "../classNames.js";
import { errorBox, h, link, score } from "../dom.js";
import { OutputChart } from "../chart.js";
import { poll } from "../poll.js";
import { raceHref, raceLabel } from "../races.js";

const REFRESH_MS = 3000;

const racerHref = (racerId, raceId) => `#/racers/${encodeURIComponent(racerId)}/${encodeURIComponent(raceId)}`;

// names: { classId: class name } (a race reads as "Hill climb · 18:30").
function resultsTable(racerId, items, selected, names) {
  return h("table", { class: "results" },
    h("thead", {}, h("tr", {}, h("th", { class: "name" }, "Race"),
      h("th", { class: "num" }, "Score"), h("th", { class: "num" }, "Rank"))),
    h("tbody", {}, items.map((item) => h("tr", { class: item.raceId === selected ? "selected" : "" },
      h("td", { class: "name" }, link(racerHref(racerId, item.raceId), raceLabel(item, names[item.classId]))),
      h("td", { class: "num" }, score(item.score)),
      h("td", { class: "num" }, item.rank == null ? item.status : String(item.rank))))));
}

export function racerPage(racerId, raceId) {
  const title = h("h1", {}, racerId);
  const chartTitle = h("h2");
  const chartBox = h("div", { class: "chart" });
  const totals = h("p", { class: "muted" });
  const results = h("div");
  // The signed-in racer's own page says so, with the way to their account (their name, their races).
  const yours = h("p", { class: "yours", hidden: true }, "This is you · ", link("#/me", "Your account →"));
  const showYours = () => {
    yours.hidden = auth.identity?.racerId !== racerId;
  };
  showYours();
  const stopYours = auth.onChange(showYours);
  const element = h("section", {}, title, yours, chartTitle, totals, chartBox,
    h("h2", {}, "Races"), results);
  const chart = new OutputChart(chartBox);
  const raceLink = h("span");

  let selected = raceId;
  let shownRace = null;
  const stop = poll(REFRESH_MS, async () => {
    try {
      const racer = await api.racerResults(racerId);
      const names = await classNames(racer.items.map((item) => item.classId));
      title.textContent = racer.name;
      selected ||= racer.items[0]?.raceId;
      results.replaceChildren(resultsTable(racerId, racer.items, selected, names));
      if (!selected) {
        chartTitle.textContent = "No races yet";
        return;
      }
      const history = await api.racerHistory(racerId, selected);
      const samples = history.races[0]?.samples || [];
      const entry = racer.items.find((item) => item.raceId === selected);
      // A race older than the results' first page: read on its own, once.
      shownRace = entry || (shownRace?.raceId === selected ? shownRace : await api.race(selected));
      const name = await className(shownRace.classId).catch(() => null);
      chartTitle.replaceChildren(raceLabel(shownRace, name), " ", h("small", {}, "output per second"));
      raceLink.replaceChildren(link(raceHref(selected), "Race board →"));
      const total = samples.reduce((sum, sample) => sum + sample[3], 0);
      totals.replaceChildren(`${samples.length} seconds · total ${score(total)} · `, raceLink);
      chart.show(samples);
      return !entry || entry.status === "open";
    } catch (error) {
      element.replaceChildren(title, yours, errorBox(error));
      return false;
    }
  });
  return {
    element,
    stop: () => { stop(); stopYours(); chart.destroy(); },
    crumbs: [link("#/", "Home")],
  };
}
