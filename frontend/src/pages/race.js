// The live race leaderboard: pushed over AppSync Events while its socket is up (push.js), polled
// every second otherwise (and for the first paint).
import { api } from "../api.js";
import { errorBox, h, link, score, when } from "../dom.js";
import { Leaderboard } from "../leaderboard.js";
import { poll } from "../poll.js";
import { liveBoard } from "../push.js";

const POLL_MS = 1000;

export function racePage(raceId) {
  const racer = (item) => `#/racers/${encodeURIComponent(item.racerId)}/${encodeURIComponent(raceId)}`;
  const board = new Leaderboard([
    { title: "Racer", className: "name", value: (item) => item.name, href: racer },
    { title: "Score", className: "num", value: (item) => score(item.score) },
    { title: "Second", className: "num hide-narrow", value: (item) => (item.lastSecond ?? "–").toString() },
  ]);
  const status = h("span", { class: "status" });
  const feed = h("small", { class: "feed" });
  const summary = h("p", { class: "muted" });
  const back = h("span");
  const element = h("section", {}, h("h1", {}, "Race ", h("small", {}, raceId), " ", status, " ", feed),
    summary, board.element);

  let race = null;
  let shown = null;
  const show = (standings) => {
    shown = standings;
    back.replaceChildren(link(`#/classes/${encodeURIComponent(standings.classId)}`, standings.classId));
    status.textContent = standings.status === "open" ? "live" : standings.status;
    status.className = `status ${standings.status}`;
    const leader = standings.items[0];
    summary.textContent = `${standings.items.length} racers · started ${when(race.startsAt)} · `
      + `${race.durationSeconds} s` + (leader ? ` · leader ${leader.name}, second ${leader.lastSecond ?? 0}` : "");
    board.update(standings.items);
  };
  const load = async () => {
    try {
      race ||= await api.race(raceId);
      const standings = await api.raceLeaderboard(raceId);
      show(standings);
      if (standings.status !== "open") push.close();
      return standings.status === "open";
    } catch (error) {
      element.replaceChildren(errorBox(error));
      push.close();
      return false;
    }
  };
  const push = liveBoard(raceId, {
    standings: () => (race ? shown : null),
    show,
    reread: load,
    onFeed: (kind) => {
      element.dataset.feed = kind;
      feed.textContent = kind === "push" ? "pushed" : "polling";
      feed.className = `feed ${kind}`;
    },
  });
  const stopPolling = poll(POLL_MS, async () => (push.live ? true : load()));
  const stop = () => {
    stopPolling();
    push.close();
  };
  return { element, stop, crumbs: [link("#/", "Classes"), " / ", back] };
}
