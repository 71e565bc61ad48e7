// A racer: their races, and the per-second chart of one race (refreshed while it is open). Each
// result shows its race's day and time, its equipment, its place of the field ("3rd of 21") and its
// review ("under review", "disqualified": no rank); the racer themselves (and admins) read why, rule by
// rule, with the admin's note.
//
// One figure for a race's total. While a race is open its result (GET /racers/{id}/results) lags by
// design: its score counts a 30-s chunk of seconds once the chunk is done (docs/architecture.md), while
// the history holds every second stored and the race board follows it within 2 s. So for an open race
// the page shows the sum of the history's seconds, "so far", in the results row and under the chart
// alike: what the board shows. Once the race is finished the result's score is exact (the finish
// totals the stored seconds) and both places show it.
//
// A power class's results (contract v1.3) read as kilojoules, with the average watts: in the results, the
// score ÷ (lastSecond + 1) (the seconds from the race's start to the racer's last); under the chart, the
// exact mean of the history's watts (its 6th column) over the seconds that carry one.
//
// The racer signed in on their own page may download each ride as a FIT file, built here from its
// history (fitExport.js, loaded on the click: docs/export.md).
/* global FIT_EXPORT */
import { api } from "../api.js";
import { auth } from "../auth.js";
import { className, classMetrics, classNames } from "../classNames.js";
import { errorBox, h, link, ordinal, score } from "../dom.js";
import { equipmentClass, equipmentLabel, reviewLabel, reviewReason } from "../fairPlay.js";
import { OutputChart } from "../chart.js";
import { averageWatts, kilojoules, POWER, scoreWithWatts, secondsUpTo, watts } from "../power.js";
import { poll } from "../poll.js";
import { raceHref, raceLabel, replayHref } from "../races.js";
import { startDate } from "../time.js";
import { crumbs } from "../header.js";

const REFRESH_MS = 3000;

const racerHref = (racerId, raceId) => `#/racers/${encodeURIComponent(racerId)}/${encodeURIComponent(raceId)}`;

// A result's rank: its place of the field once finished ("3rd of 21"; "3rd" while the field's size is
// not read), "—" when disqualified, else the race's status ("open").
function rankOf(item, fieldSize) {
  if (item.review === "disqualified") return "—";
  if (item.rank == null) return item.status;
  return fieldSize ? `${ordinal(item.rank)} of ${Math.max(fieldSize, item.rank)}` : ordinal(item.rank);
}

// How many raced each finished race (its racerCount: final once it is finished), read once a race.
const fieldSizes = new Map(); // raceId -> Promise of racerCount (null when it could not be read)
function fieldSize(raceId) {
  if (!fieldSizes.has(raceId)) {
    fieldSizes.set(raceId, api.race(raceId).then((race) => race.racerCount, () => {
      fieldSizes.delete(raceId); // read again next time
      return null;
    }));
  }
  return fieldSizes.get(raceId);
}

// The ride's history as a FIT file, saved by the browser as alleycat-<race>.fit.
async function downloadFit(racerId, item, button) {
  button.disabled = true;
  button.textContent = "Preparing…";
  try {
    const [{ rideFit }, history] = await Promise.all([import(FIT_EXPORT), api.racerHistory(racerId, item.raceId)]);
    const bytes = rideFit({ startsAt: item.startsAt, equipment: item.equipment, samples: history.races[0]?.samples ?? [] });
    if (!bytes) {
      button.textContent = "No second ridden: nothing to download";
      return;
    }
    const url = URL.createObjectURL(new Blob([bytes], { type: "application/vnd.ant.fit" }));
    const save = h("a", { href: url, download: `alleycat-${item.raceId}.fit`, hidden: "" });
    document.body.append(save);
    save.click();
    save.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    button.textContent = "Download .fit";
  } catch (error) {
    button.textContent = `Not downloaded (${error.message}): try again`;
  } finally {
    button.disabled = false;
  }
}

function fitButton(racerId, item) {
  const button = h("button", { type: "button", class: "link-button download-fit", "data-race": item.raceId,
    onclick: () => downloadFit(racerId, item, button) }, "Download .fit");
  return button;
}

// names: { classId: class name } (a race reads as "Hill climb · Fri, 27 Nov, 18:30"); sizes: { raceId:
// racerCount } of the finished races; scores: { raceId: {score, lastSecond} } shown instead of a result's own
// (an open race's total so far, from its history); why: whether the reasons of a review are shown (to the racer themselves and to admins);
// own: the racer's own page, signed in (their rides may be downloaded); metrics: { classId: metric }.
function resultsTable(racerId, items, selected, names, sizes, scores, why, own = false, metrics = {}) {
  const rows = items.flatMap((item) => {
    const label = reviewLabel(item.review);
    const reason = why ? reviewReason(item.review, item.rules, item.note) : null;
    const classes = [item.raceId === selected ? "selected" : "", item.review ? `review-${item.review}` : ""].join(" ").trim();
    return [
      h("tr", { class: classes, "data-race": item.raceId },
        h("td", { class: "name" }, link(racerHref(racerId, item.raceId), raceLabel(item, names[item.classId], startDate)),
          label ? h("small", { class: "tag" }, label) : null,
          own && item.lastSecond != null ? fitButton(racerId, item) : null), // a ride without a second has no file
        h("td", { class: `equipment ${equipmentClass(item.equipment)}` }, equipmentLabel(item.equipment)),
        h("td", { class: "num" }, scoreWithWatts(scores[item.raceId]?.score ?? item.score,
          secondsUpTo(scores[item.raceId]?.lastSecond ?? item.lastSecond), metrics[item.classId])),
        h("td", { class: "num rank" }, rankOf(item, sizes[item.raceId]))),
      reason ? h("tr", { class: `why review-${item.review}`, "data-race": item.raceId },
        h("td", { colspan: "4" }, reason)) : null,
    ].filter(Boolean);
  });
  return h("table", { class: "results" },
    h("thead", {}, h("tr", {}, h("th", { class: "name" }, "Race"), h("th", { class: "equipment" }, "Ride"),
      h("th", { class: "num" }, "Score"), h("th", { class: "num" }, "Rank"))),
    h("tbody", {}, rows));
}

