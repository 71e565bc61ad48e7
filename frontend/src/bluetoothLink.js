// A Bluetooth device kept connected: subscribed once, and connected and subscribed again by itself each
// time it goes away (gattserverdisconnected: out of range, its power saving, a Bluetooth hiccup), as
// the ride's trainer is (trainer.js, issue 41): onLost(), then subscribe() again after each of
// `retryMs` (the last repeating) until it answers (onBack()) or close() is called. Web Bluetooth allows
// gatt.connect() without a click for a device the page already has. Used by the heart-rate strap
// (strap.js).

// subscribe(): connects (device.gatt.connect()) and starts the notifications, or rejects;
// unsubscribe(): drops what subscribe() set up (its listeners), for a failed try or the end.
// Resolves once the first subscribe() did (else disconnects and rejects with its error) to {close()}.
export async function keepConnected(device, { subscribe, unsubscribe, onLost = () => {}, onBack = () => {}, retryMs }) {
  let closed = false; // close() was called: no more reconnecting
  let away = false; // lost, not back yet
  let retry = null;
  let attempts = 0;
  const connect = async () => {
    await subscribe();
    if (!device.gatt.connected) throw new DOMException("The device went away while connecting.", "NetworkError");
  };
  function reconnect() {
    if (closed || retry !== null) return;
    retry = setTimeout(async () => {
      try {
        await connect();
        retry = null;
        if (closed) return device.gatt.disconnect();
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
  try {
    await connect();
  } catch (error) {
    unsubscribe();
    device.gatt.disconnect();
    throw error;
  }
  device.addEventListener("gattserverdisconnected", lost);
  return {
    close() {
      closed = true;
      clearTimeout(retry);
      retry = null;
      unsubscribe();
      device.removeEventListener("gattserverdisconnected", lost);
      device.gatt.disconnect();
    },
  };
}
