// A racer: their races, and the per-second chart of one race (refreshed while it is open). Each
// result shows its equipment and its review ("under review", "disqualified": no rank); the racer
// themselves (and admins) read why, rule by rule, with the admin's note.
import { api } from "../api.js";
import { auth } from "../auth.js";
import { className, classNames } from "../classNames.js";
import { errorBox, h, link, score } from "../dom.js";
import { equipmentClass, equipmentLabel, reviewLabel, reviewReason } from "../fairPlay.js";
import { OutputChart } from "../chart.js";
import { poll } from "../poll.js";
import { raceHref, raceLabel } from "../races.js";

const REFRESH_MS = 3000;

const racerHref = (racerId, raceId) => `#/racers/${encodeURIComponent(racerId)}/${encodeURIComponent(raceId)}`;

// A result's rank: its place once finished, "—" when disqualified, else the race's status ("open").
const rankOf = (item) => (item.review === "disqualified" ? "—" : item.rank == null ? item.status : String(item.rank));

// names: { classId: class name } (a race reads as "Hill climb · 18:30"); why: whether the reasons of a
// review are shown (to the racer themselves and to admins).
function resultsTable(racerId, items, selected, names, why) {
  const rows = items.flatMap((item) => {
    const label = reviewLabel(item.review);
    const reason = why ? reviewReason(item.review, item.rules, item.note) : null;
    const classes = [item.raceId === selected ? "selected" : "", item.review ? `review-${item.review}` : ""].join(" ").trim();
    return [
      h("tr", { class: classes, "data-race": item.raceId },
        h("td", { class: "name" }, link(racerHref(racerId, item.raceId), raceLabel(item, names[item.classId])),
          label ? h("small", { class: "tag" }, label) : null),
        h("td", { class: `equipment ${equipmentClass(item.equipment)}` }, equipmentLabel(item.equipment)),
        h("td", { class: "num" }, score(item.score)),
        h("td", { class: "num rank" }, rankOf(item))),
      reason ? h("tr", { class: `why review-${item.review}`, "data-race": item.raceId },
        h("td", { colspan: "4" }, reason)) : null,
    ].filter(Boolean);
  });
  return h("table", { class: "results" },
    h("thead", {}, h("tr", {}, h("th", { class: "name" }, "Race"), h("th", { class: "equipment" }, "Ride"),
      h("th", { class: "num" }, "Score"), h("th", { class: "num" }, "Rank"))),
    h("tbody", {}, rows));
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
      const why = auth.identity?.racerId === racerId || Boolean(auth.identity?.admin);
      results.replaceChildren(resultsTable(racerId, racer.items, selected, names, why));
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
      // Read again while the race is open, or while a result waits for an admin's decision.
      return !entry || entry.status === "open" || racer.items.some((item) => item.review === "pending");
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