export function racerPage(racerId, raceId) {
  const title = h("h1", {}, racerId);
  const chartTitle = h("h2");
  const chartBox = h("div", { class: "chart" });
  const totals = h("p", { class: "muted totals" });
  const results = h("div");
  // The signed-in racer's own page says so, with the way to their account (their name, their races).
  const yours = h("p", { class: "yours", hidden: true }, "This is you · ", link("#/me", "Your account →"));
  const showYours = () => {
    yours.hidden = auth.identity?.racerId !== racerId;
  };
  showYours();
  const stopYours = auth.onChange(showYours);
  const element = h("section", {}, title, yours, chartTitle, totals, chartBox,
    h("h2", {}, "Races"), results);
  const chart = new OutputChart(chartBox);
  const raceLink = h("span");

  let selected = raceId;
  let shownRace = null;
  const stop = poll(REFRESH_MS, async () => {
    try {
      const racer = await api.racerResults(racerId);
      const [names, sizes, metrics] = await Promise.all([classNames(racer.items.map((item) => item.classId)),
        Promise.all(racer.items.filter((item) => item.rank != null)
          .map(async (item) => [item.raceId, await fieldSize(item.raceId)])).then(Object.fromEntries),
        classMetrics(racer.items.map((item) => item.classId))]);
      title.textContent = racer.name;
      selected ||= racer.items[0]?.raceId;
      const why = auth.identity?.racerId === racerId || Boolean(auth.identity?.admin);
      const own = auth.identity?.racerId === racerId;
      if (!selected) {
        results.replaceChildren(resultsTable(racerId, racer.items, selected, names, sizes, {}, why, own, metrics));
        chartTitle.textContent = "No races yet";
        return;
      }
      const history = await api.racerHistory(racerId, selected);
      const entry = racer.items.find((item) => item.raceId === selected);
      const samples = history.races[0]?.samples || [];
      // A race older than the results' first page is finished: its seconds' sum is its score.
      const open = !entry || entry.status === "open";
      // The race's class's metric: the selected race may be older than the results' first page.
      const metric = entry ? metrics[entry.classId] : null;
      const power = metric === POWER;
      const total = open ? samples.reduce((sum, sample) => sum + ((power ? sample[5] : sample[3]) ?? 0), 0) : entry.score;
      results.replaceChildren(resultsTable(racerId, racer.items, selected, names, sizes,
        entry && open ? { [selected]: { score: total, lastSecond: samples.at(-1)?.[0] ?? null } } : {}, why, own, metrics));
      // A race older than the results' first page: read on its own, once.
      shownRace = entry || (shownRace?.raceId === selected ? shownRace : await api.race(selected));
      const name = await className(shownRace.classId).catch(() => null);
      chartTitle.replaceChildren(raceLabel(shownRace, name, startDate), " ", h("small", {}, "output per second"));
      raceLink.replaceChildren(link(raceHref(selected), "Race board →"),
        ...(shownRace.status === "finished" ? [" · ", link(replayHref(selected), "Watch the replay →")] : []));
      const soFar = entry && open ? " so far" : "";
      const beats = samples.map((sample) => sample[4]).filter((bpm) => bpm != null);
      const heart = beats.length
        ? ` · heart rate ${Math.round(beats.reduce((sum, bpm) => sum + bpm, 0) / beats.length)} bpm on average` : "";
      // The watts ridden, where the seconds carry them (a trainer that measures power, in any class).
      const measured = samples.map((sample) => sample[5]).filter((value) => value != null);
      const average = averageWatts(measured.reduce((sum, value) => sum + value, 0), measured.length);
      const wattsText = average === null ? "" : ` · ${watts(average)} on average`;
      const scoreShown = power ? kilojoules(total) : `score ${score(total)}`;
      totals.replaceChildren(`${samples.length} seconds · ${scoreShown}${soFar}${wattsText}${heart} · `, raceLink);
      chart.show(samples);
      // Read again while the race is open, or while a result waits for an admin's decision.
      return !entry || entry.status === "open" || racer.items.some((item) => item.review === "pending");
    } catch (error) {
      element.replaceChildren(title, yours, errorBox(error));
      return false;
    }
  });
  return {
    element,
    stop: () => { stop(); stopYours(); chart.destroy(); },
    crumbs: crumbs(link("#/", "Home")),
  };
}
