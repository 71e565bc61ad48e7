// A class's all-time leaderboard: each racer's best score over finished races, on real equipment.
import { api } from "../api.js";
import { errorBox, h, link, score } from "../dom.js";
import { Leaderboard } from "../leaderboard.js";
import { poll } from "../poll.js";
import { crumbs } from "../header.js";

const REFRESH_MS = 10000;
// The class board counts real equipment only (contract v1.2, Fair play), and no ride under review.
const REAL_ONLY = "Real equipment only (bikes and trainers): virtual rides, rides under review and disqualified rides are not on it.";

export function classLeaderboardPage(classId) {
  const board = new Leaderboard([
    { title: "Racer", className: "name", value: (item) => item.name,
      href: (item) => `#/racers/${encodeURIComponent(item.racerId)}/${encodeURIComponent(item.raceId)}` },
    { title: "Best score", className: "num", value: (item) => score(item.bestScore) },
  ]);
  const title = h("h1", {}, "…", " ", h("small", {}, "all-time"));
  const classLink = link(`#/classes/${encodeURIComponent(classId)}`, "…");
  const empty = h("p", { class: "muted" });
  const element = h("section", { class: "class-board" }, title, empty, board.element);
  const stop = poll(REFRESH_MS, async () => {
    try {
      const standings = await api.classLeaderboard(classId);
      title.firstChild.textContent = classLink.textContent = standings.name;
      empty.textContent = standings.items.length ? `Best score per racer over finished races. ${REAL_ONLY}`
        : `No finished races yet. ${REAL_ONLY}`;
      board.update(standings.items);
    } catch (error) {
      classLink.textContent = error.status === 404 ? "" : classId; // no way back to a class that does not exist
      element.replaceChildren(errorBox(error));
      return false;
    }
  });
  return { element, stop, crumbs: crumbs(link("#/", "Home"), classLink) };
}
