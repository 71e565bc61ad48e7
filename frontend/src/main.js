// Hash routes: #/ · #/classes/{c} · #/classes/{c}/leaderboard · #/races/{r}[/ride|/replay] · #/racers/{id}[/{raceId}] · #/me
// · #/reviews[/{state}] (admins)
import "./style.css";
import { auth } from "./auth.js";
import { h } from "./dom.js";
import { accountHeader } from "./header.js";
import { accountPage } from "./pages/account.js";
import { homePage } from "./pages/home.js";
import { classPage } from "./pages/class.js";
import { classLeaderboardPage } from "./pages/classLeaderboard.js";
import { racePage, replayPage, ridePage } from "./pages/race.js";
import { racerPage } from "./pages/racer.js";
import { reviewsPage } from "./pages/reviews.js";

const routes = [
  [/^\/classes\/([^/]+)\/leaderboard$/, classLeaderboardPage],
  [/^\/classes\/([^/]+)$/, classPage],
  [/^\/races\/([^/]+)$/, racePage],
  [/^\/races\/([^/]+)\/ride$/, ridePage],
  [/^\/races\/([^/]+)\/replay$/, replayPage],
  [/^\/racers\/([^/]+)(?:\/([^/]+))?$/, racerPage],
  [/^\/me$/, accountPage],
  [/^\/reviews(?:\/(pending|cleared|disqualified))?$/, reviewsPage],
  [/^\/?$/, homePage],
];

let current = null;
let shown = null; // the address of the page shown

// A page may ask before it goes (a live ride: leaving()). The address has already changed (a back
// button, a link): a "no" puts the page's address back, a new entry that fires no hashchange.
function stays() {
  const question = current?.leaving?.();
  if (!question || location.hash === shown || confirm(question)) return false;
  history.pushState(null, "", shown || "#/");
  return true;
}

// A part of the link as its page reads it; null when it is not a valid percent-encoding ("%", "%zz").
function decoded(part) {
  try {
    return part && decodeURIComponent(part);
  } catch {
    return null;
  }
}

function route() {
  if (stays()) return;
  current?.stop?.();
  current = null;
  shown = location.hash;
  const path = location.hash.replace(/^#/, "") || "/";
  const main = document.getElementById("page");
  const crumbs = document.getElementById("crumbs");
  for (const [pattern, page] of routes) {
    const found = path.match(pattern);
    if (!found) continue;
    const params = found.slice(1).map(decoded);
    if (params.includes(null)) break; // a malformed link names nothing: not found
    current = page(...params);
    crumbs.replaceChildren(...(current.crumbs || []));
    main.replaceChildren(current.element);
    window.scrollTo(0, 0);
    return;
  }
  crumbs.replaceChildren();
  main.replaceChildren(h("p", { class: "error not-found" }, "Not found: no page has this address. "),
    h("a", { href: "#/" }, "Start over"));
}

accountHeader(document.querySelector("header.top"));
window.addEventListener("hashchange", route);
// The callback of a sign-in is read first: its URL becomes the page the user started from.
auth.start().catch(() => {}).then(route);
