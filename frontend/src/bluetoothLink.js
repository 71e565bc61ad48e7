// A Bluetooth device kept connected once it is: connected and subscribed again by itself each time it
// goes away (gattserverdisconnected: out of range, its power saving, a Bluetooth hiccup): onLost(),
// then subscribe() again after each of `retryMs` (the last repeating) until it answers (onBack()) or
// close() is called. Web Bluetooth allows gatt.connect() without a click for a device the page already
// has. The ride's trainer (trainer.js) and heart-rate strap (strap.js) are kept so.

export const RECONNECT_MS = [1000, 2000, 4000, 8000]; // waits before each try to connect a lost device again

// subscribe(): connects (device.gatt.connect()) and starts the notifications, or rejects;
// unsubscribe(): drops what subscribe() set up (its listeners), for a failed try or the end.
// timers ({setTimeout, clearTimeout}): whose clock the waits are on. Call it once the first
// subscribe() has resolved; returns {close()}.
export function keepConnected(device, { subscribe, unsubscribe, onLost = () => {}, onBack = () => {}, retryMs = RECONNECT_MS,
  timers = globalThis }) {
  let closed = false; // close() was called: no more reconnecting
  let away = false; // lost, not back yet
  let retry = null;
  let attempts = 0;
  function reconnect() {
    if (closed || retry !== null) return;
    retry = timers.setTimeout(async () => {
      try {
        await subscribe();
        retry = null;
        if (closed) {
          unsubscribe();
          return device.gatt.disconnect();
        }
        away = false;
        attempts = 0;
        return onBack();
      } catch {
        unsubscribe();
        retry = null;
        attempts += 1;
        return reconnect();
      }
    }, retryMs[Math.min(attempts, retryMs.length - 1)]);
  }
  const lost = () => {
    if (closed) return;
    unsubscribe();
    if (!away) {
      away = true;
      onLost();
    }
    reconnect();
  };
  device.addEventListener("gattserverdisconnected", lost);
  return {
    close() {
      closed = true;
      timers.clearTimeout(retry);
      retry = null;
      unsubscribe();
      device.removeEventListener("gattserverdisconnected", lost);
      device.gatt.disconnect();
    },
  };
}
