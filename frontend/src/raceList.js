// A race as a row of a list: its label (a link to its board), when it runs (a countdown while it
// is upcoming, then "live"; or "finished") and how many racers joined.
import { h } from "./dom.js";
import { raceHref, raceLabel, raceState } from "./races.js";

export const racers = (count) => `${count} racer${count === 1 ? "" : "s"}`;

// className: the class's name if the race item lacks it; ticker: the page's countdowns.
export function raceRow(race, { className, ticker } = {}) {
  const state = raceState(race);
  const when = state === "upcoming" && ticker ? ticker.element(race.startsAt)
    : h("span", { class: `status ${state === "live" ? "open" : state}` }, state);
  return h("li", { class: `race ${state}` },
    h("a", { class: "label", href: raceHref(race.raceId) }, raceLabel(race, className)),
    when,
    h("span", { class: "racers" }, racers(race.racerCount)));
}
