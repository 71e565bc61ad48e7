// The ride panel on a race's ride page (#/races/{raceId}/ride): the signed-in racer joins (naming
// themselves first if they have no name yet), then rides the virtual bike (keys or buttons) or a
// smart trainer over Web Bluetooth. Each second of the race one sample leaves for that second; what
// could not be sent is kept (in this browser's storage too) and sent again (outbox.js). Their place
// and score come from the board the race page shows below (pushed, or polled); the ride ends with
// the race and shows the result.
import { api, ApiError, newKey } from "../api.js";
import { auth } from "../auth.js";
import { CADENCE, KEYS, output, raceSecond, RESISTANCE, VirtualBike } from "../bike.js";
import { h, link, score } from "../dom.js";
import { nameProblem } from "../fields.js";
import { Outbox } from "../outbox.js";
import { timeLeft } from "../time.js";
import { trainerPanel } from "./rideTrainer.js";

const RETRY_MS = 2000; // a batch that failed is tried again after this (or with the next second, if sooner)

const ordinal = (n) => {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  return `${n}${suffix}`;
};

// A cadence or resistance control: its value, − and + buttons, a slider.
function control(bike, which, range, label, onChange) {
  const value = h("output", { class: "value", id: `ride-${which}` });
  const slider = h("input", { type: "range", min: String(range.min), max: String(range.max), step: String(range.step),
    "aria-label": label, oninput: () => { bike.set(which, slider.value); onChange(); } });
  const button = (steps, text, name) => h("button", { type: "button", class: `step ${name}`, "aria-label": `${label} ${name}`,
    onclick: () => bike.step(which, steps) && onChange() }, text);
  const element = h("div", { class: `control ${which}` }, h("span", { class: "label" }, label),
    h("div", { class: "dial" }, button(-1, "−", "down"), value, button(1, "+", "up")), slider);
  const draw = () => {
    value.textContent = `${bike[which]} ${range.unit}`;
    slider.value = String(bike[which]);
  };
  draw();
  return { element, draw };
}

