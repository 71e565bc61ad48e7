// The race around the rider, on the ride page: the big 3-2-1 before the start, the riders just ahead
// and behind (their names and the gaps in score points), and the field: every rider as a band of
// score on a strip (fieldStrip.js), the rider marked, the leader and the last rider at its ends. The
// arithmetic is in rideFeel.js; the sound cues in sound.js.
//
// What the page has: the board the race page shows (its top 100, pushed or polled each second) and the
// racer's own row. In a race of more racers than that, the field is read here as one board read that
// holds them all (`GET /races/{raceId}/leaderboard?limit=`, the smallest multiple of 100 that holds
// the race's racers, at most the contract's 1,000: an answer every rider of the race shares at the
// edge) every FIELD_MS; rows the board shows or pushed since are fresher and replace its rows. A race
// of more than 1,000 racers draws its top 1,000 and says so.
import { api } from "../api.js";
import { h } from "../dom.js";
import { scoreText } from "../power.js";
import { cueFor, fieldBins, fieldLimit, mergeRows, momentOf, neighbours, onwards, ordinal, positionOf } from "../rideFeel.js";
import { serverClock } from "../serverTime.js";
import { soundCues } from "../sound.js";
import { fieldStrip } from "./fieldStrip.js";

const FIELD_MS = 5000; // the whole field read again at most this often (the racer's own row is read as often: race.js)
const PAGE = 100; // the board's page: a field read asks a multiple of it
const MAX_LIMIT = 1000; // the contract's largest limit
const BINS = 60;
const GHOST_LABEL_ROOM_PX = 70; // a ghost's mark closer to the rider's: its label would cover theirs
const COUNTED = ["3", "2", "1", "Go"]; // the moments (rideFeel.js momentOf) shown big

