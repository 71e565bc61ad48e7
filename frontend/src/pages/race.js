// The live race leaderboard: pushed over AppSync Events while its socket is up (push.js), polled
// every second otherwise (and for the first paint).
//
// What it asks for is what a viewer sees: the top 100 (one answer every viewer shares at the
// edge), the pages below only when asked ("Show 100 more"), and the signed-in racer's own row
// when it is below them — refreshed every OWN_ROW_MS from the smallest page that holds it. Every
// limit is a multiple of the page, so CloudFront keeps a few answers, not one per viewer. The race
// itself (its racer count) is read again every RACE_MS while it is open.
//
// Every row shows its equipment (an icon and a word: "bike", "trainer", "virtual") and its review ("under review",
// "disqualified": no rank). "Real equipment only" reads the board of bikes and trainers ranked alone
// (?equipment=real), polled: pushed messages rank every ride together. A finished race's board is
// read again every second while a ride on it is under review: an admin's decision shows within 5 s.
//
// A power class's race (contract v1.3; its metric read from its class: classNames.js) shows its scores as
// kilojoules and each racer's average watts: score ÷ (lastSecond + 1), the seconds from the race's start
// to their last counted one (the board knows no more: a racer who joined late reads lower than they rode).
import { api, ApiError, fairPlayApi } from "../api.js";
import { className, classMetric } from "../classNames.js";
import { countdowns } from "../countdown.js";
import { errorBox, h, link } from "../dom.js";
import { equipmentClass, equipmentLabel, reviewLabel } from "../fairPlay.js";
import { Leaderboard } from "../leaderboard.js";
import { averageWatts, kilojoules, OUTPUT, POWER, scoreText, secondsUpTo, watts } from "../power.js";
import { myRacerId } from "../auth.js";
import { poll } from "../poll.js";
import { liveBoard } from "../push.js";
import { racers } from "../raceList.js";
import { raceLabel } from "../races.js";
import { crumbs } from "../header.js";
import { ghostPicker } from "./ghostPicker.js";
import { finishRace } from "./raceAdmin.js";
import { raceReplay } from "./raceReplay.js";
import { duration } from "../time.js";
import { ridePanel } from "./ride.js";

const POLL_MS = 1000;
const OWN_ROW_MS = 5000;
const RACE_MS = 3000; // the race (its racer count) read again while open; its answer is kept 1 s at the edge
const MAX_ROWS = 1000; // the contract's largest limit
// Rows a page: 100; a test may set fewer (localStorage "alleycat.pageRows") to page a small race.
const pageRows = () => Math.min(MAX_ROWS, Number(localStorage.getItem("alleycat.pageRows")) || 100);

