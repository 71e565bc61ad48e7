// An admin's "Finish now" on a race's page while the race is open: confirmed in the page, then
// POST /races/{raceId}/finish (idempotent: pressing again after a failure is safe). Shown to admins
// only; the API refuses anyone else anyway.
import { api } from "../api.js";
import { auth } from "../auth.js";
import { h } from "../dom.js";
import { adminBadge, why } from "./formField.js";

// {element, update(status), stop()}: the page hands it the race's status ("open", "finished") as it
// reads it; it follows the signed-in user by itself until stopped.
export function finishRace(raceId) {
  const element = h("div", { class: "finish-race inline" });
  let status;
  let step = "ask"; // ask | confirm | finishing | finished
  let problem = "";
  let drawn = null;

  const go = (next) => () => {
    step = next;
    if (next === "finishing") finish();
    draw();
  };
  async function finish() {
    problem = "";
    try {
      await api.finishRace(raceId);
      step = "finished";
    } catch (error) {
      problem = `Not finished: ${why(error)}.`;
      step = "ask";
    }
    draw();
  }

  const views = {
    ask: () => [h("button", { type: "button", class: "finish", onclick: go("confirm") }, "Finish now"), adminBadge(),
      problem ? h("p", { class: "error form-message", role: "alert" }, problem) : null],
    confirm: () => [h("span", { class: "question" }, "Finish the race now?"),
      h("button", { type: "button", class: "primary yes", onclick: go("finishing") }, "Yes, finish it"),
      h("button", { type: "button", class: "no", onclick: go("ask") }, "No")],
    finishing: () => [h("span", { class: "muted" }, "Finishing…")],
    finished: () => [h("span", { class: "saved" }, "Finished: the final ranks show in a few seconds.")],
  };
  function draw() {
    const shown = auth.identity?.admin && status === "open" ? step : "none";
    const state = `${shown} ${problem}`;
    if (state === drawn) return; // a button being pressed is not drawn again under the pointer
    drawn = state;
    element.replaceChildren(...(shown === "none" ? [] : views[shown]().filter(Boolean)));
  }

  const stop = auth.onChange(draw);
  draw();
  return {
    element,
    update(latest) {
      status = latest;
      draw();
    },
    stop,
  };
}