// onSecond(): called on each of the server's whole seconds of the race while it is not over (the panel
// draws itself again: the time left, the count).
export function raceFeel(raceId, { onSecond }) {
  const sound = soundCues();
  const count = h("div", { class: "ride-count", "aria-live": "assertive", hidden: true });

  const gapLine = (which) => h("p", { class: `gap-line ${which}` }, h("span", { class: "arrow" }, which === "ahead" ? "▲" : "▼"),
    h("span", { class: "who" }), h("strong", { class: "gap" }));
  const ahead = gapLine("ahead");
  const behind = gapLine("behind");
  const gaps = h("div", { class: "ride-gaps", hidden: true }, ahead, behind);

  const strip = fieldStrip(BINS);
  const heading = h("span", { class: "muted" });
  const note = h("p", { class: "field-note muted", hidden: true });
  const field = h("figure", { class: "ride-field", hidden: true },
    h("figcaption", {}, h("strong", {}, "The field"), " ", heading),
    strip.element, note);

  let snapshot = null; // the whole field's last read: its rows
  let readAt = -Infinity;
  let reading = false;
  let moment = null;
  let timer = null;
  let stopped = false;
  let latest = null;
  const score = (value) => scoreText(value, latest?.metric); // kJ in a power class (its metric: the panel's)

  // The whole field read, where the board shown lacks racers; once more after the finish (its final scores).
  function readField(race, shown, over) {
    const racers = race.racerCount || 0;
    if (reading || stopped || racers <= shown || (over && snapshot?.final)) return;
    if (!over && Date.now() - readAt < FIELD_MS) return;
    reading = true;
    readAt = Date.now();
    api.raceLeaderboard(raceId, fieldLimit(racers, PAGE, MAX_LIMIT)).then((board) => {
      snapshot = { items: board.items, final: board.status !== "open" };
      if (latest && !stopped) draw(latest);
    }, () => {}).finally(() => { reading = false; }); // a failed read: the next second's show tries again
  }

  function tick() {
    timer = null;
    if (stopped) return;
    onSecond();
  }

  // The next call of onSecond: as the server's clock reaches the race's next whole second.
  function schedule(race, over) {
    if (timer !== null || stopped || over) return;
    const since = (((serverClock.now() - Date.parse(race.startsAt)) % 1000) + 1000) % 1000;
    timer = setTimeout(tick, 1000 - since);
  }

  function drawGap(line, who, none) {
    line.dataset.racer = who?.racerId ?? "";
    line.querySelector(".who").textContent = who ? who.name ?? "" : none;
    line.querySelector(".gap").textContent = who ? `${score(who.gap)} ${line.classList.contains("ahead") ? "ahead" : "behind"}` : "";
  }

  function draw({ race, standings, own, racerId, ghost }) {
    const rows = mergeRows(snapshot?.items, standings?.items, own ? [own] : []);
    const mine = rows.find((row) => row.racerId === racerId);
    const { counts, low, high, riders } = fieldBins(rows, BINS);
    // Until someone scores, everyone is level at 0: no one is ahead, no one behind, the field one dot.
    gaps.hidden = !mine || mine.review === "disqualified" || !(high > 0);
    field.hidden = !(high > 0);
    if (field.hidden) return;
    const near = neighbours(rows, racerId);
    drawGap(ahead, near.ahead, "No one ahead: you lead");
    drawGap(behind, near.behind, "No one behind");

    const leader = rows.find((row) => row.review !== "disqualified");
    const racers = Math.max(race.racerCount || 0, rows.length);
    heading.textContent = ` · ${riders.toLocaleString()} ${riders === 1 ? "rider" : "riders"} by score`;
    note.hidden = rows.length >= racers; // (a disqualified ride is read, not drawn)
    note.textContent = `Drawn: the ${rows.length.toLocaleString()} rides the page has read of ${racers.toLocaleString()}.`;
    const marks = [];
    if (mine) {
      const rank = own ? own.rank : mine.review === "disqualified" ? null
        : rows.filter((row) => row.review !== "disqualified").indexOf(mine) + 1; // its place in what the page has
      marks.push({ kind: "you", at: positionOf(mine.score, low, high), label: rank != null ? `You · ${ordinal(rank)}` : "You",
        band: "yours", hidden: mine.review === "disqualified" });
    }
    if (ghost) { // rideGhost.js; its label left out where it would cover the rider's (its colour is the ghost line's)
      const at = positionOf(ghost.score, low, high);
      const youAt = marks[0] && !marks[0].hidden ? marks[0].at : null;
      const apart = youAt === null ? Infinity : Math.abs(at - youAt) * (strip.element.clientWidth || 0);
      marks.push({ kind: "ghost", at, label: apart < GHOST_LABEL_ROOM_PX ? "" : "Ghost" });
    }
    strip.draw({
      counts,
      marks,
      low: `last ${score(low)}`,
      leader: [leader.racerId === racerId ? "" : "leader", h("span", { class: "name" },
        leader.racerId === racerId ? "You lead" : leader.name ?? ""), score(high)],
    });
  }

  const redraw = () => latest && !stopped && draw(latest); // the ghost's label needs room measured in pixels
  window.addEventListener("resize", redraw);

  return {
    count,
    gaps,
    field,
    sound: sound.element,
    // The panel's latest: the race, the board shown, the racer's own row, whether the ride is over.
    show(panel) {
      latest = panel;
      const { race, standings, over } = latest;
      const now = serverClock.now();
      const next = onwards(moment, momentOf(race, now));
      const cue = cueFor(moment, next);
      moment = next;
      if (cue) sound.play(cue);
      const shownCount = over || !COUNTED.includes(moment) ? null : moment;
      count.hidden = shownCount === null;
      count.textContent = shownCount ?? "";
      readField(race, standings?.items.length ?? 0, over);
      draw(latest);
      schedule(race, over || now >= Date.parse(race.startsAt) + race.durationSeconds * 1000 + 1000);
    },
    stop() {
      stopped = true;
      window.removeEventListener("resize", redraw);
      clearTimeout(timer);
      sound.stop();
    },
  };
}
