// A class's all-time leaderboard: each racer's best score over finished races, on real equipment. A power
// class's (contract v1.3: the board names its metric) in kilojoules; its rows name no seconds, so no watts.
import { api } from "../api.js";
import { errorBox, h, link } from "../dom.js";
import { metricOf, POWER, scoreText } from "../power.js";
import { Leaderboard } from "../leaderboard.js";
import { poll } from "../poll.js";
import { crumbs } from "../header.js";

const REFRESH_MS = 10000;
// The class board counts real equipment only (contract v1.2, Fair play), and no ride under review.
const REAL_ONLY = "Real equipment only (bikes and trainers): virtual rides, rides under review and disqualified rides are not on it.";

export function classLeaderboardPage(classId) {
  let metric = null;
  const board = new Leaderboard([
    { title: "Racer", className: "name", value: (item) => item.name,
      href: (item) => `#/racers/${encodeURIComponent(item.racerId)}/${encodeURIComponent(item.raceId)}` },
    { title: "Best score", className: "num", value: (item) => scoreText(item.bestScore, metric) },
  ]);
  const title = h("h1", {}, "…", " ", h("small", {}, "all-time"));
  const classLink = link(`#/classes/${encodeURIComponent(classId)}`, "…");
  const empty = h("p", { class: "muted" });
  const element = h("section", { class: "class-board" }, title, empty, board.element);
  const stop = poll(REFRESH_MS, async () => {
    try {
      const standings = await api.classLeaderboard(classId);
      metric = metricOf(standings);
      title.firstChild.textContent = classLink.textContent = standings.name;
      const ranks = metric === POWER ? " A power class: a score is the energy of the racer's measured watts, in kJ." : "";
      empty.textContent = standings.items.length ? `Best score per racer over finished races.${ranks} ${REAL_ONLY}`
        : `No finished races yet.${ranks} ${REAL_ONLY}`;
      board.update(standings.items);
    } catch (error) {
      classLink.textContent = error.status === 404 ? "" : classId; // no way back to a class that does not exist
      element.replaceChildren(errorBox(error));
      return false;
    }
  });
  return { element, stop, crumbs: crumbs(link("#/", "Home"), classLink) };
}
