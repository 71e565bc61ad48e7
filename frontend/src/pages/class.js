// A class: its races, newest first, refreshed every few seconds.
import { api } from "../api.js";
import { errorBox, h, link, when } from "../dom.js";
import { rememberClass } from "./home.js";
import { poll } from "../poll.js";

const REFRESH_MS = 5000;

export function classPage(classId) {
  const title = h("h1", {}, classId);
  const body = h("tbody");
  const element = h("section", {}, title,
    h("p", {}, link(`#/classes/${encodeURIComponent(classId)}/leaderboard`, "All-time leaderboard →")),
    h("h2", {}, "Races"),
    h("table", { class: "races" },
      h("thead", {}, h("tr", {}, h("th", {}, "Race"), h("th", {}, "Starts"), h("th", {}, "Status"),
        h("th", { class: "num" }, "Racers"))),
      body));

  const stop = poll(REFRESH_MS, async () => {
    try {
      const races = await api.classRaces(classId);
      rememberClass(classId);
      title.textContent = races.name;
      body.replaceChildren(...races.items.map((race) => h("tr", {},
        h("td", {}, link(`#/races/${encodeURIComponent(race.raceId)}`, race.raceId)),
        h("td", {}, when(race.startsAt)),
        h("td", {}, h("span", { class: `status ${race.status}` }, race.status)),
        h("td", { class: "num" }, String(race.racerCount)))));
      if (!races.items.length) body.replaceChildren(h("tr", {}, h("td", { colspan: "4", class: "muted" }, "No races yet.")));
    } catch (error) {
      element.replaceChildren(title, errorBox(error));
      return false;
    }
  });
  return { element, stop, crumbs: [link("#/", "Classes")] };
}
