// Hash routes: #/ · #/classes/{c} · #/classes/{c}/leaderboard · #/races/{r} · #/racers/{id}[/{raceId}]
import "./style.css";
import { h } from "./dom.js";
import { homePage } from "./pages/home.js";
import { classPage } from "./pages/class.js";
import { classLeaderboardPage } from "./pages/classLeaderboard.js";
import { racePage } from "./pages/race.js";
import { racerPage } from "./pages/racer.js";

const routes = [
  [/^\/classes\/([^/]+)\/leaderboard$/, classLeaderboardPage],
  [/^\/classes\/([^/]+)$/, classPage],
  [/^\/races\/([^/]+)$/, racePage],
  [/^\/racers\/([^/]+)(?:\/([^/]+))?$/, racerPage],
  [/^\/?$/, homePage],
];

let current = null;

function route() {
  current?.stop?.();
  const path = location.hash.replace(/^#/, "") || "/";
  const main = document.getElementById("page");
  const crumbs = document.getElementById("crumbs");
  for (const [pattern, page] of routes) {
    const found = path.match(pattern);
    if (found) {
      const params = found.slice(1).map((part) => part && decodeURIComponent(part));
      current = page(...params);
      crumbs.replaceChildren(...(current.crumbs || []));
      main.replaceChildren(current.element);
      window.scrollTo(0, 0);
      return;
    }
  }
  current = null;
  crumbs.replaceChildren();
  main.replaceChildren(h("p", { class: "error" }, "No such page. "), h("a", { href: "#/" }, "Start over"));
}

window.addEventListener("hashchange", route);
route();
