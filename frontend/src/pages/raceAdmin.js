// An admin's "Finish now" on a race's page while the race is open: confirmed in the page, then
// POST /races/{raceId}/finish (idempotent: pressing again after a failure is safe). Shown to admins
// only; the API refuses anyone else anyway.
import { api, ApiError } from "../api.js";
import { auth } from "../auth.js";
import { h } from "../dom.js";
import { adminBadge } from "./formField.js";

const CHECK_MS = 1000;

const why = (error) => (error instanceof ApiError ? error.message.replace(/\.$/, "") : "the server did not answer (is the connection down?)");

// status(): the race's status as its page last read it ("open", "finished"; undefined before the
// first read). The element follows it and the signed-in user by itself, and stops once the page has
// dropped it.
export function finishRace(raceId, status) {
  const element = h("div", { class: "finish-race inline" });
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
    const shown = auth.identity?.admin && status() === "open" ? step : "none";
    const state = `${shown} ${problem}`;
    if (state === drawn) return; // a button being pressed is not drawn again under the pointer
    drawn = state;
    element.replaceChildren(...(shown === "none" ? [] : views[shown]()));
  }

  let placed = false;
  const timer = setInterval(() => {
    if (element.isConnected) placed = true;
    else if (placed) stop();
    draw();
  }, CHECK_MS);
  const unsubscribe = auth.onChange(draw);
  function stop() {
    clearInterval(timer);
    unsubscribe();
  }
  draw();
  return element;
}
