// A ride's smart trainer (Web Bluetooth, trainer.js): the button that connects it, what the rider is
// told about it, and its readings, written into the ride's log (rideLog.js) as they arrive. A trainer
// that goes away is connected again by itself; meanwhile the page says so and its seconds are not
// sent, unless the rider takes the on-screen bike. Where the browser has no Web Bluetooth it says so.
import { h } from "../dom.js";
import { isPlausible } from "../ftms.js";
import { BIKE, LOST, TRAINER } from "../rideLog.js";
import { bluetoothAvailable, connectTrainer } from "../trainer.js";

// log: the ride's RideLog; onChange(): the trainer connected, was lost, came back or sent a reading;
// say(text): a message for the rider.
export function trainerPanel({ log, onChange, say }) {
  const element = h("div", { class: "trainer" });
  let trainer = null; // {name, hasRange, disconnect()} while connected or reconnecting
  let reading = null; // {cadence, resistance, power, ...}: what it said last, field by field

  const onBike = () => {
    trainer?.disconnect();
    trainer = reading = null;
    log.ride(Date.now(), BIKE);
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
      element.replaceChildren(h("p", { class: "trainer-lost error", role: "status" }, why,
        " Your seconds are not sent until it is back, or you ride the on-screen bike."),
      h("div", { class: "inline" }, trainer ? "" : h("button", { type: "button", class: "connect", onclick: connect }, "Connect a smart trainer"),
        h("button", { type: "button", class: "on-screen", onclick: onBike }, "Ride the on-screen bike")));
    } else if (!trainer) {
      element.replaceChildren(h("button", { type: "button", class: "connect", onclick: connect }, "Connect a smart trainer"));
    } else {
      const range = trainer.hasRange ? ""
        : " It does not say its resistance range: its level is read as a percent (set resistance above if it sends none).";
      element.replaceChildren(h("p", { class: "trainer-name" }, `Riding ${trainer.name}.${range} `,
        h("button", { type: "button", class: "disconnect", onclick: onBike }, "Disconnect")));
    }
  }

  const receive = (data) => {
    if (!isPlausible(data)) return; // a garbled packet (say, 32,767 rpm): the API would refuse its batch
    // FTMS may spread a reading over packets ("More Data"): a field a packet leaves out keeps its last value.
    const sent = Object.entries(data).filter(([, value]) => value !== undefined);
    reading = { ...reading, ...Object.fromEntries(sent) };
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
          log.ride(Date.now(), LOST);
          draw();
          onChange();
        },
        onBack: () => {
          log.ride(Date.now(), TRAINER);
          draw();
          onChange();
        },
      });
      reading = null;
      log.ride(Date.now(), TRAINER);
    } catch (error) {
      const on = mode === LOST ? "your seconds wait for it, or ride the on-screen bike" : "you are on the on-screen bike";
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
    disconnect: () => trainer?.disconnect(),
  };
}