// ride: the ride page (#/races/{raceId}/ride): the signed-in racer's ride above the board. replay: the
// page opened to watch the finished race again (#/races/{raceId}/replay).
export function racePage(raceId, { ride = false, replay = false } = {}) {
  const PAGE_ROWS = pageRows();
  // The smallest page limit that holds `rank`, with room for a few places of movement.
  const pageHolding = (rank) => Math.min(MAX_ROWS, Math.ceil((rank + Math.ceil(PAGE_ROWS / 4)) / PAGE_ROWS) * PAGE_ROWS);
  const racer = (item) => `#/racers/${encodeURIComponent(item.racerId)}/${encodeURIComponent(raceId)}`;
  let metric = null; // the class's: "output" or "power", once read
  const powerRace = () => metric === POWER;
  const board = new Leaderboard([
    { title: "Racer", className: "name", value: (item) => item.name, href: racer, tag: (item) => reviewLabel(item.review) },
    { title: "Score", className: "num score", value: (item) => scoreText(item.score, metric) },
    { title: "Second", className: "num hide-narrow", value: (item) => (item.lastSecond ?? "–").toString() },
    // A power race's only (the table's class shows it): score ÷ the seconds up to the racer's last.
    { title: "Avg W", className: "num watts", value: (item) => {
      const average = powerRace() ? averageWatts(item.score, secondsUpTo(item.lastSecond)) : null;
      return average === null ? "–" : watts(average);
    } },
    // Last: the ride page's tests read the score and second by their places (4th, 5th).
    { title: "Ride", className: "equipment", value: (item) => equipmentLabel(item.equipment),
      cellClass: (item) => equipmentClass(item.equipment) },
  ]);
  board.element.querySelector("th.watts").title = "Average watts: the score (joules) ÷ the seconds from the start to the racer's last";
  // The race reads as its class and start ("Hill climb · 18:30") once both are known; its state: a
  // countdown to its start ("starts in 4:12", then "live"), or "finished".
  const title = h("span", {}, "Race");
  const state = h("span", { class: "state" });
  const ticker = countdowns();
  let counting = false;
  const feed = h("small", { class: "feed" });
  const summary = h("p", { class: "muted" });
  const metricNote = h("p", { class: "muted metric-note", hidden: true },
    "Power race: each score is the energy of the racer's measured watts, in kJ; Avg W is that score ÷ the seconds "
    + "from the start to their last counted second.");
  const back = h("span");
  let classShown = null;
  let shown = PAGE_ROWS;
  const more = h("button", { type: "button", class: "more", onclick: () => { shown = Math.min(MAX_ROWS, shown + PAGE_ROWS); refresh().catch(() => {}); } },
    `Show ${PAGE_ROWS} more`);
  const less = h("button", { type: "button", class: "less", onclick: () => { shown = PAGE_ROWS; refresh().catch(() => {}); } },
    `Top ${PAGE_ROWS} only`);
  const paging = h("div", { class: "board-more" }, more, less);
  const nobody = h("p", { class: "empty", hidden: true }, "No racer has joined yet: the board fills as they join.");
  let realOnly = false;
  const realBox = h("input", { type: "checkbox", class: "real-only", onchange: () => {
    realOnly = realBox.checked;
    element.dataset.board = realOnly ? "real" : "all";
    refresh().catch(() => {});
  } });
  const realToggle = h("label", { class: "real-toggle" }, realBox, " Real equipment only",
    h("small", { class: "muted" }, " (bikes and trainers ranked alone)"));
  const rider = ride ? ridePanel(raceId) : null;
  const replayView = ride ? null : raceReplay(raceId, { open: replay });
  const picker = ride ? null : ghostPicker(raceId, myRacerId()); // the ride page has its own, until the start
  const rideLink = h("a", { class: "button primary ride-link", href: `#/races/${encodeURIComponent(raceId)}/ride`, hidden: true },
    "Join and ride →");
  const element = h("section", {}, h("h1", {}, title, " ", state, " ", feed),
    summary, metricNote, replayView?.element, rider ? rider.element : h("div", {}, picker.element, h("p", {}, rideLink)), realToggle,
    board.element, nobody, paging);
  element.dataset.board = "all";

  let race = null;
  let raceAt = 0;
  let standings = null;
  const own = { row: null, limit: null, at: 0, absent: false, racerId: null };
  const finisher = finishRace(raceId); // admins only: "Finish now" while the race is open
  summary.after(finisher.element);

  // The signed-in racer's row when the page does not show it: from the smallest page holding it, at
  // most every OWN_ROW_MS; its rank not known yet (or lost), from the whole board once.
  async function ownRow(mine, now) {
    if (!mine || standings.items.some((item) => item.racerId === mine)) return null;
    if (own.racerId !== mine) Object.assign(own, { row: null, limit: null, at: 0, absent: false, racerId: mine });
    if (own.absent === race.racerCount || now - own.at < OWN_ROW_MS) return own.row;
    own.at = now;
    own.limit = own.row?.rank != null ? pageHolding(own.row.rank) : MAX_ROWS;
    const page = await readBoard(own.limit);
    own.row = page.items.find((item) => item.racerId === mine) || null;
    // Not in this race: looked for again once someone joins (the racer, maybe, from the ride page).
    own.absent = !own.row && own.limit >= MAX_ROWS ? race.racerCount : false;
    return own.row;
  }

  // The race: read first, then every RACE_MS while it is open (racers join before and during it), and
  // once more when the board says it finished (its final racer count; after that it cannot change).
  // Whether it was read.
  async function readRace(now) {
    const finishing = race?.status === "open" && standings && standings.status !== "open";
    if (race && (race.status !== "open" || now - raceAt < RACE_MS) && !finishing) return false;
    raceAt = now;
    race = await api.race(raceId);
    return true;
  }

  // The class's name, read once: the title and the way back to the class.
  function showClass(classId) {
    if (classShown === classId) return;
    classShown = classId;
    const classLink = link(`#/classes/${encodeURIComponent(classId)}`, classId);
    back.replaceChildren(classLink);
    className(classId).then((name) => {
      classLink.textContent = name;
      title.textContent = raceLabel(race, name);
    }, () => {
      title.textContent = raceLabel(race); // the class id, where its name cannot be read
    });
  }

  // The class's metric, read once (a race's answers do not carry it): a power race's board shows kJ and watts.
  async function readMetric(classId) {
    if (metric !== null) return;
    metric = await classMetric(classId).catch(() => OUTPUT); // unread: the board as ever; a power join's 409 says why
    board.element.classList.toggle("metric-power", powerRace());
    metricNote.hidden = !powerRace();
  }

  function draw() {
    showClass(standings.classId);
    if (standings.status !== "open") {
      ticker.stop();
      counting = false;
      state.replaceChildren(h("span", { class: `status ${standings.status}` }, standings.status));
    } else if (!counting) {
      counting = true;
      state.replaceChildren(ticker.element(race.startsAt));
    }
    const mine = myRacerId();
    const row = own.racerId === mine && !standings.items.some((item) => item.racerId === mine) ? own.row : null;
    const items = row && (row.rank ?? Infinity) > standings.items.length ? [...standings.items, row] : standings.items;
    // The race's racerCount follows joins through the table's stream, a few seconds after the board
    // shows them (the race is read every RACE_MS): the count is never fewer than the board's rows.
    const leader = standings.items[0];
    summary.textContent = `${racers(Math.max(race.racerCount, items.length))} · ${duration(race.durationSeconds)}`
      + (leader ? ` · leader ${leader.name}, second ${leader.lastSecond ?? 0}` : "")
      + (leader && powerRace() ? ` · ${kilojoules(leader.score)}` : "");
    board.update(items, Date.now(), { mine, apart: items.length > standings.items.length ? row.racerId : null });
    rideLink.hidden = standings.status !== "open";
    if (standings.status === "finished") replayView?.offer();
    picker?.update(race, standings.status === "open");
    rider?.update({ race, standings, own: items.find((item) => item.racerId === mine) || null, metric });
    finisher.update(standings.status);
    nobody.hidden = items.length > 0;
    more.hidden = standings.items.length < shown || shown >= MAX_ROWS;
    less.hidden = shown <= PAGE_ROWS;
  }

  // The board as asked for: every ride, or the real equipment's alone.
  const readBoard = (limit) => (realOnly ? fairPlayApi.realRaceLeaderboard(raceId, limit) : api.raceLeaderboard(raceId, limit));

  async function refresh() {
    const real = realOnly;
    const read = await readBoard(shown);
    if (real !== realOnly) return true; // the toggle changed meanwhile: its own read draws
    if (own.real !== real) {
      if (own.real !== undefined) board.clear(); // the other board: its places are no movement
      Object.assign(own, { row: null, limit: null, at: 0, absent: false, real });
    }
    standings = read;
    await readMetric(read.classId);
    await readRace(Date.now());
    await ownRow(myRacerId(), Date.now());
    draw();
    if (standings.status !== "open") push.close();
    return standings.status === "open" || standings.items.some((item) => item.review === "pending");
  }

  // The rows held now, the racer's own row among them: what a pushed message is merged into.
  const held = () => {
    if (!race || !standings) return null;
    const extra = own.row && !standings.items.some((item) => item.racerId === own.row.racerId) ? [own.row] : [];
    return { ...standings, items: [...standings.items, ...extra] };
  };
  const showPushed = (merged) => {
    if (realOnly) return; // pushed rows rank every ride: the real board is polled
    const mine = myRacerId();
    const mineMerged = merged.items.find((item) => item.racerId === mine);
    standings = { ...merged, items: merged.items.filter((item) => item.rank <= shown).slice(0, shown) };
    if (mineMerged && !standings.items.includes(mineMerged)) own.row = mineMerged;
    draw();
  };
  // While pushed, polling stops; the race (its racer count) still refreshes every RACE_MS, the
  // racer's own row (far down, left out of most messages) every OWN_ROW_MS.
  const pushedOnly = async () => {
    if (!standings) return true;
    const raceRead = await readRace(Date.now());
    if ((await ownRow(myRacerId(), Date.now())) !== null || raceRead) draw();
    return true;
  };
  // A read that fails once the board is shown (a train's tunnel) keeps the board and says so; the
  // next poll tries again. A first read that fails (no such race) is the page's answer.
  let feedKind = "poll";
  const showFeed = (kind) => {
    feed.textContent = { push: "pushed", poll: "polling", down: "reconnecting…" }[kind];
    feed.className = `feed ${kind}`;
  };
  const load = async () => {
    try {
      const open = await (push.live && !realOnly ? pushedOnly() : refresh());
      showFeed(feedKind);
      return open;
    } catch (error) {
      if (standings && !(error instanceof ApiError && error.status === 404)) {
        showFeed("down");
        return true;
      }
      element.replaceChildren(errorBox(error));
      push.close();
      return false;
    }
  };
  const push = liveBoard(raceId, {
    standings: held,
    show: showPushed,
    reread: () => refresh().catch(() => {}),
    rowsShown: () => shown,
    onFeed: (kind) => {
      element.dataset.feed = feedKind = kind;
      showFeed(kind);
    },
  });
  const stopPolling = poll(POLL_MS, load);
  const stop = () => {
    stopPolling();
    rider?.stop();
    replayView?.stop();
    finisher.stop();
    push.close();
    ticker.stop();
  };
  return { element, stop, leaving: () => rider?.leaving() ?? null, crumbs: crumbs(link("#/", "Home"), back) };
}

export const ridePage = (raceId) => racePage(raceId, { ride: true });
export const replayPage = (raceId) => racePage(raceId, { replay: true });
