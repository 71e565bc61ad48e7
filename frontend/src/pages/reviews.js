// Reviews (#/reviews[/pending|cleared|disqualified], admins only): the rides the plausibility rules
// flagged (docs/fair-play.md), a tab a state, 20 at a time ("More reviews"). Each opens the ride's
// chart (GET /racers/{racerId}/history?raceId=) beside the rule(s) it broke, the seconds that broke
// each marked on the chart and named in words, and the admin's decision: "Clear" or "Disqualify",
// with an optional note (≤ 500 characters). The API refuses anyone but an admin anyway.
// A power class's review (contract v1.3; its metric read from its class: classNames.js) reads its score
// in kJ, and its chart marks the watts' rules on the ride's power line.
import { api, fairPlayApi } from "../api.js";
import { auth } from "../auth.js";
import { OutputChart } from "../chart.js";
import { classMetric, className } from "../classNames.js";
import { h, link, score } from "../dom.js";
import { brokenSeconds, equipmentClass, equipmentLabel, reviewLabel, ruleMarksOn, ruleSentence, secondRanges } from "../fairPlay.js";
import { PagedList } from "../pagedList.js";
import { kilojoules, OUTPUT, POWER, scoreText } from "../power.js";
import { raceLabel } from "../races.js";
import { adminBadge, why } from "./formField.js";

export const REVIEW_STATES = ["pending", "cleared", "disqualified"];
const PAGE = 20;
const NOTE_MAX = 500;
const TAB_TITLES = { pending: "Pending", cleared: "Cleared", disqualified: "Disqualified" };
const DONE = { clear: "Cleared: it counts; its rank and the class board follow within seconds.",
  disqualify: "Disqualified: it has no rank and is on no class board; the racer sees why." };

const key = (item) => `${item.raceId}/${item.racerId}`;
// A rule's marks on the chart, by its place in the review's list (style.css has .mark-0 … .mark-2).
const MARK_COLORS = ["#b3001b", "#e08a00", "#6b4fd6"];

// One review's ride: the chart, beside the rules with their seconds, and the decision. metric: a promise of
// the class's.
function reviewDetail(item, charts, metric) {
  const chartBox = h("div", { class: "chart" });
  const chartNote = h("p", { class: "muted chart-note" }, "Loading the ride…");
  const rules = h("ul", { class: "rules" }, (item.rules || []).map((rule, index) =>
    h("li", { "data-rule": rule }, h("span", { class: `dot mark-${index % MARK_COLORS.length}`, "aria-hidden": "true" }, "●"), " ",
      h("strong", {}, ruleSentence(rule)), h("span", { class: "where muted" }))));
  const note = h("textarea", { class: "note", rows: "2", maxlength: String(NOTE_MAX),
    placeholder: "A note for the racer (optional)", "aria-label": "Note (optional, up to 500 characters)" });
  note.value = item.note || "";
  const message = h("p", { class: "form-message", role: "status" });
  const buttons = ["clear", "disqualify"].map((decision) => h("button", {
    type: "button", class: decision === "clear" ? "primary clear" : "disqualify", onclick: () => decide(decision),
  }, decision === "clear" ? "Clear" : "Disqualify"));
  const decisionBox = h("div", { class: "decision" }, note, h("div", { class: "inline" }, buttons), message);
  const element = h("div", { class: "review-detail" },
    h("div", { class: "review-chart" }, chartBox, chartNote),
    h("div", { class: "review-rules" }, h("h3", {}, "Rules it broke"), rules, decisionBox));

  async function decide(decision) {
    if (note.value.length > NOTE_MAX) {
      message.className = "error form-message";
      message.textContent = `The note is ${note.value.length} characters: at most ${NOTE_MAX}.`;
      return;
    }
    buttons.forEach((button) => { button.disabled = true; });
    message.className = "muted form-message";
    message.textContent = decision === "clear" ? "Clearing…" : "Disqualifying…";
    try {
      const decided = await fairPlayApi.decideReview(item.raceId, item.racerId, decision, note.value.trim());
      message.className = "saved form-message";
      message.textContent = DONE[decision];
      element.closest("li")?.setAttribute("data-state", decided.state || (decision === "clear" ? "cleared" : "disqualified"));
      const state = element.closest("li")?.querySelector(".state");
      if (state) state.textContent = reviewLabel(decided.state) || decided.state || "";
    } catch (error) {
      message.className = "error form-message";
      message.textContent = `Not decided: ${why(error)}.`;
    } finally {
      buttons.forEach((button) => { button.disabled = false; });
    }
  }

  // The ride's seconds, read once when the review is opened.
  (async () => {
    try {
      const history = await api.racerHistory(item.racerId, item.raceId);
      const samples = history.races[0]?.samples || [];
      const marks = (item.rules || []).map((rule, index) => ({
        label: rule, on: ruleMarksOn(rule), seconds: brokenSeconds(rule, samples), color: MARK_COLORS[index % MARK_COLORS.length],
      }));
      for (const mark of marks) {
        rules.querySelector(`li[data-rule="${CSS.escape(mark.label)}"] .where`).textContent = mark.seconds.length
          ? ` at second${mark.seconds.length > 1 ? "s" : ""} ${secondRanges(mark.seconds)} (${mark.seconds.length} s, marked on the chart)`
          : " (not found in the stored seconds)";
      }
      const power = (await metric) === POWER;
      const total = samples.reduce((sum, sample) => sum + ((power ? sample[5] : sample[3]) ?? 0), 0);
      chartNote.textContent = `${samples.length} seconds · total ${power ? kilojoules(total) : score(total)}`;
      const chart = new OutputChart(chartBox, { marks });
      charts.add(chart);
      chart.show(samples);
    } catch (error) {
      chartNote.className = "error chart-note";
      chartNote.textContent = `Could not load the ride (${why(error)}).`;
    }
  })();
  return element;
}

