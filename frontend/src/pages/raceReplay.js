// A finished race watched again, on its page: play, pause, a speed, a scrubber over the race's time;
// the board as it stood at that second (its top 10, the signed-in racer's own row below them, each
// row's places gained or lost over the REPLAY_MOVE_SECONDS before), the field's strip (fieldStrip.js)
// and who led when (each change of lead, a button to go there). The arithmetic is replay.js's.
//
// The replay (GET /races/{raceId}/replay: 2.4 MB of JSON for 1,000 racers) is read when asked for
// ("Watch the race again", or opened by #/races/{raceId}/replay), not for every look at the final
// board. It is served once the race is settled: until then (409) the page says so and asks again
// every SETTLING_MS. Playback is a view, not a race: its clock is the page's animation frames.
import { api, ApiError } from "../api.js";
import { myRacerId } from "../auth.js";
import { classMetric } from "../classNames.js";
import { h } from "../dom.js";
import { scoreText } from "../power.js";
import { rankText } from "../fairPlay.js";
import { replayOf } from "../replay.js";
import { ordinal, positionOf } from "../rideFeel.js";
import { timeLeft } from "../time.js";
import { fieldStrip } from "./fieldStrip.js";

const SETTLING_MS = 3000;
const SPEEDS = [1, 5, 20]; // race seconds a second of playback
const TOP = 10;
const MOVE_SECONDS = 10; // a row's ▲/▼: the places it gained or lost over this much of the race before
const BINS = 60;

const raceTime = (second) => timeLeft(second * 1000); // "2:30"

