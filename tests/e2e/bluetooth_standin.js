// A stand-in navigator.bluetooth with one FTMS trainer, for browser tests: added with
// context.add_init_script(path=...) before the page loads (a script, no eval: the site's CSP allows
// none). It follows the Web Bluetooth calls frontend/src/trainer.js makes; a test drives it through
// window.__trainer:
//   notify(hex)      one Indoor Bike Data packet ("44 00 c4 09 ..."; spaces allowed) as a
//                    characteristicvaluechanged event; true when it was delivered (connected, notifying)
//   disconnect()     the trainer goes away: gattserverdisconnected
//   reachable        false: gatt.connect() rejects (NetworkError), as for a trainer out of range or off
//   range            Supported Resistance Level Range as hex, or null for a trainer without one
//                    (getCharacteristic(0x2AD6) rejects with a NotFoundError)
//   name             the device's name (null: none)
//   cancelled        true: requestDevice rejects as a closed chooser does (NotFoundError)
//   requested        the options each requestDevice got
//   calls            every call made, in order ("connect", "getCharacteristic 2ad6", ...)
//   connected, notifying
// Its Fitness Machine Control Point (0x2AD9, FTMS 1.0 §4.16) takes writes with a response and
// indicates 80 <op> <result> for each, as the spec lays out:
//   controlPoint     false: the trainer has none (getCharacteristic(0x2AD9) rejects: NotFoundError)
//   results          the result code per op code ({0: 5}: control not permitted); 1 (success) otherwise
//   answering        false: writes are never answered (a trainer that stays silent)
//   holding          true: answers wait for answer(); false: each write is answered as it lands
//   answer(result)   indicates the answer to the oldest write not answered yet (its result, or `result`)
//   controlLog       "write 04 e8 03", "indicate 80 04 01", ... in order
//   unanswered       op codes written and not answered yet
//   overlaps         writes that came while an earlier one was not answered yet (a site must wait)
(() => {
  const BASE = "-0000-1000-8000-00805f9b34fb";
  const canonical = (uuid) =>
    typeof uuid === "number" ? `${uuid.toString(16).padStart(8, "0")}${BASE}` : String(uuid).toLowerCase();
  const short = (uuid) => canonical(uuid).slice(4, 8);
  const dataView = (hex) => {
    const digits = hex.replace(/\s+/g, "");
    return new DataView(Uint8Array.from(digits.match(/../g) || [], (pair) => parseInt(pair, 16)).buffer);
  };
  const notFound = (message) => Promise.reject(new DOMException(message, "NotFoundError"));
  const gone = () => Promise.reject(new DOMException("GATT Server is disconnected.", "NetworkError"));

  const trainer = {
    name: "Stand-in trainer",
    range: "0000 e803 0a00", // levels 0.0 to 100.0, in steps of 1.0
    cancelled: false,
    reachable: true,
    requested: [],
    calls: [],
    connected: false,
    notifying: false,
    controlPoint: true,
    results: {},
    answering: true,
    holding: false,
    controlLog: [],
    unanswered: [],
    overlaps: 0,
    indicating: false,
    answer(result) {
      if (!trainer.connected || !trainer.indicating || !trainer.unanswered.length) return false;
      const op = trainer.unanswered.shift();
      const code = result ?? trainer.results[op] ?? 1;
      const answer = [0x80, op, code].map((byte) => byte.toString(16).padStart(2, "0")).join(" ");
      trainer.controlLog.push(`indicate ${answer}`);
      control.value = dataView(answer);
      control.dispatchEvent(new Event("characteristicvaluechanged"));
      return true;
    },
    notify(hex) {
      if (!trainer.connected || !trainer.notifying) return false;
      bikeData.value = dataView(hex);
      bikeData.dispatchEvent(new Event("characteristicvaluechanged"));
      return true;
    },
    disconnect() {
      if (!trainer.connected) return;
      trainer.connected = false;
      trainer.notifying = trainer.indicating = false;
      trainer.unanswered = [];
      device.dispatchEvent(new Event("gattserverdisconnected"));
    },
  };
  const call = (what) => trainer.calls.push(what);

  const bikeData = Object.assign(new EventTarget(), {
    uuid: canonical(0x2ad2),
    value: null,
    async startNotifications() {
      call("startNotifications");
      if (!trainer.connected) return gone();
      trainer.notifying = true;
      return bikeData;
    },
    async stopNotifications() {
      call("stopNotifications");
      trainer.notifying = false;
      return bikeData;
    },
  });
  const rangeCharacteristic = {
    uuid: canonical(0x2ad6),
    value: null,
    async readValue() {
      call("readValue 2ad6");
      if (!trainer.connected) return gone();
      rangeCharacteristic.value = dataView(trainer.range);
      return rangeCharacteristic.value;
    },
  };
  const control = Object.assign(new EventTarget(), {
    uuid: canonical(0x2ad9),
    value: null,
    async startNotifications() {
      call("startNotifications 2ad9");
      if (!trainer.connected) return gone();
      trainer.indicating = true;
      return control;
    },
    async writeValueWithResponse(value) {
      const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
      const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join(" ");
      call(`write 2ad9 ${hex}`);
      if (!trainer.connected) return gone();
      trainer.controlLog.push(`write ${hex}`);
      if (!trainer.answering) return undefined;
      if (trainer.unanswered.length) trainer.overlaps += 1;
      trainer.unanswered.push(bytes[0]);
      if (!trainer.holding) queueMicrotask(() => trainer.answer()); // the indication follows the write's response
      return undefined;
    },
  });
  const service = {
    uuid: canonical(0x1826),
    isPrimary: true,
    async getCharacteristic(uuid) {
      call(`getCharacteristic ${short(uuid)}`);
      if (!trainer.connected) return gone();
      if (canonical(uuid) === bikeData.uuid) return bikeData;
      if (canonical(uuid) === rangeCharacteristic.uuid && trainer.range !== null) return rangeCharacteristic;
      if (canonical(uuid) === control.uuid && trainer.controlPoint) return control;
      return notFound(`No Characteristics matching UUID ${canonical(uuid)} found in Service with UUID ${service.uuid}.`);
    },
  };
  const gatt = {
    get connected() {
      return trainer.connected;
    },
    async connect() {
      call("connect");
      if (!trainer.reachable) return Promise.reject(new DOMException("Connection attempt failed.", "NetworkError"));
      trainer.connected = true;
      return gatt;
    },
    disconnect() {
      call("gatt.disconnect");
      trainer.disconnect();
    },
    async getPrimaryService(uuid) {
      call(`getPrimaryService ${short(uuid)}`);
      if (!trainer.connected) return gone();
      if (canonical(uuid) === service.uuid) return service;
      return notFound(`No Services matching UUID ${canonical(uuid)} found in Device.`);
    },
  };
  const device = new EventTarget();
  Object.defineProperties(device, {
    id: { value: "stand-in-trainer" },
    name: { get: () => trainer.name ?? undefined }, // read when asked: a test may rename the trainer first
    gatt: { value: gatt },
  });
  gatt.device = device;

  const bluetooth = {
    async getAvailability() {
      return true;
    },
    async requestDevice(options) {
      call("requestDevice");
      trainer.requested.push(JSON.parse(JSON.stringify(options ?? {})));
      if (trainer.cancelled) return notFound("User cancelled the requestDevice() chooser.");
      return device;
    },
  };
  Object.defineProperty(globalThis.navigator, "bluetooth", { value: bluetooth, configurable: true });
  globalThis.__trainer = trainer;
})();

