// A heart-rate strap over Web Bluetooth: its Heart Rate Service's Heart Rate Measurement, as it comes.
// Uses navigator.bluetooth (Chrome and Edge; not Firefox or Safari), no page; parsing is heartRate.js's.
import { keepConnected, RECONNECT_MS } from "./bluetoothLink.js";
import { parseHeartRateMeasurement } from "./heartRate.js";

const HEART_RATE = 0x180d;
const HEART_RATE_MEASUREMENT = 0x2a37;

// Opens the browser's chooser (so call it straight from a click handler; it lists only devices with a
// Heart Rate Service), connects to the strap chosen and calls onReading({bpm, contact}) for each
// Heart Rate Measurement. A strap that goes away is connected again by itself (bluetoothLink.js:
// onLost(), onBack()). Rejects with requestDevice's error as it is: a cancelled chooser is a
// DOMException named "NotFoundError".
export async function connectStrap({ onReading, onLost, onBack, retryMs = RECONNECT_MS }) {
  const device = await navigator.bluetooth.requestDevice({ filters: [{ services: [HEART_RATE] }] });
  let measurement = null;
  const receive = (event) => {
    const reading = parseHeartRateMeasurement(event.target.value);
    if (reading) onReading(reading);
  };
  const unsubscribe = () => {
    measurement?.removeEventListener("characteristicvaluechanged", receive);
    measurement = null;
  };
  const subscribe = async () => {
    const server = await device.gatt.connect();
    const service = await server.getPrimaryService(HEART_RATE);
    unsubscribe();
    measurement = await service.getCharacteristic(HEART_RATE_MEASUREMENT);
    measurement.addEventListener("characteristicvaluechanged", receive);
    await measurement.startNotifications();
    if (!device.gatt.connected) throw new DOMException("The strap went away while connecting.", "NetworkError");
  };
  try {
    await subscribe();
  } catch (error) {
    unsubscribe();
    device.gatt.disconnect();
    throw error;
  }
  const link = keepConnected(device, { subscribe, unsubscribe, onLost, onBack, retryMs });
  return { name: device.name || "Heart-rate strap", disconnect: () => link.close() };
}
