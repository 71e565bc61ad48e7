// A racer: their races, and the per-second chart of one race (refreshed while it is open).
import { api } from "../api.js";
import { errorBox, h, link, score, when } from "../dom.js";
import { OutputChart } from "../chart.js";
import { me } from "../me.js";
import { poll } from "../poll.js";

const REFRESH_MS = 3000;

const racerHref = (racerId, raceId) => `#/racers/${encodeURIComponent(racerId)}/${encodeURIComponent(raceId)}`;

function resultsTable(racerId, items, selected) {
  return h("table", { class: "results" },
    h("thead", {}, h("tr", {}, h("th", {}, "Race"), h("th", { class: "hide-narrow" }, "Starts"),
      h("th", { class: "num" }, "Score"), h("th", { class: "num" }, "Rank"))),
    h("tbody", {}, items.map((item) => h("tr", { class: item.raceId === selected ? "selected" : "" },
      h("td", {}, link(racerHref(racerId, item.raceId), item.raceId)),
      h("td", { class: "hide-narrow" }, when(item.startsAt)),
      h("td", { class: "num" }, score(item.score)),
      h("td", { class: "num" }, item.rank == null ? item.status : String(item.rank))))));
}

export function racerPage(racerId, raceId) {
  const title = h("h1", {}, racerId);
  const chartTitle = h("h2");
  const chartBox = h("div", { class: "chart" });
  const totals = h("p", { class: "muted" });
  const results = h("div");
  // "This is me": race boards then show this racer's own row (and mark it) wherever it is.
  const mine = h("button", { type: "button", class: "mine-toggle", onclick: () => {
    if (me.get() === racerId) me.clear(); else me.set(racerId);
    mine.textContent = me.get() === racerId ? "Not me" : "This is me";
  } }, me.get() === racerId ? "Not me" : "This is me");
  const element = h("section", {}, title, h("div", { class: "board-more" }, mine), chartTitle, totals, chartBox,
    h("h2", {}, "Races"), results);
  const chart = new OutputChart(chartBox);
  const raceLink = h("span");

  let selected = raceId;
  const stop = poll(REFRESH_MS, async () => {
    try {
      const racer = await api.racerResults(racerId);
      title.textContent = racer.name;
      selected ||= racer.items[0]?.raceId;
      results.replaceChildren(resultsTable(racerId, racer.items, selected));
      if (!selected) {
        chartTitle.textContent = "No races yet";
        return;
      }
      const history = await api.racerHistory(racerId, selected);
      const samples = history.races[0]?.samples || [];
      chartTitle.textContent = `Output per second`;
      raceLink.replaceChildren(link(`#/races/${encodeURIComponent(selected)}`, `race ${selected}`));
      const total = samples.reduce((sum, sample) => sum + sample[3], 0);
      totals.replaceChildren(`${samples.length} seconds · total ${score(total)} · `, raceLink);
      chart.show(samples);
      const entry = racer.items.find((item) => item.raceId === selected);
      return !entry || entry.status === "open";
    } catch (error) {
      element.replaceChildren(title, errorBox(error));
      return false;
    }
  });
  return {
    element,
    stop: () => { stop(); chart.destroy(); },
    crumbs: [link("#/", "Classes")],
  };
}
