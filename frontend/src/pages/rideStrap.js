// A ride's heart-rate strap (Web Bluetooth, strap.js): the button that pairs it, beside the trainer or
// the on-screen bike, the bpm it says while riding, and its readings written into the ride's log
// (rideLog.js), which sends a fresh one with each second. A strap that goes away is connected again
// by itself; meanwhile the seconds go on without a heart rate (it changes no output). Where the
// browser has no Web Bluetooth the panel is empty: the trainer's panel says why.
import { h } from "../dom.js";
import { usableBpm } from "../heartRate.js";
import { connectStrap } from "../strap.js";
import { bluetoothAvailable } from "../trainer.js";

// log: the ride's RideLog (its heartRate(at, bpm) and heartRateAt(at)); say(text): a message for the rider.
export function strapPanel({ log, say }) {
  const element = h("div", { class: "strap" });
  let strap = null; // {name, disconnect()} while connected or reconnecting
  let lost = false;
  let contact = null; // what the strap said last of its skin contact (false: none)

  const bpm = h("strong", { class: "bpm" });
  const status = h("span", { class: "strap-status muted" });
  const line = h("p", { class: "strap-line" }, h("span", { class: "heart", "aria-hidden": "true" }, "♥ "), bpm, status);
  const connectButton = h("button", { type: "button", class: "connect-strap", onclick: () => connect() },
    "Connect a heart-rate strap");
  const disconnectButton = h("button", { type: "button", class: "disconnect-strap", onclick: () => disconnect() },
    "Disconnect");

  // Drawn each second while riding (the bpm ages): its elements are kept, not made again, so a click
  // under way is not lost.
  function draw() {
    if (!bluetoothAvailable()) return element.replaceChildren();
    if (!strap) {
      if (!element.contains(connectButton)) element.replaceChildren(connectButton);
      return undefined;
    }
    const now = log.heartRateAt(Date.now());
    bpm.textContent = now === undefined ? "— bpm" : `${now} bpm`;
    bpm.dataset.bpm = now === undefined ? "" : String(now);
    status.textContent = lost ? ` · ${strap.name} lost: reconnecting… your seconds go on without a heart rate.`
      : contact === false ? ` · ${strap.name}: no skin contact (wet the strap's pads).` : ` · ${strap.name} `;
    status.classList.toggle("error", lost || contact === false);
    if (!element.contains(line)) element.replaceChildren(line, disconnectButton);
    return undefined;
  }

  const receive = (reading) => {
    contact = reading.contact;
    log.heartRate(Date.now(), usableBpm(reading));
    draw();
  };

  function disconnect() {
    strap?.disconnect();
    strap = null;
    lost = false;
    log.heartRate(Date.now(), null);
    draw();
  }

  async function connect() {
    say("");
    connectButton.disabled = true; // one chooser at a time
    try {
      strap = await connectStrap({
        onReading: receive,
        onLost: () => {
          lost = true;
          log.heartRate(Date.now(), null);
          draw();
        },
        onBack: () => {
          lost = false;
          draw();
        },
      });
    } catch (error) {
      say(error.name === "NotFoundError" ? "No heart-rate strap chosen: your seconds go without a heart rate."
        : `The heart-rate strap could not connect (${error.message}): your seconds go without a heart rate.`);
    } finally {
      connectButton.disabled = false;
    }
    draw();
  }

  draw();
  return { element, draw, disconnect: () => strap?.disconnect() };
}