function reviewRow(item, charts) {
  const metric = classMetric(item.classId).catch(() => OUTPUT); // unread: the score as an output class's
  const scoreBox = h("span", { class: "score num" });
  metric.then((found) => {
    scoreBox.textContent = scoreText(item.score, found);
    scoreBox.closest("li")?.setAttribute("data-metric", found);
  });
  const details = h("details", { class: "review" },
    h("summary", {},
      h("span", { class: "label" }, item.name || item.racerId),
      h("span", { class: `equipment ${equipmentClass(item.equipment)}` }, equipmentLabel(item.equipment)),
      scoreBox,
      h("span", { class: "state tag" }, reviewLabel(item.state) || ""),
      h("span", { class: "rule-list muted" }, (item.rules || []).map(ruleSentence).join("; "))),
    h("p", { class: "where-race muted" }, "Race ", link(`#/races/${encodeURIComponent(item.raceId)}`, item.classId),
      " · ", link(`#/racers/${encodeURIComponent(item.racerId)}/${encodeURIComponent(item.raceId)}`, "racer's page"),
      item.note ? ` · note: ${item.note}` : ""));
  let opened = false;
  details.addEventListener("toggle", () => {
    if (!details.open || opened) return;
    opened = true;
    details.append(reviewDetail(item, charts, metric));
  });
  const li = h("li", { class: "review-item", "data-race": item.raceId, "data-racer": item.racerId, "data-state": item.state }, details);
  // The race reads as its class and start ("Hill climb · 18:30"), as everywhere in the site.
  Promise.all([api.race(item.raceId), className(item.classId).catch(() => null)]).then(([race, name]) => {
    details.querySelector(".where-race a").textContent = raceLabel(race, name);
  }, () => {});
  return li;
}

export function reviewsPage(state = "pending") {
  const shown = REVIEW_STATES.includes(state) ? state : "pending";
  const charts = new Set();
  const tabs = h("nav", { class: "tabs" }, REVIEW_STATES.map((name) => h("a", {
    href: `#/reviews/${name}`, class: name === shown ? "tab current" : "tab", ...(name === shown ? { "aria-current": "page" } : {}),
  }, TAB_TITLES[name])));
  const list = new PagedList({
    read: (nextToken) => fairPlayApi.reviews(shown, PAGE, nextToken),
    row: (item) => reviewRow(item, charts),
    key,
    what: "reviews",
    className: "rows reviews",
    empty: { pending: "No ride waits for a review.", cleared: "No ride has been cleared yet.",
      disqualified: "No ride has been disqualified." }[shown],
  });
  const notAdmin = h("p", { class: "empty" }, "Reviews are for admins: sign in as an admin to decide them.");
  const body = h("div", {}, tabs,
    h("p", { class: "muted" }, shown === "pending"
      ? "Rides the plausibility rules flagged, oldest first. Open one to see its chart beside the rule it broke."
      : "Decided rides, newest decision first. Deciding again replaces the decision."),
    list.element);
  const element = h("section", { class: "reviews-page" }, h("h1", {}, "Reviews ", adminBadge()), notAdmin, body);
  let read = false;
  const draw = () => {
    const admin = Boolean(auth.identity?.admin);
    notAdmin.hidden = admin;
    body.hidden = !admin;
    if (admin && !read) {
      read = true;
      list.refresh();
    }
  };
  const stopAuth = auth.onChange(draw);
  draw();
  return {
    element,
    stop: () => {
      stopAuth();
      charts.forEach((chart) => chart.destroy());
    },
    crumbs: [link("#/", "Home"), " / ", link("#/reviews", "Reviews")],
  };
}