// A heart-rate strap beside the trainer: requestDevice({filters: [{services: [0x180d]}]}) chooses it
// (any other request, the trainer above). Its Heart Rate Service (0x180D) has Heart Rate Measurement
// (0x2A37, notify). A test drives it through window.__strap, as __trainer: notify(hex) one measurement
// ("00 8c": flags 0, 140 bpm), disconnect(), reachable, name, cancelled, requested, calls, connected,
// notifying.
(() => {
  const HEART_RATE = 0x180d;
  const BASE = "-0000-1000-8000-00805f9b34fb";
  const canonical = (uuid) =>
    typeof uuid === "number" ? `${uuid.toString(16).padStart(8, "0")}${BASE}` : String(uuid).toLowerCase();
  const dataView = (hex) => new DataView(Uint8Array.from(hex.replace(/\s+/g, "").match(/../g) || [],
    (pair) => parseInt(pair, 16)).buffer);
  const gone = () => Promise.reject(new DOMException("GATT Server is disconnected.", "NetworkError"));
  const notFound = (message) => Promise.reject(new DOMException(message, "NotFoundError"));
  const wantsHeartRate = (options) => (options?.filters ?? [])
    .some((filter) => (filter.services ?? []).some((uuid) => canonical(uuid) === canonical(HEART_RATE)));

  const strap = {
    name: "Stand-in strap",
    cancelled: false,
    reachable: true,
    requested: [],
    calls: [],
    connected: false,
    notifying: false,
    notify(hex) {
      if (!strap.connected || !strap.notifying) return false;
      measurement.value = dataView(hex);
      measurement.dispatchEvent(new Event("characteristicvaluechanged"));
      return true;
    },
    disconnect() {
      if (!strap.connected) return;
      strap.connected = false;
      strap.notifying = false;
      device.dispatchEvent(new Event("gattserverdisconnected"));
    },
  };
  const call = (what) => strap.calls.push(what);
  const measurement = Object.assign(new EventTarget(), {
    uuid: canonical(0x2a37),
    value: null,
    async startNotifications() {
      call("startNotifications");
      if (!strap.connected) return gone();
      strap.notifying = true;
      return measurement;
    },
  });
  const service = {
    uuid: canonical(HEART_RATE),
    isPrimary: true,
    async getCharacteristic(uuid) {
      call(`getCharacteristic ${canonical(uuid).slice(4, 8)}`);
      if (!strap.connected) return gone();
      if (canonical(uuid) === measurement.uuid) return measurement;
      return notFound(`No Characteristics matching UUID ${canonical(uuid)} found in Service with UUID ${service.uuid}.`);
    },
  };
  const gatt = {
    get connected() {
      return strap.connected;
    },
    async connect() {
      call("connect");
      if (!strap.reachable) return Promise.reject(new DOMException("Connection attempt failed.", "NetworkError"));
      strap.connected = true;
      return gatt;
    },
    disconnect() {
      call("gatt.disconnect");
      strap.disconnect();
    },
    async getPrimaryService(uuid) {
      call(`getPrimaryService ${canonical(uuid).slice(4, 8)}`);
      if (!strap.connected) return gone();
      if (canonical(uuid) === service.uuid) return service;
      return notFound(`No Services matching UUID ${canonical(uuid)} found in Device.`);
    },
  };
  const device = new EventTarget();
  Object.defineProperties(device, {
    id: { value: "stand-in-strap" },
    name: { get: () => strap.name ?? undefined },
    gatt: { value: gatt },
  });
  gatt.device = device;

  const { bluetooth } = globalThis.navigator;
  const requestTrainer = bluetooth.requestDevice.bind(bluetooth);
  bluetooth.requestDevice = async (options) => {
    if (!wantsHeartRate(options)) return requestTrainer(options);
    call("requestDevice");
    strap.requested.push(JSON.parse(JSON.stringify(options ?? {})));
    if (strap.cancelled) return notFound("User cancelled the requestDevice() chooser.");
    return device;
  };
  globalThis.__strap = strap;
})();
