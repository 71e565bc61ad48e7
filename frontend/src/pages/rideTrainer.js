// A ride's smart trainer (Web Bluetooth, trainer.js): the button that connects it, what the rider is
// told about it, and its readings, written into the ride's log (rideLog.js) as they arrive. A trainer
// that goes away is connected again by itself; meanwhile the page says so and its seconds are not
// sent, unless the rider takes the on-screen bike. Where the browser has no Web Bluetooth it says so.
// The trainer's resistance follows the rider's (setResistance): how that goes is said under its name.
// In a power class (contract v1.3) the on-screen bike cannot ride (onScreenAllowed() false): the trainer
// lost, or disconnected, its seconds wait for it; the panel offers no on-screen bike.
import { h } from "../dom.js";
import { isPlausible } from "../ftms.js";
import { BIKE, LOST, TRAINER } from "../rideLog.js";
import { bluetoothAvailable, connectTrainer } from "../trainer.js";
import { controlMessage } from "../trainerControl.js";

const TROUBLE = new Set(["none", "refused", "silent"]); // control states the rider is warned of

// log: the ride's RideLog; onChange(): the trainer connected, was lost, came back or sent a reading;
// say(text): a message for the rider; resistance(): the rider's resistance (0–100 %), set on the trainer;
// onScreenAllowed(): whether the on-screen bike may ride instead (not in a power class).
export function trainerPanel({ log, onChange, say, resistance = () => undefined, onScreenAllowed = () => true }) {
  const element = h("div", { class: "trainer" });
  const control = h("p", { class: "trainer-control", role: "status" });
  let trainer = null; // {name, hasRange, setResistance(), disconnect()} while connected or reconnecting
  let reading = null; // {cadence, resistance, power, ...}: what it said last, field by field
  let packets = 0; // Indoor Bike Data packets since it connected (or came back)
  const onControl = (status) => {
    control.textContent = controlMessage(status);
    control.className = `trainer-control${TROUBLE.has(status.state) ? " error" : " muted"}`;
    control.dataset.state = status.state;
  };

  // The rider leaves the trainer: for the on-screen bike, or (a power class) for nothing: its seconds wait.
  const onBike = () => {
    trainer?.disconnect();
    trainer = reading = null;
    packets = 0;
    control.textContent = "";
    delete control.dataset.state;
    log.ride(Date.now(), onScreenAllowed() ? BIKE : LOST);
    say("");
    draw();
    onChange();
  };

  function draw() {
    if (!bluetoothAvailable()) {
      element.replaceChildren(h("p", { class: "muted" },
        "This browser cannot reach a smart trainer (Web Bluetooth: Chrome or Edge on a computer or Android). Ride the bike above."));
    } else if (log.mode === LOST) {
      const why = trainer ? "Trainer lost: reconnecting…" : "Your trainer is not connected to this page: connect it again.";
      const bike = onScreenAllowed();
      element.replaceChildren(h("p", { class: "trainer-lost error", role: "status" }, why,
        bike ? " Your seconds are not sent until it is back, or you ride the on-screen bike."
          : " Your seconds are not sent until it is back (this race counts measured power: the on-screen bike cannot ride it)."),
      h("div", { class: "inline" }, trainer ? "" : h("button", { type: "button", class: "connect", onclick: connect }, "Connect a smart trainer"),
        bike ? h("button", { type: "button", class: "on-screen", onclick: onBike }, "Ride the on-screen bike") : ""));
    } else if (!trainer) {
      element.replaceChildren(h("button", { type: "button", class: "connect", onclick: connect }, "Connect a smart trainer"));
    } else {
      const range = trainer.hasRange ? ""
        : " It does not say its resistance range: its level is read as a percent (set resistance above if it sends none).";
      element.replaceChildren(h("p", { class: "trainer-name" }, `Riding ${trainer.name}.${range} `,
        h("button", { type: "button", class: "disconnect", onclick: onBike }, "Disconnect")), control);
    }
  }

  const receive = (data) => {
    if (!isPlausible(data)) return; // a garbled packet (say, 32,767 rpm): the API would refuse its batch
    // FTMS may spread a reading over packets ("More Data"): a field a packet leaves out keeps its last value.
    const sent = Object.entries(data).filter(([, value]) => value !== undefined);
    reading = { ...reading, ...Object.fromEntries(sent) };
    packets += 1;
    log.reading(Date.now(), reading);
    onChange();
  };

  async function connect() {
    say("");
    const mode = log.mode;
    try {
      trainer = await connectTrainer({
        onData: receive,
        onLost: () => {
          reading = null;
          packets = 0;
          log.ride(Date.now(), LOST);
          draw();
          onChange();
        },
        onBack: () => {
          log.ride(Date.now(), TRAINER);
          draw();
          onChange();
        },
        onControl,
      });
      reading = null;
      packets = 0;
      log.ride(Date.now(), TRAINER);
      trainer.setResistance(resistance());
    } catch (error) {
      const on = !onScreenAllowed() ? "connect one that measures power to ride this race"
        : mode === LOST ? "your seconds wait for it, or ride the on-screen bike" : "you are on the on-screen bike";
      say(error.name === "NotFoundError" ? `No trainer chosen: ${on}.`
        : `The trainer could not connect (${error.message}): ${on}.`);
    }
    draw();
    onChange();
  }

  draw();
  return {
    element,
    // A trainer rides (connected, or reconnecting): the ride is not the on-screen bike's.
    get connected() {
      return Boolean(trainer);
    },
    draw,
    // Whether the trainer connected has sent packets (at least `enough`) and no power among them: one that
    // does not measure it (FTMS "More Data" may leave a field to the next packet: a few are read first).
    reportsNoPower: (enough = 3) => Boolean(trainer) && packets >= enough && reading?.power === undefined,
    // The rider chose this resistance (0–100 %): the trainer is set to it (the latest, once it answers).
    setResistance: (percent) => trainer?.setResistance(percent),
    disconnect: () => trainer?.disconnect(),
  };
}