export function raceReplay(raceId, { open = false } = {}) {
  const status = h("p", { class: "replay-status muted", "aria-live": "polite" });
  const watch = h("button", { type: "button", class: "button watch", onclick: () => load() }, "▶ Watch the race again");

  const play = h("button", { type: "button", class: "play", onclick: () => (playing ? pause() : start()) }, "▶ Play");
  const speedButtons = SPEEDS.map((rate) => h("button", { type: "button", class: "speed", "data-speed": rate,
    "aria-pressed": String(rate === SPEEDS[0]), onclick: () => setSpeed(rate) }, `${rate}×`));
  const clock = h("output", { class: "replay-clock" });
  const scrubber = h("input", { type: "range", class: "scrubber", min: 0, max: 0, step: 1, value: 0,
    "aria-label": "Race time", oninput: () => scrubTo(Number(scrubber.value)) });

  const strip = fieldStrip(BINS);
  const fieldHeading = h("span", { class: "muted" });
  const field = h("figure", { class: "replay-field" }, h("figcaption", {}, h("strong", {}, "The field"), " ", fieldHeading),
    strip.element);

  const boardRows = [];
  const body = h("tbody");
  const boardTime = h("span");
  const board = h("table", { class: "board replay-board" },
    h("caption", {}, "The board at ", boardTime, h("span", { class: "muted" }, ` · ▲▼ places over the ${MOVE_SECONDS} s before`)),
    h("thead", {}, h("tr", {}, h("th", { class: "num" }, "#"), h("th", { class: "move" }, ""),
      h("th", { class: "name" }, "Racer"), h("th", { class: "num" }, "Score"))), body);

  const leadList = h("ol", { class: "leads" });
  const leads = h("section", { class: "replay-leads" }, h("h3", {}, "The lead"), leadList);

  const view = h("div", { class: "replay-view", hidden: true },
    h("div", { class: "replay-controls" }, play, h("span", { class: "speeds", role: "group", "aria-label": "Speed" }, speedButtons), clock),
    scrubber, field, board, leads);
  const element = h("section", { class: "replay", hidden: true }, h("h2", {}, "Replay"), watch, status, view);

  let watched = null;
  let position = 0; // the step shown, with its fraction while playing
  let shownStep = -1;
  let speed = SPEEDS[0];
  let playing = false;
  let frame = null;
  let lastFrameAt = null;
  let retry = null;
  let loading = false;
  let stopped = false;
  let leadItems = [];
  let metric = null; // the class's: a power race's scores read as kJ
  const score = (value) => scoreText(value, metric);
  let shownLead = null;

  async function load() {
    if (loading || watched || stopped) return;
    loading = true;
    watch.hidden = true;
    status.hidden = false;
    status.textContent = "Reading the replay…";
    try {
      const answer = await api.replay(raceId);
      metric = await classMetric(answer.classId).catch(() => null);
      if (stopped) return;
      performance.mark("replay-read");
      watched = replayOf(answer);
      performance.measure("replay-prepare", "replay-read");
      status.hidden = true;
      build();
    } catch (error) {
      if (stopped) return;
      if (error instanceof ApiError && error.status === 409) {
        status.textContent = "The race is being settled: its replay follows in a few seconds.";
        retry = setTimeout(() => { retry = null; load(); }, SETTLING_MS);
      } else {
        status.textContent = `The replay could not be read: ${error.message}`;
        watch.hidden = false;
        watch.textContent = "Try again";
      }
    } finally {
      loading = false;
    }
  }

  function build() {
    scrubber.max = String(watched.steps - 1);
    leadItems = watched.leads.map((lead) => {
      const second = watched.secondOf(lead.from);
      return h("li", {}, h("button", { type: "button", class: "link-button", "data-step": lead.from, onclick: () => scrubTo(lead.from) },
        raceTime(second)), " ", h("span", { class: "name" }, lead.name), " takes the lead");
    });
    leadList.replaceChildren(...leadItems);
    leads.hidden = !leadItems.length;
    view.hidden = false;
    show(0);
  }

  function rowOf(tr) {
    const cells = tr.children;
    return { tr, rank: cells[0], move: cells[1], name: cells[2].firstChild, score: cells[3] };
  }

  function boardRow(index) {
    while (boardRows.length <= index) {
      const tr = h("tr", {}, h("td", { class: "num rank" }), h("td", { class: "move" }), h("td", { class: "name" }, h("a")),
        h("td", { class: "num score" }));
      body.append(tr);
      boardRows.push(rowOf(tr));
    }
    return boardRows[index];
  }

  // Each part of the row set only where it changed: a replayed second re-lays out what moved alone.
  function fillRow(cells, row, moved, mine, apart) {
    const set = (node, key, value) => { if (node[key] !== value) node[key] = value; };
    cells.tr.hidden = false;
    if (cells.tr.dataset.racer !== row.racerId) {
      cells.tr.dataset.racer = row.racerId;
      cells.name.textContent = row.name;
      cells.name.href = `#/racers/${encodeURIComponent(row.racerId)}/${encodeURIComponent(raceId)}`;
    }
    set(cells.tr, "className", [row.review ? `review-${row.review}` : "", mine ? "mine" : "", apart ? "apart" : ""].join(" ").trim());
    set(cells.rank, "textContent", rankText(row.rank));
    set(cells.move, "textContent", moved > 0 ? `▲${moved}` : moved < 0 ? `▼${-moved}` : "");
    set(cells.move, "className", `move ${moved > 0 ? "up" : moved < 0 ? "down" : ""}`.trim());
    set(cells.score, "textContent", score(row.score));
  }

  function draw(k) {
    const second = watched.secondOf(k);
    clock.textContent = `${raceTime(second)} · second ${second}`;
    boardTime.textContent = raceTime(second);
    scrubber.value = String(k);
    scrubber.setAttribute("aria-valuetext", `${raceTime(second)}, second ${second}`);
    element.dataset.second = String(second);

    const moved = watched.movedSince(k, Math.max(0, k - Math.round(MOVE_SECONDS / watched.step)));
    const mine = myRacerId();
    const shown = watched.board(k, TOP);
    const own = mine ? watched.rowOf(mine, k) : null;
    if (own && !shown.some((row) => row.racerId === mine)) shown.push(own);
    shown.forEach((row, index) => fillRow(boardRow(index), row, moved[row.index], row.racerId === mine, index >= TOP));
    for (let index = shown.length; index < boardRows.length; index += 1) boardRows[index].tr.hidden = true;

    const { counts, low, high, riders } = watched.bins(k, BINS);
    const leader = watched.leadAt(k);
    fieldHeading.textContent = ` · ${riders.toLocaleString()} ${riders === 1 ? "rider" : "riders"} by score`;
    strip.draw({
      counts,
      marks: own && own.rank !== null ? [{ kind: "you", at: positionOf(own.score, low, high), label: `You · ${ordinal(own.rank)}`, band: "yours" }] : [],
      low: `last ${score(low)}`,
      leader: leader ? ["leader", h("span", { class: "name" }, leader.racerId === mine ? "You" : leader.name), score(high)]
        : [h("span", { class: "name" }, "no one has scored yet")],
    });

    const at = leader ? watched.leads.indexOf(leader) : -1;
    if (at !== shownLead) {
      leadItems[shownLead]?.classList.remove("now");
      leadItems[at]?.classList.add("now");
      shownLead = at;
    }
  }

  // Draws step `k` where it is not the one shown; timed (the bench reads "replay-step").
  function show(k) {
    const step = Math.floor(k);
    if (step === shownStep) return;
    performance.mark("replay-step-start");
    draw(step);
    performance.measure("replay-step", "replay-step-start");
    shownStep = step;
  }

  function scrubTo(k) {
    position = Math.min(watched.steps - 1, Math.max(0, k));
    show(position);
  }

  function tick(now) {
    frame = null;
    if (!playing || stopped) return;
    if (lastFrameAt !== null) position += ((now - lastFrameAt) / 1000) * (speed / watched.step);
    lastFrameAt = now;
    if (position >= watched.steps - 1) {
      scrubTo(watched.steps - 1);
      pause();
      return;
    }
    show(position);
    frame = requestAnimationFrame(tick);
  }

  function start() {
    if (position >= watched.steps - 1) scrubTo(0); // from the start again
    playing = true;
    lastFrameAt = null;
    play.textContent = "❚❚ Pause";
    element.dataset.playing = "true";
    frame = requestAnimationFrame(tick);
  }

  function pause() {
    playing = false;
    if (frame !== null) cancelAnimationFrame(frame);
    frame = null;
    play.textContent = "▶ Play";
    element.dataset.playing = "false";
  }

  function setSpeed(rate) {
    speed = rate;
    for (const button of speedButtons) button.setAttribute("aria-pressed", String(Number(button.dataset.speed) === rate));
  }

  return {
    element,
    // The race is finished: the replay may be watched (read now where the page was opened for it).
    offer() {
      if (!element.hidden) return;
      element.hidden = false;
      if (open) {
        load();
        element.scrollIntoView?.();
      }
    },
    stop() {
      stopped = true;
      pause();
      clearTimeout(retry);
    },
  };
}