export function ridePanel(raceId) {
  const racerId = auth.identity?.racerId;
  const storeKey = `alleycat.ride.${raceId}.${racerId}`;
  const saved = (() => {
    try {
      return JSON.parse(localStorage.getItem(storeKey));
    } catch {
      return null;
    }
  })();
  const outbox = new Outbox(newKey, saved?.outbox);
  const bike = new VirtualBike();
  let race = null;
  let standings = null;
  let ownRow = null;
  let joined = false;
  let lastQueued = saved?.lastQueued ?? -1;
  let sending = false;
  let problem = null; // why samples wait (offline, signed out), shown until the next answer
  let problemShown = null;
  let stopped = false; // the page has gone
  let over = false; // the race has finished (the board says so, or telemetry was refused)
  let timer = null;
  let retry = null;

  const clock = h("p", { class: "ride-clock", role: "status" });
  const place = h("p", { class: "ride-place" });
  const now = h("p", { class: "ride-now" });
  const sent = h("p", { class: "ride-sent muted" });
  const message = h("p", { class: "form-message" });
  const drawAll = () => {
    cadence.draw();
    resistance.draw();
    show();
  };
  const cadence = control(bike, "cadence", CADENCE, "Cadence", drawAll);
  const resistance = control(bike, "resistance", RESISTANCE, "Resistance", drawAll);
  const trainer = trainerPanel({
    onChange: () => show(),
    say: (text) => {
      message.className = "form-message error";
      message.textContent = text;
    },
  });
  const controls = h("div", { class: "controls" }, cadence.element, resistance.element);
  const riding = h("div", { class: "riding", hidden: true }, clock, place, now, controls,
    h("p", { class: "muted keys hide-narrow" }, "Keys: ↑ ↓ cadence, ← → resistance."), trainer.element, sent);
  const setup = h("div", { class: "ride-setup" });
  const element = h("section", { class: "card ride", "data-ride": "" }, h("h2", {}, "Your ride"), setup, riding, message);

  // --- joining ------------------------------------------------------------------------------------

  function nameForm() {
    const input = h("input", { id: "ride-name", type: "text", maxlength: "200", autocomplete: "nickname",
      placeholder: "Your name on the board" });
    const HINT = "Racers see this next to your score.";
    const hint = h("p", { id: "ride-name-message", class: "muted field-message" }, HINT);
    const save = h("button", { type: "submit", class: "primary" }, "Join");
    const form = h("form", { class: "ride-name", novalidate: "" },
      h("label", { for: "ride-name" }, "Choose your name to join"), h("div", { class: "inline" }, input, save), hint);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const trouble = nameProblem(input.value);
      hint.textContent = trouble || HINT;
      hint.className = trouble ? "error field-message" : "muted field-message";
      if (trouble) return;
      save.disabled = true;
      try {
        const racer = await api.putRacer(racerId, input.value.trim());
        auth.setName(racerId, racer.name);
        await join();
      } catch (error) {
        hint.textContent = `Not saved: ${error.message}`;
        hint.className = "error field-message";
      } finally {
        save.disabled = false;
      }
    });
    return form;
  }

  async function join() {
    try {
      await api.joinRace(raceId, racerId);
      joined = true;
      setup.replaceChildren();
      riding.hidden = false;
      schedule();
      flush();
    } catch (error) {
      if (error.status === 404 && race) setup.replaceChildren(nameForm()); // the race exists: the racer does not, yet
      else if (error.status === 409) endRide();
      else setup.replaceChildren(h("p", { class: "error" }, `Could not join: ${error.message}`),
        h("button", { type: "button", onclick: () => join() }, "Try again"));
    }
  }

  // --- the race's seconds -------------------------------------------------------------------------

  // The sample of this second: the trainer's cadence (and resistance, where it tells one), else the bike's.
  function sample(second, at) {
    if (!trainer.connected) return { racerId, second, cadence: bike.cadence, resistance: bike.resistance };
    const said = trainer.reading(at);
    return { racerId, second, cadence: said.cadence ?? 0, resistance: said.resistance ?? bike.resistance };
  }

  function tick() {
    timer = null;
    if (!race || over) return;
    const at = Date.now();
    const second = raceSecond(race, at);
    if (joined && second >= 0 && second < race.durationSeconds && second > lastQueued) {
      outbox.add(sample(second, at));
      lastQueued = second;
      save(); // kept before it is sent: a request that hangs holds no second only in memory
      flush();
    }
    show();
    if (second < race.durationSeconds) schedule();
  }

  // The next tick: on the race's next whole second.
  function schedule() {
    if (timer !== null || !race || over) return;
    const since = (Date.now() - Date.parse(race.startsAt)) % 1000;
    timer = setTimeout(tick, since < 0 ? -since : 1000 - since);
  }

  function save() {
    if (stopped) return; // another ride page for this race may be using the storage now
    if (outbox.waiting || !over) localStorage.setItem(storeKey, JSON.stringify({ outbox, lastQueued }));
    else localStorage.removeItem(storeKey);
  }

  async function flush() {
    if (sending) return;
    sending = true;
    clearTimeout(retry);
    try {
      for (let batch = outbox.next(); batch; batch = outbox.next()) {
        try {
          outbox.answered(batch, await api.sendSamples(raceId, batch.samples, batch.key));
          problem = null;
        } catch (error) {
          if (error instanceof ApiError && error.status === 409) {
            outbox.refusedBatch(batch);
            endRide();
          } else if (error instanceof ApiError && error.status >= 400 && error.status < 500
            && ![401, 408, 429].includes(error.status)) {
            outbox.refusedBatch(batch);
            problem = `Not counted: ${error.message}`;
          } else {
            problem = !(error instanceof ApiError) ? "No connection: your seconds are kept and sent when it is back."
              : error.status === 401 ? error.message
                : `The server did not take your seconds (${error.message}): they are kept and sent again.`;
            break;
          }
        } finally {
          save();
        }
      }
    } finally {
      sending = false;
      if (outbox.waiting && !stopped) retry = setTimeout(flush, RETRY_MS);
      show();
    }
  }

  // --- what the rider sees --------------------------------------------------------------------------

  function show() {
    if (!race) return;
    const second = raceSecond(race, Date.now());
    if (over) clock.textContent = "Finished";
    else if (second < 0) clock.textContent = `Starts in ${timeLeft(Date.parse(race.startsAt) - Date.now())}: warm up.`;
    else if (second < race.durationSeconds) clock.textContent = `Second ${second + 1} of ${race.durationSeconds}`;
    else clock.textContent = "Time is up: the result comes as the race finishes.";
    const current = sample(Math.max(second, 0), Date.now());
    const { power: watts } = trainer.reading(Date.now());
    const power = trainer.connected && watts !== undefined ? ` · ${watts} W` : "";
    now.replaceChildren(h("strong", {}, `${output(current.cadence, current.resistance)}`), " output a second",
      h("span", { class: "muted" }, ` · ${current.cadence} rpm at ${current.resistance}%${power}`));
    controls.classList.toggle("trainer-on", trainer.connected);
    const total = standings?.items.length ?? 0;
    place.replaceChildren(ownRow
      ? h("span", {}, over ? "You placed " : "Your place ", h("strong", { class: "rank" }, ordinal(ownRow.rank)),
        ` of ${Math.max(total, race.racerCount || 0, ownRow.rank)} · score `, h("strong", { class: "score" }, score(ownRow.score)),
        over ? " · " : "", over ? link(`#/racers/${encodeURIComponent(racerId)}/${encodeURIComponent(raceId)}`, "Your ride, second by second →") : "")
      : "");
    sent.textContent = `${outbox.accepted} s counted` + (outbox.waiting ? ` · ${outbox.waiting} s waiting to send` : "")
      + (outbox.refused ? ` · ${outbox.refused} not counted` : "");
    sent.dataset.counted = String(outbox.accepted);
    sent.dataset.waiting = String(outbox.waiting);
    if (problem) {
      message.className = "form-message error";
      message.textContent = problemShown = problem;
    } else if (problemShown && message.textContent === problemShown) {
      message.textContent = problemShown = "";
    }
    element.dataset.state = over ? "finished" : second < 0 ? "upcoming" : "live";
  }

  function endRide() {
    over = true;
    clearTimeout(timer);
    timer = null;
    if (!joined) setup.replaceChildren(h("p", { class: "muted" }, "This race is over: its board is below."));
    save();
    show();
  }

  // --- keys -----------------------------------------------------------------------------------------

  const onKey = (event) => {
    const key = KEYS[event.key];
    if (!key || !joined || over || event.altKey || event.ctrlKey || event.metaKey
      || event.target.closest?.("input, textarea, select")) return;
    event.preventDefault();
    if (bike.step(...key)) drawAll();
  };
  document.addEventListener("keydown", onKey);

  if (!racerId) {
    setup.replaceChildren(h("p", {}, "Sign in to ride this race: one account, then join from here."),
      h("button", { type: "button", class: "primary", onclick: () => auth.signIn() }, "Sign in to ride"));
  }
  return {
    element,
    // The race page's latest: the race, the board shown, the racer's own row (on it or below it).
    update(latest) {
      const first = !race;
      ({ race, standings, own: ownRow } = latest);
      if (standings.status !== "open" && !over) {
        // The race is over: what is still queued is sent (the API refuses it only if the finish came first).
        flush();
        endRide();
      }
      if (first && racerId && !over) join();
      show();
    },
    stop() {
      stopped = over = true;
      clearTimeout(timer);
      clearTimeout(retry);
      document.removeEventListener("keydown", onKey);
      trainer.disconnect();
    },
  };
}
