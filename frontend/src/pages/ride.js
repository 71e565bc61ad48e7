// The ride panel on a race's ride page (#/races/{raceId}/ride): the signed-in racer starts the ride
// with a click (opening the page does nothing on its own), joins (naming themselves first if they
// have no name yet), then rides the virtual bike (keys or buttons) or a
// smart trainer over Web Bluetooth. Each second of the race one sample leaves for that second, once
// it has happened by the server's clock (serverTime.js), not this computer's; what could not be sent
// is kept (in this browser's storage too) and sent again (outbox.js). Their place and score come
// from the board the race page shows below (pushed, or polled); the ride ends with the race and shows
// the result.
//
// Fair play (contracts v1.2, v1.3): a join names what this page rides: `trainer` only with a smart trainer
// connected (the setup offers it before the start), else `virtual` (the on-screen bike; the server keeps
// that); a trainer connected later joins again. One tab of this browser rides at a time (a Web Lock per
// ride): another tab of the same ride says so and offers "Ride here instead". Every sample names this
// browser's device (device.js). Each click that makes this page the sender (Start riding, Ride on from
// here, Ride here instead) joins with this device's id, which moves the ride here whatever device held
// it; when another device holds it the API rejects the samples (`another device`): the page stops and
// offers to take it over. A ride under review says why (the racer's results name its rules).
//
// Nothing lost (issue 41): leaving a live ride asks first (leaving(); the tab's beforeunload); a tab
// that rode this race (a marker in its sessionStorage, which a link opened elsewhere lacks) resumes
// by itself after a reload or a return, with the bike as it was set and what waited to be sent; the
// seconds the page was gone are not sent. While riding, the screen is kept awake (a wake lock) and a
// worker's heartbeat (heartbeat.js) wakes the page, hidden or not, to queue every second that has
// happened, each as it was ridden (rideLog.js). A heart-rate strap may ride along (rideStrap.js): each
// second carries its bpm when a fresh one is known (contract v1.2's optional heartRate).
//
// Power (contract v1.3): each second carries the trainer's watts, whole, when it reports them (power.js).
// A power class's race (its metric: the race page's, from the class) ranks them: the page shows the
// watts now and the racer's running kJ; it offers no on-screen bike (its join would be refused 409: the
// start waits for a trainer, and a 409 the server sends anyway is shown in its words); a trainer that
// reports no power is told its seconds do not count (`no power`), as is any second the API so rejects.
//
// Over MQTT (contract v1.3): where /config.json has `ingest`, each batch is published to the broker first
// (ingest.js, its client loaded with the first batch) and goes over HTTP, under its key, when the broker
// cannot be reached, refuses, or does not acknowledge it. A PUBACK means received, not counted, and over MQTT
// nothing answers which seconds counted: the page then says what counted as the race board has it, through
// the racer's `lastSecond`.
/* global MQTT_LINK */
import { api, ApiError, newKey } from "../api.js";
import { deviceId } from "../device.js";
import { reviewLabel, reviewReason } from "../fairPlay.js";
import { auth } from "../auth.js";
import { CADENCE, KEYS, output, raceSecond, RESISTANCE, VirtualBike } from "../bike.js";
import { h, link } from "../dom.js";
import { nameProblem } from "../fields.js";
import { heartbeat } from "../heartbeat.js";
import { MqttIngest } from "../ingest.js";
import { ANOTHER_DEVICE, Outbox } from "../outbox.js";
import { NO_POWER, POWER, sample, scoreText, watts } from "../power.js";
import { siteConfig } from "../push.js";
import { ordinal, timeLeftText } from "../rideFeel.js";
import { BIKE, LOST, RideLog } from "../rideLog.js";
import { serverClock } from "../serverTime.js";
import { timeLeft } from "../time.js";
import { bluetoothAvailable } from "../trainer.js";
import { ghostPicker } from "./ghostPicker.js";
import { raceFeel } from "./rideField.js";
import { rideGhost } from "./rideGhost.js";
import { strapPanel } from "./rideStrap.js";
import { trainerPanel } from "./rideTrainer.js";

