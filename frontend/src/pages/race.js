// The live race leaderboard: polled every second while the race is open.
import { api } from "../api.js";
import { errorBox, h, link, score, when } from "../dom.js";
import { Leaderboard } from "../leaderboard.js";
import { poll } from "../poll.js";

const POLL_MS = 1000;

export function racePage(raceId) {
  const racer = (item) => `#/racers/${encodeURIComponent(item.racerId)}/${encodeURIComponent(raceId)}`;
  const board = new Leaderboard([
    { title: "Racer", className: "name", value: (item) => item.name, href: racer },
    { title: "Score", className: "num", value: (item) => score(item.score) },
    { title: "Second", className: "num hide-narrow", value: (item) => (item.lastSecond ?? "–").toString() },
  ]);
  const status = h("span", { class: "status" });
  const summary = h("p", { class: "muted" });
  const back = h("span");
  const element = h("section", {}, h("h1", {}, "Race ", h("small", {}, raceId), " ", status), summary, board.element);

  let race = null;
  const stop = poll(POLL_MS, async () => {
    try {
      race ||= await api.race(raceId);
      const standings = await api.raceLeaderboard(raceId);
      back.replaceChildren(link(`#/classes/${encodeURIComponent(standings.classId)}`, standings.classId));
      status.textContent = standings.status === "open" ? "live" : standings.status;
      status.className = `status ${standings.status}`;
      const leader = standings.items[0];
      summary.textContent = `${standings.items.length} racers · started ${when(race.startsAt)} · `
        + `${race.durationSeconds} s` + (leader ? ` · leader ${leader.name}, second ${leader.lastSecond ?? 0}` : "");
      board.update(standings.items);
      return standings.status === "open";
    } catch (error) {
      element.replaceChildren(errorBox(error));
      return false;
    }
  });
  return { element, stop, crumbs: [link("#/", "Classes"), " / ", back] };
}
