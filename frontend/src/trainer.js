// A smart trainer over Web Bluetooth: its Fitness Machine Service's Indoor Bike Data, as it comes.
// Uses navigator.bluetooth (Chrome and Edge; not Firefox or Safari), no page; parsing is ftms.js's.

import { isUsableRange, parseIndoorBikeData, parseResistanceRange, resistancePercent } from "./ftms.js";

const FITNESS_MACHINE = 0x1826;
const INDOOR_BIKE_DATA = 0x2ad2;
const RESISTANCE_LEVEL_RANGE = 0x2ad6;

export const bluetoothAvailable = () => Boolean(globalThis.navigator?.bluetooth?.requestDevice);

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
// Indoor Bike Data packet (resistance: resistancePercent's), onDisconnect() when the trainer goes
// away (not after disconnect()). Rejects with requestDevice's error as it is: a cancelled chooser is
// a DOMException named "NotFoundError".
export async function connectTrainer({ onData, onDisconnect = () => {} }) {
  const device = await navigator.bluetooth.requestDevice({ filters: [{ services: [FITNESS_MACHINE] }] });
  let bikeData = null;
  let range = null;
  const receive = (event) => {
    const data = parseIndoorBikeData(event.target.value);
    if (!data) return;
    const { cadence, resistanceLevel, power, speed, heartRate } = data;
    onData({ cadence, resistance: resistancePercent(resistanceLevel, range), resistanceLevel, power, speed, heartRate });
  };
  const stop = () => {
    bikeData?.removeEventListener("characteristicvaluechanged", receive);
    device.removeEventListener("gattserverdisconnected", lost);
  };
  const lost = () => {
    stop();
    onDisconnect();
  };
  try {
    const server = await device.gatt.connect();
    const service = await server.getPrimaryService(FITNESS_MACHINE);
    range = await readRange(service);
    bikeData = await service.getCharacteristic(INDOOR_BIKE_DATA);
    bikeData.addEventListener("characteristicvaluechanged", receive);
    await bikeData.startNotifications();
    if (!device.gatt.connected) throw new DOMException("The trainer went away while connecting.", "NetworkError");
  } catch (error) {
    stop();
    device.gatt.disconnect();
    throw error;
  }
  device.addEventListener("gattserverdisconnected", lost);
  return {
    name: device.name || "Smart trainer",
    range,
    hasRange: isUsableRange(range),
    disconnect() {
      stop();
      device.gatt.disconnect();
    },
  };
}
