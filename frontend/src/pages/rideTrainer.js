// A ride's smart trainer (Web Bluetooth, trainer.js): the button that connects it, what the rider is
// told about it, and its latest reading. Where the browser has no Web Bluetooth it says so.
import { h } from "../dom.js";
import { isPlausible } from "../ftms.js";
import { bluetoothAvailable, connectTrainer } from "../trainer.js";

const QUIET_MS = 3000; // a trainer silent this long is read as not pedalling

// onChange(): the trainer connected, disconnected or sent a reading; say(text): a message for the rider.
export function trainerPanel({ onChange, say }) {
  const element = h("div", { class: "trainer" });
  let trainer = null; // {name, hasRange, disconnect()} while connected
  let reading = null; // {cadence, resistance, power, ..., at}

  function draw() {
    if (!bluetoothAvailable()) {
      element.replaceChildren(h("p", { class: "muted" },
        "This browser cannot reach a smart trainer (Web Bluetooth: Chrome or Edge on a computer or Android). Ride the bike above."));
    } else if (!trainer) {
      element.replaceChildren(h("button", { type: "button", class: "connect", onclick: connect }, "Connect a smart trainer"));
    } else {
      const range = trainer.hasRange ? ""
        : " It does not say its resistance range: its level is read as a percent (set resistance above if it sends none).";
      element.replaceChildren(h("p", { class: "trainer-name" }, `Riding ${trainer.name}.${range} `,
        h("button", { type: "button", class: "disconnect", onclick: () => trainer.disconnect() }, "Disconnect")));
    }
  }

  const receive = (data) => {
    if (!isPlausible(data)) return; // a garbled packet (say, 32,767 rpm): the API would refuse its batch
    // FTMS may spread a reading over packets ("More Data"): a field a packet leaves out keeps its last value.
    const sent = Object.entries(data).filter(([, value]) => value !== undefined);
    reading = { ...reading, ...Object.fromEntries(sent), at: Date.now() };
    onChange();
  };

  async function connect() {
    say("");
    try {
      trainer = await connectTrainer({
        onData: receive,
        onDisconnect: () => {
          trainer = reading = null;
          say("The trainer disconnected: you are on the virtual bike.");
          draw();
          onChange();
        },
      });
    } catch (error) {
      say(error.name === "NotFoundError" ? "No trainer chosen: you are on the virtual bike."
        : `The trainer could not connect (${error.message}): you are on the virtual bike.`);
    }
    draw();
    onChange();
  }

  draw();
  return {
    element,
    get connected() {
      return Boolean(trainer);
    },
    // What the trainer said last, or {} when it has been quiet QUIET_MS (not pedalling).
    reading(at) {
      return reading && at - reading.at < QUIET_MS ? reading : {};
    },
    disconnect: () => trainer?.disconnect(),
  };
}
