// This browser's device id (contract v1.2, Fair play: a racer rides from one device at a time): made
// once, kept in this browser's storage, sent with every join and telemetry body of a ride. Runs in a
// browser and in Node (tests/integration/test_server_time_js.py).

const KEY = "alleycat.device";
export const DEVICE_ID = /^[A-Za-z0-9_-]{1,64}$/;

// A new id: 22 characters of [A-Za-z0-9_-] (128 random bits).
export function newDeviceId(random = (bytes) => globalThis.crypto.getRandomValues(bytes)) {
  const bytes = random(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// The id kept in `storage` (localStorage), made and kept there the first time (or when what is kept is not one).
export function deviceId(storage = globalThis.localStorage) {
  let id = null;
  try {
    id = storage.getItem(KEY);
  } catch {
    // storage refused (a private window's quota, a policy): an id for this page alone
  }
  if (id && DEVICE_ID.test(id)) return id;
  id = newDeviceId();
  try {
    storage.setItem(KEY, id);
  } catch {
    // as above
  }
  return id;
}
