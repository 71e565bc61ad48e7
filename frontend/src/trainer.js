// A smart trainer over Web Bluetooth: its Fitness Machine Service's Indoor Bike Data, as it comes, and
// its resistance set from the ride through its control point (trainerControl.js). Uses
// navigator.bluetooth (Chrome and Edge; not Firefox or Safari), no page; parsing is ftms.js's.

import { keepConnected, RECONNECT_MS } from "./bluetoothLink.js";
import { isUsableRange, parseIndoorBikeData, parseResistanceRange, resistancePercent } from "./ftms.js";
import { controlTrainer } from "./trainerControl.js";

const FITNESS_MACHINE = 0x1826;
const INDOOR_BIKE_DATA = 0x2ad2;
const RESISTANCE_LEVEL_RANGE = 0x2ad6;
const CONTROL_POINT = 0x2ad9;

export const bluetoothAvailable = () => Boolean(globalThis.navigator?.bluetooth?.requestDevice);

// The control point, subscribed to (its indications answer each write: Web Bluetooth's
// startNotifications() turns on indications for a characteristic that indicates), or null when the
// trainer has none (getCharacteristic rejects: NotFoundError) or will not indicate.
async function controlPoint(service) {
  try {
    const characteristic = await service.getCharacteristic(CONTROL_POINT);
    return await characteristic.startNotifications();
  } catch {
    return null;
  }
}

// The range, or null when the trainer has none (getCharacteristic rejects: NotFoundError) or will
// not give it.
async function readRange(service) {
  try {
    return parseResistanceRange(await (await service.getCharacteristic(RESISTANCE_LEVEL_RANGE)).readValue());
  } catch {
    return null;
  }
}

// Opens the browser's chooser (so call it straight from a click handler), connects to the trainer
// chosen and calls onData({cadence, resistance, resistanceLevel, power, speed, heartRate}) for each
// Indoor Bike Data packet (resistance: resistancePercent's of the level it reports, undefined in a
// packet without one; for a trainer that never reports a level, that of the level the site set and it
// confirmed). Rejects with requestDevice's error as it is: a
// cancelled chooser is a DOMException named "NotFoundError".
//
// Control: the returned setResistance(percent) sets the trainer's target resistance level
// (trainerControl.js); onControl(status) hears how that goes (controlMessage says it to the rider).
// Control is asked for as the trainer connects and again each time it comes back.
//
// A trainer that goes away is connected again by itself, and control asked for again (bluetoothLink.js:
// onLost, onBack, retryMs, timers).
export async function connectTrainer({ onData, onLost = () => {}, onBack = () => {}, onControl = () => {}, retryMs = RECONNECT_MS,
  answerMs, timers = globalThis }) {
  const device = await navigator.bluetooth.requestDevice({ filters: [{ services: [FITNESS_MACHINE] }] });
  const control = controlTrainer({ onStatus: onControl, answerMs, timers });
  let bikeData = null;
  let range = null;
  let reportsLevel = false; // a packet carried a resistance level
  const receive = (event) => {
    const data = parseIndoorBikeData(event.target.value);
    if (!data) return;
    const { cadence, resistanceLevel, power, speed, heartRate } = data;
    reportsLevel ||= resistanceLevel !== undefined;
    // A trainer that reports its level is read; one that never has, has the level it confirmed.
    const resistance = reportsLevel ? resistancePercent(resistanceLevel, range) : control.acknowledgedPercent;
    onData({ cadence, resistance, resistanceLevel, power, speed, heartRate });
  };
  const unsubscribe = () => {
    bikeData?.removeEventListener("characteristicvaluechanged", receive);
    bikeData = null;
    control.detach();
  };
  async function subscribe() {
    const server = await device.gatt.connect();
    const service = await server.getPrimaryService(FITNESS_MACHINE);
    range = (await readRange(service)) ?? range;
    unsubscribe();
    bikeData = await service.getCharacteristic(INDOOR_BIKE_DATA);
    bikeData.addEventListener("characteristicvaluechanged", receive);
    await bikeData.startNotifications();
    const point = await controlPoint(service);
    if (!device.gatt.connected) throw new DOMException("The trainer went away while connecting.", "NetworkError");
    if (point) control.attach(point, range);
    else control.unavailable();
  }
  try {
    await subscribe();
  } catch (error) {
    unsubscribe();
    device.gatt.disconnect();
    throw error;
  }
  const link = keepConnected(device, { subscribe, unsubscribe, onLost, onBack, retryMs, timers });
  return {
    name: device.name || "Smart trainer",
    range,
    hasRange: isUsableRange(range),
    setResistance: (percent) => control.set(percent),
    disconnect: () => link.close(),
  };
}