const RETRY_MS = 2000;
// Over MQTT a batch goes over HTTP instead when none has for this long: its answer says what nothing over MQTT
// can, that another device holds the ride now (its samples rejected: the page stops and offers to take it back).
const CHECK_MS = 30_000; // a batch that failed is tried again after this (or with the next second, if sooner)
// A page not woken for longer than this was not running (frozen, a computer asleep): the seconds it
// missed are not sent. The heartbeat wakes a riding page 4 times a second, hidden or not.
const AWAKE_MS = 10_000;
const LEAVE_QUESTION = "Leave the ride? Your seconds are not sent while you are away.";
const TRAINER = "trainer";
const VIRTUAL = "virtual";
const RESULT_PAGES = 10; // the racer's results read for a ride's review, beyond the first 20: at most 1,000 races

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
  const saved = () => {
    try {
      return JSON.parse(localStorage.getItem(storeKey));
    } catch {
      return null;
    }
  };
  const device = racerId ? deviceId() : null;
  const marker = `alleycat.riding.${raceId}.${racerId}`; // in sessionStorage: this tab rode this race
  const markedHere = () => {
    try {
      return sessionStorage.getItem(marker) === "1";
    } catch {
      return false;
    }
  };
  const mark = (riding) => {
    try {
      if (riding) sessionStorage.setItem(marker, "1");
      else sessionStorage.removeItem(marker);
    } catch {
      // no session storage (a policy): a reload asks for the click again
    }
  };
  let outbox = new Outbox(newKey);
  const bike = new VirtualBike();
  let log = new RideLog(Date.now(), bike);
  let race = null;
  let standings = null;
  let ownRow = null;
  let joined = false;
  let lastQueued = -1;
  let continuous = false; // this page has queued since it started riding: the seconds since then are its to fill
  let awake = 0; // when (this page's clock) it last looked for seconds to queue
  let onScreen = false; // a second ridden on the on-screen bike was queued: the ride is virtual
  let declared = null; // the equipment the racer last joined with (or the board says)
  let asked = null; // the equipment the last join again asked for (the server's answer stands: asked once)
  let declaring = false;
  let claim = false; // the racer's click made this page the sender: it joins with this device, on the board or not
  let joining = false; // a join is in flight, or the name form waits for the racer: a board update joins nothing
  // Who rides: null (not known yet), "here" (this tab sends), "tab" (another tab of this browser),
  // "device" (another device: the API said so).
  let rider = null;
  let releaseLock = null;
  let sending = false;
  let problem = null; // why samples wait (offline, signed out), shown until the next answer
  let problemShown = null;
  let stopped = false; // the page has gone
  let over = false; // the race has finished (the board says so, or telemetry was refused)
  let timer = null;
  let retry = null;
  let stopBeat = null; // the heartbeat while the ride is live here
  let wakeLock = null; // the screen's, while riding
  let reason = null; // why the ride is under review, as the racer's results last said: {key, review, text or null}
  let reasonRead = null; // the review state (and finish) being read, or read without finding it yet
  let metric = null; // the class's ("output" or "power"), as the race page read it
  let noPowerRejected = false; // the API's last answer rejected seconds with `no power`
  let ingest; // the MQTT transport (ingest.js) where /config.json has one, null where not; undefined: not read yet
  let checked = null; // when (this page's clock) a batch last went over HTTP
  const powerClass = () => metric === POWER;

  const clock = h("p", { class: "ride-clock", role: "status" });
  const place = h("p", { class: "ride-place" });
  const now = h("p", { class: "ride-now" });
  const sent = h("p", { class: "ride-sent muted" });
  const message = h("p", { class: "form-message" });
  const why = h("p", { class: "ride-why", role: "status", hidden: true }); // why the ride is under review
  const counted = h("p", { class: "ride-counted muted", hidden: true }); // what the ride counts as, where a trainer rides a virtual ride
  const noPower = h("p", { class: "no-power error", role: "alert", hidden: true }); // a power race's trainer without power
  const elsewhere = h("div", { class: "ride-elsewhere", role: "alert", hidden: true });
  const drawAll = () => {
    cadence.draw();
    resistance.draw();
    show();
  };
  const steered = () => {
    log.bike(Date.now(), bike.cadence, bike.resistance);
    trainer.setResistance(bike.resistance); // a smart trainer's load follows the rider's resistance
    save();
    drawAll();
  };
  const cadence = control(bike, "cadence", CADENCE, "Cadence", steered);
  const resistance = control(bike, "resistance", RESISTANCE, "Resistance", steered);
  const trainer = trainerPanel({
    log: { ride: (...args) => log.ride(...args), reading: (...args) => log.reading(...args), get mode() { return log.mode; } },
    onChange: () => {
      save();
      declare();
      show();
    },
    say: (text) => {
      message.className = "form-message error";
      message.textContent = text;
    },
    resistance: () => bike.resistance,
    onScreenAllowed: () => !powerClass(),
  });
  const strap = strapPanel({
    log: { heartRate: (...args) => log.heartRate(...args), heartRateAt: (at) => log.heartRateAt(at) },
    say: (text) => {
      message.className = "form-message error";
      message.textContent = text;
    },
  });
  const controls = h("div", { class: "controls" }, cadence.element, resistance.element);
  const feel = raceFeel(raceId, { onSecond: () => show() });
  const ghost = rideGhost(raceId, racerId);
  const picker = ghostPicker(raceId, racerId, { onChange: () => { ghost.reload(); show(); } });
  const result = h("p", { class: "ride-result", hidden: true }); // the result, where the ride is not shown
  const trainerSlot = h("div", { class: "trainer-slot" }, trainer.element); // the setup borrows it before the ride starts
  const riding = h("div", { class: "riding", hidden: true }, clock, place, feel.gaps, ghost.line, feel.field, now, controls,
    h("p", { class: "muted keys hide-narrow" }, "Keys: ↑ ↓ cadence, ← → resistance."), trainerSlot, counted, strap.element, feel.sound,
    sent);
  const setup = h("div", { class: "ride-setup" });
  const element = h("section", { class: "card ride", "data-ride": "" }, h("h2", {}, "Your ride"), elsewhere, setup, picker.element, result,
    why, riding, noPower, message, feel.count);

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

  // What this page rides as it joins: `virtual` once the on-screen bike rode a second here; `trainer`
  // while a trainer rides (connected, reconnecting, or ridden here before a reload and waiting for the
  // racer to connect it again: nothing is sent meanwhile); else the on-screen bike, `virtual`.
  const equipment = () => (onScreen ? VIRTUAL : trainer.connected || log.mode === LOST ? TRAINER : VIRTUAL);

  // Joins the race with this device's id, which moves the ride here (or takes it back).
  async function join() {
    joining = true;
    try {
      const entry = await api.joinRace(raceId, racerId, equipment(), device);
      joining = claim = false;
      declared = entry.equipment ?? equipment();
      asked = null;
      joined = true;
      setup.replaceChildren();
      trainerSlot.append(trainer.element);
      riding.hidden = false;
      live();
    } catch (error) {
      joining = error.status === 404 && Boolean(race); // the name form waits: its Join joins
      if (joining) setup.replaceChildren(nameForm()); // the race exists: the racer does not, yet
      else if (error.status === 409 && !raceOver()) refused(error.message); // not finished: the server says why (a power class's on-screen bike)
      else if (error.status === 409) endRide();
      else setup.replaceChildren(h("p", { class: "error" }, `Could not join: ${error.message}`),
        h("button", { type: "button", onclick: () => join() }, "Try again"));
    }
  }

  // The race is over by the server's clock, or the board.
  const raceOver = () => over || standings?.status !== "open"
    || raceSecond(race, serverClock.now()) >= race.durationSeconds;

  // A join the server refused while the race is on (409): its message, and the start offered again.
  function refused(text) {
    claim = false;
    offerStart();
    setup.prepend(h("p", { class: "error join-refused", role: "alert" }, `Could not join: ${text}`));
  }

  // The racer's click joins (again) with this device, on the board or not: the ride moves here, whatever
  // device held it and whatever state it left. A tab that rode this race and goes on by itself (a reload,
  // a return) joins nothing when the racer is on the board: the ride may have moved on to another device
  // meanwhile, and its seconds say so.
  function begin() {
    if (!race || rider !== "here" || joined || joining || over) return;
    // A power class: nothing joins on the on-screen bike (the server would refuse it): a trainer first.
    if (powerClass() && !ownRow && equipment() === VIRTUAL) {
      claim = false;
      if (!startButton?.isConnected) offerStart(); // its start waits for the trainer (drawStart)
      return;
    }
    if (ownRow && !claim) {
      declared = ownRow.equipment ?? null;
      joined = true;
      setup.replaceChildren();
      trainerSlot.append(trainer.element);
      riding.hidden = false;
      live();
    } else {
      join();
    }
  }

  // The ride's saved state, read as this tab starts riding (another tab may have ridden until now).
  // The seconds between what was queued and now were not this page's: they are not sent.
  function load() {
    const kept = saved();
    outbox = new Outbox(newKey, kept?.outbox);
    lastQueued = kept?.lastQueued ?? -1;
    onScreen = kept?.onScreen ?? false;
    continuous = false;
    if (kept?.bike) {
      bike.set("cadence", kept.bike.cadence);
      bike.set("resistance", kept.bike.resistance);
      cadence.draw();
      resistance.draw();
    }
    // A ride on a trainer goes on on it: its seconds wait until the rider connects it again (a click:
    // the browser's chooser) or takes the on-screen bike.
    // In a power class the on-screen bike never rides: a trainer not connected (yet) is waited for.
    if (!trainer.connected) log = new RideLog(Date.now(), bike, kept?.onTrainer || (powerClass() && ownRow) ? LOST : BIKE);
    trainer.draw();
  }

  // A ride starts on the racer's click, never as the page opens: a link to it (sent by anyone) neither
  // joins the race nor sends a second, nor holds the lock that keeps this browser's other tabs quiet.
  // Where the browser reaches smart trainers, the trainer is offered first: the join names it only once
  // it is connected.
  function offerStart() {
    const start = h("button", { type: "button", class: "primary ride-start", onclick: () => {
      setup.replaceChildren();
      claim = true;
      mark(true);
      if (rider === "here") begin(); // this tab holds the ride already (a power race's start that waited for a trainer)
      else holdLock();
    } }, ownRow ? "Ride on from here" : "Start riding");
    const trainerFirst = bluetoothAvailable()
      ? " Riding a smart trainer? Connect it first: once the race has begun, a ride on the on-screen bike counts as virtual in this race." : "";
    setup.replaceChildren(h("p", { class: "muted" }, ownRow
      ? `You are on this race's board. Riding on here moves your ride to this browser: its seconds are sent from here.${powerClass() ? "" : trainerFirst}`
      : `Your seconds are sent from this browser once you start.${powerClass() ? "" : trainerFirst}`),
    powerClass() ? powerOnly() : "", bluetoothAvailable() ? trainer.element : "", start);
    startButton = start;
    drawStart();
  }

  // A power class's word before the start: what it ranks, and that a trainer (measuring watts) rides it.
  function powerOnly() {
    return h("p", { class: "power-only", role: "note" }, h("strong", {}, "This race counts measured power"),
      bluetoothAvailable()
        ? " (each second's watts, added up in kJ): connect a smart trainer that measures power, then start. "
          + "The on-screen bike cannot ride a power race."
        : " (each second's watts, added up in kJ): it is ridden on a smart trainer that measures power, which this browser "
          + "cannot reach (Web Bluetooth: Chrome or Edge on a computer or Android). The on-screen bike cannot ride a power race.");
  }

  // The start waits for a trainer in a power class (the on-screen bike's join would be refused).
  let startButton = null;
  function drawStart() {
    if (!startButton) return;
    const waits = powerClass() && equipment() === VIRTUAL;
    startButton.disabled = waits;
    startButton.title = waits ? "Connect a smart trainer that measures power first" : "";
  }

  // One tab rides: the one holding this ride's lock. `take`: steal it from the tab that holds it.
  function holdLock(take = false) {
    if (!navigator.locks) return rideHere(); // no Web Locks (an old browser): no tab checks
    navigator.locks.request(`alleycat.ride.${raceId}.${racerId}`, take ? { steal: true } : { ifAvailable: true }, (lock) => {
      if (!lock) return rideElsewhere("tab");
      if (stopped) return undefined;
      rideHere();
      return new Promise((resolve) => { releaseLock = resolve; });
    }).catch(() => rideElsewhere("tab")); // taken by another tab ("Ride here instead" there)
  }

  function rideHere() {
    rider = "here";
    elsewhere.hidden = true;
    load();
    if (joined && !claim) live();
    else begin();
    show();
  }

  // The ride is on another tab or device: this page stops sending and offers to take it over.
  function rideElsewhere(where) {
    if (stopped || over) return;
    if (where === "device") {
      outbox.drop(); // they would be rejected too
      save();
    } else {
      releaseLock = null;
    }
    rider = where;
    quiet();
    clearTimeout(retry);
    // What the page knows, no more: whether the other tab or device sends, and is counted, it cannot tell.
    const text = where === "tab"
      ? "This ride is open in another tab of this browser, which holds it: this tab sends no second."
      : "Another device holds this ride now: the API refuses the seconds sent from here, so this page sends none.";
    elsewhere.replaceChildren(h("p", {}, h("strong", {}, text)),
      h("button", { type: "button", class: "primary take-over", onclick: takeOver }, "Ride here instead"));
    elsewhere.hidden = false;
    element.dataset.rider = rider;
    show();
  }

  // "Ride here instead": this page becomes the sender and joins with this device, from the current second.
  function takeOver() {
    elsewhere.hidden = true;
    claim = true;
    joined = false;
    mark(true);
    if (rider === "tab") return holdLock(true);
    rider = "here";
    lastQueued = Math.max(lastQueued, raceSecond(race, serverClock.reached()) - 1); // from now on
    continuous = false;
    begin();
    show();
  }

  // --- the race's seconds -------------------------------------------------------------------------

  // The ride is live here: seconds are queued and sent, the screen kept on, the heartbeat beating.
  function live() {
    schedule();
    flush();
    stopBeat ??= heartbeat(() => queueDue() && show());
    keepAwake();
  }

  // Not riding here (the ride ended, moved, or the page went): nothing queued, nothing kept awake.
  function quiet() {
    clearTimeout(timer);
    timer = null;
    stopBeat?.();
    stopBeat = null;
    wakeLock?.release().catch(() => {});
    wakeLock = null;
    ingest?.drop(); // the broker's connection too (made again by the next batch)
  }

  // The screen stays on while riding (Screen Wake Lock API). The browser releases the lock when the
  // page is hidden: it is asked for again as the page shows. Where there is none, or it is refused
  // (a battery saver), the screen sleeps as it would.
  async function keepAwake() {
    if (wakeLock || !navigator.wakeLock || document.visibilityState !== "visible") return;
    try {
      const lock = await navigator.wakeLock.request("screen");
      if (!stopBeat || wakeLock) return void lock.release().catch(() => {});
      wakeLock = lock;
      lock.addEventListener("release", () => {
        if (wakeLock === lock) wakeLock = null;
      });
    } catch {
      // refused: the screen sleeps as it would
    }
  }

  // Queues every second of the race the server's clock has reached since the last queued, each with
  // what was ridden as it began (rideLog.js: the bike's setting, the trainer's reading; none while
  // the trainer was lost). A second is queued as the server's clock reaches it (serverTime.js: at
  // most a second early, within the 2 s the API allows; a later second is rejected `not yet`). After
  // a start, a reload, a take-over, or a page that did not run for AWAKE_MS, only the second at hand:
  // the seconds before were not ridden here. Whether it queued any.
  function queueDue() {
    if (!race || over || rider !== "here" || !joined) return false;
    const local = Date.now();
    const reached = serverClock.reached();
    const second = raceSecond(race, reached);
    const last = Math.min(second, race.durationSeconds - 1);
    const ran = continuous && local - awake <= AWAKE_MS;
    awake = local;
    continuous = true;
    if (second < 0 || last <= lastQueued) return false;
    const began = (s) => Date.parse(race.startsAt) + s * 1000 - (reached - local); // as this page's clock read then
    for (let s = ran ? lastQueued + 1 : second; s <= last; s += 1) {
      const ridden = log.at(began(s));
      if (!ridden) continue; // the trainer was lost: this second is absent, not made up
      outbox.add(sample(racerId, s, ridden)); // with its heart rate and whole watts where known (power.js)
      onScreen ||= ridden.source === BIKE;
    }
    lastQueued = last;
    log.forget(began(lastQueued + 1));
    save(); // kept before it is sent: a request that hangs holds no second only in memory
    flush();
    return true;
  }

  function tick() {
    timer = null;
    if (!race || over || rider !== "here") return;
    queueDue();
    show();
    if (raceSecond(race, serverClock.reached()) < race.durationSeconds) schedule();
  }

  // The next tick: as the server's clock reaches the race's next whole second.
  function schedule() {
    if (timer !== null || !race || over || rider !== "here") return;
    const since = (serverClock.reached() - Date.parse(race.startsAt)) % 1000;
    timer = setTimeout(tick, Math.ceil(since < 0 ? -since : 1000 - since));
  }

  function save() {
    if (stopped || rider !== "here") return; // another ride page (or tab) for this race may be using the storage now
    const kept = { outbox, lastQueued, onScreen, bike: { cadence: bike.cadence, resistance: bike.resistance },
      onTrainer: trainer.connected || log.mode === LOST };
    if (outbox.waiting || !over) localStorage.setItem(storeKey, JSON.stringify(kept));
    else localStorage.removeItem(storeKey);
  }

  // The ride rides on what it has not joined with (a second of the on-screen bike, a trainer connected):
  // it joins again with it, once (without this device's id: that would take back a ride another device
  // took meanwhile). The server's answer stands: a ride that joined or rode as `virtual` stays virtual.
  async function declare() {
    const wanted = onScreen ? VIRTUAL : trainer.connected ? TRAINER : null;
    if (declaring || !joined || rider !== "here" || !wanted || declared === wanted || asked === wanted) return;
    declaring = true;
    asked = wanted;
    try {
      declared = (await api.joinRace(raceId, racerId, wanted)).equipment ?? wanted;
    } catch {
      asked = null; // tried again after the next answer
    } finally {
      declaring = false;
      show();
    }
  }

  // The MQTT transport, where /config.json names a broker (read once).
  async function transport() {
    if (ingest === undefined) {
      const { ingest: found } = await siteConfig();
      ingest = found?.url && found?.topic && !stopped ? new MqttIngest(found, raceId, racerId,
        { load: () => import(MQTT_LINK), token: () => auth.accessToken() }) : null;
      show();
    }
    return ingest;
  }

  async function flush() {
    if (sending) return;
    sending = true;
    clearTimeout(retry);
    try {
      for (let batch = outbox.next(); batch && rider === "here"; batch = outbox.next()) {
        try {
          // Seconds of the on-screen bike go out only once the ride is declared virtual (if that join
          // fails, the answer's declare() below tries again): never as a trainer's.
          if (onScreen && declared !== VIRTUAL) await declare();
          const mqtt = await transport();
          checked ??= Date.now();
          if (mqtt && Date.now() - checked < CHECK_MS && await mqtt.publish(batch.samples, device)) {
            if (rider !== "here") break;
            outbox.delivered(batch);
            problem = null;
            continue;
          }
          checked = Date.now();
          const answer = await api.sendSamples(raceId, batch.samples, batch.key, device);
          if (rider !== "here") break; // another tab took the ride meanwhile: it sends this batch again, under its key
          outbox.answered(batch, answer);
          problem = null;
          if (answer.rejected.some((sample) => sample.reason === NO_POWER)) noPowerRejected = true;
          else if (answer.accepted) noPowerRejected = false;
          if (answer.rejected.some((sample) => sample.reason === ANOTHER_DEVICE)) rideElsewhere("device");
          else if (answer.accepted) declare();
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
      if (outbox.waiting && !stopped && rider === "here") retry = setTimeout(flush, RETRY_MS);
      show();
    }
  }

  // --- what the rider sees --------------------------------------------------------------------------

  function show() {
    if (!race) return;
    const serverNow = serverClock.now();
    const second = raceSecond(race, serverNow);
    if (over) clock.textContent = "Finished";
    else if (second < 0) clock.textContent = `Starts in ${timeLeft(Date.parse(race.startsAt) - serverNow)}: warm up.`;
    else if (second < race.durationSeconds) {
      clock.replaceChildren(h("strong", { class: "left" }, timeLeftText(race, serverNow)),
        h("span", { class: "second" }, ` · second ${second + 1} of ${race.durationSeconds}`));
    } else clock.textContent = "Time is up: the result comes as the race finishes.";
    const current = log.at(Date.now());
    const power = current?.power !== undefined ? ` · ${current.power} W` : ""; // an output class's line, as ever
    now.replaceChildren(...(current && powerClass()
      ? [h("strong", { class: "watts-now" }, current.power !== undefined ? watts(current.power) : "– W"), " now",
        h("span", { class: "muted" }, ` · ${current.cadence} rpm at ${current.resistance}%`)]
      : current
        ? [h("strong", {}, `${output(current.cadence, current.resistance)}`), " output a second",
          h("span", { class: "muted" }, ` · ${current.cadence} rpm at ${current.resistance}%${power}`)]
        : [h("strong", {}, powerClass() ? "No watts" : "No output"), h("span", { class: "muted" }, " · waiting for the trainer")]));
    noPower.hidden = !powerClass() || !(trainer.reportsNoPower() || noPowerRejected);
    noPower.textContent = noPower.hidden ? "" : trainer.reportsNoPower()
      ? "Your trainer reports no power: this race counts measured watts, so its seconds would not count (rejected: no power). "
        + "Ride a trainer or power meter that measures power."
      : "Seconds without power were not counted (no power): this race counts measured watts.";
    drawStart();
    controls.classList.toggle("trainer-on", trainer.connected);
    strap.draw();
    const total = standings?.items.length ?? 0;
    const standing = () => (ownRow?.rank == null
      ? ["Your ride is ", h("strong", { class: "rank" }, "disqualified")]
      : [over ? "You placed " : "Your place ", h("strong", { class: "rank" }, ordinal(ownRow.rank)),
        ` of ${Math.max(total, race.racerCount || 0, ownRow.rank)}`]);
    const standingLine = () => (ownRow
      ? h("span", {}, ...standing(), powerClass() ? " · " : " · score ", h("strong", { class: "score" }, scoreText(ownRow.score, metric)),
        ownRow.review === "pending" ? ` · ${reviewLabel("pending")}` : "",
        over ? " · " : "", over ? link(`#/racers/${encodeURIComponent(racerId)}/${encodeURIComponent(raceId)}`, "Your ride, second by second →") : "")
      : "");
    place.replaceChildren(standingLine());
    // A ride not shown here (a reload after the finish, the ride on another tab or device) keeps its result.
    result.hidden = !(over && ownRow && (!joined || rider !== "here"));
    result.replaceChildren(result.hidden ? "" : standingLine());
    why.hidden = !ownRow?.review || reason?.review !== ownRow.review || !reason.text;
    why.className = `ride-why why review-${ownRow?.review ?? ""}`;
    why.replaceChildren(...(why.hidden ? [] : [reason.text, ownRow.review !== "pending" ? ""
      : h("span", { class: "then" }, " An admin will look at it: until it is cleared it does not count on the class leaderboard.")]));
    counted.hidden = !(trainer.connected && declared === VIRTUAL);
    counted.textContent = counted.hidden ? "" : "This ride counts as virtual in this race (it started or rode on the on-screen "
      + "bike): your trainer's seconds are ranked here, not on the class board.";
    // Over MQTT what counted is the board's (the racer's lastSecond); over HTTP, the API's answers.
    const through = ownRow?.lastSecond ?? null;
    const seconds = ingest ? (through ?? -1) + 1 : outbox.accepted;
    sent.textContent = (!ingest ? `${seconds} s counted` : through === null ? "Nothing counted yet"
      : `Counted through second ${seconds}`) + (outbox.waiting ? ` · ${outbox.waiting} s waiting to send` : "")
      + (outbox.refused ? ` · ${outbox.refused} not counted` : "");
    sent.dataset.counted = String(seconds);
    sent.dataset.transport = ingest ? "mqtt" : "http";
    sent.dataset.waiting = String(outbox.waiting);
    sent.dataset.queued = String(lastQueued + 1); // seconds queued so far (the tests wait on it)
    if (problem) {
      message.className = "form-message error";
      message.textContent = problemShown = problem;
    } else if (problemShown && message.textContent === problemShown) {
      message.textContent = problemShown = "";
    }
    element.dataset.state = over ? "finished" : second < 0 ? "upcoming" : "live";
    element.dataset.rider = rider ?? "";
    riding.hidden = !joined || rider !== "here";
    picker.update(race, !over && second < 0); // a ghost is picked before the start
    ghost.show({ race, own: ownRow, over, started: second >= 0, metric });
    feel.show({ race, standings, own: ownRow, over, racerId, ghost: ghost.onStrip(), metric });
  }

  // Why the ride is under review (or was decided), in words: the racer's results carry the rules it broke
  // and the admin's note (GET /racers/{racerId}/results, newest race first: this race is on the first
  // page but for a racer who joined 20 later ones). Read when the board's review changes, and once more
  // after the finish (the whole ride's check may widen the rules); a read that finds an older state is
  // tried again with the next board.
  async function readReason() {
    const key = `${ownRow?.review ?? ""}|${over}`;
    if (!racerId || !ownRow?.review || reasonRead === key || reason?.key === key) return;
    reasonRead = key;
    try {
      let results = await api.racerResults(racerId);
      let item = results.items.find((found) => found.raceId === raceId);
      for (let pages = 0; !item && results.nextToken && pages < RESULT_PAGES; pages += 1) {
        results = await api.racerResultsPage(racerId, results.nextToken);
        item = results.items.find((found) => found.raceId === raceId);
      }
      // A review cleared without a note has nothing to say (null): it is read, not read again.
      if (item && item.review === ownRow?.review) {
        reason = { key, review: item.review, text: reviewReason(item.review, item.rules, item.note) };
      }
    } catch {
      // read again with the next board
    } finally {
      if (reason?.key !== key) reasonRead = null;
      show();
    }
  }

  function endRide() {
    over = true;
    quiet();
    ingest?.stop(); // what is still queued goes over HTTP: its answer says whether the finish came first
    mark(false);
    if (!joined) setup.replaceChildren(h("p", { class: "muted" }, "This race is over: its board is below."));
    elsewhere.hidden = true;
    save();
    show();
  }

  // --- keys -----------------------------------------------------------------------------------------

  const onKey = (event) => {
    const key = KEYS[event.key];
    if (!key || !joined || over || rider !== "here" || event.altKey || event.ctrlKey || event.metaKey
      || event.target.closest?.("input, textarea, select")) return;
    event.preventDefault();
    if (bike.step(...key)) steered();
  };
  document.addEventListener("keydown", onKey);
  const riddenHere = () => joined && !over && rider === "here" && !stopped;
  // Closing or reloading the tab mid-ride: the browser asks (its own words; a page may not set them).
  const onUnload = (event) => {
    if (!riddenHere()) return;
    event.preventDefault();
    event.returnValue = "";
  };
  window.addEventListener("beforeunload", onUnload);
  const onShown = () => {
    if (document.visibilityState !== "visible" || !stopBeat) return;
    keepAwake();
    queueDue();
    show();
  };
  document.addEventListener("visibilitychange", onShown);

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
      if (latest.metric) metric = latest.metric;
      if (standings.status !== "open" && !over) {
        // The race is over: what is still queued is sent (the API refuses it only if the finish came first).
        flush();
        endRide();
      }
      if (first && racerId && !over && markedHere()) holdLock(); // this tab rode it: a reload or a return
      else if (first && racerId && !over) offerStart();
      else begin();
      readReason();
      show();
    },
    // The question to ask before the page goes (another page of the site), or null.
    leaving: () => (riddenHere() ? LEAVE_QUESTION : null),
    stop() {
      save(); // the bike as it is set, for a return
      stopped = over = true;
      ingest?.stop();
      quiet();
      clearTimeout(retry);
      releaseLock?.();
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("visibilitychange", onShown);
      window.removeEventListener("beforeunload", onUnload);
      trainer.disconnect();
      strap.disconnect();
      feel.stop();
    },
  };
}
