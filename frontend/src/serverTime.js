// The server's clock, as this browser can know it: the race's seconds are the server's (contract v1.2,
// Fair play), so a page whose computer clock runs minutes fast or slow still sends each second when
// it happens and counts down to the server's start. Runs in a browser and in Node
// (tests/integration/test_server_time_js.py).
//
// Each answer from the API carries a `Date` (the server's time when it answered, in whole seconds).
// The answer left the server between this page's `sent` and `received` (its own clock, ms), so the
// offset (server − page) lies in [Date − received, Date + 1 s − sent]: an answer's window. An answer
// a cache kept carries an older Date and its `Age` (whole seconds): its window is wider by a second
// and is used only until an uncached answer arrives. The estimate is where the windows overlap;
// answers sent at different moments of the server's second narrow it. An answer whose window does not
// overlap is held aside: a lone one (this page's clock or the server's moved while it was in flight)
// changes nothing; two that agree with each other (this computer's clock was set) replace the estimate.

export const LEAD_MS = 1000; // how far ahead of the earliest the server's clock can be a second is sent (the server allows 2 s)
export const DRIFT = 2e-4; // what two clocks may drift apart, per unit of time: a window grows this much as it ages

export class ServerClock {
  // local(): this page's clock in ms (Date.now).
  constructor(local = () => Date.now()) {
    this.local = local;
    this.exact = null; // {low, high, at}: the overlap of uncached answers' windows (ms), `at` when last narrowed
    this.cached = null; // the same, of cached answers (only while there is no exact one)
    this.aside = { exact: null, cached: null }; // an answer's window that did not overlap, until another agrees
  }

  // An answer: sent and received by this page's clock (ms), its Date header (a string or ms), its Age header (s).
  observe(sent, received, date, age = null) {
    const server = typeof date === "number" ? date : Date.parse(date);
    const aged = age === null || age === undefined || age === "" ? null : Number(age);
    if (!Number.isFinite(server) || !(received >= sent) || (aged !== null && !(aged >= 0))) return false;
    const window = aged === null
      ? { low: server - received, high: server + 1000 - sent, at: received }
      : { low: server + aged * 1000 - received, high: server + (aged + 2) * 1000 - sent, at: received };
    const which = aged === null ? "exact" : "cached";
    if (which === "cached" && this.exact) return false;
    const narrowed = overlap(this[which], window);
    if (narrowed) {
      this[which] = narrowed;
      this.aside[which] = null;
    } else {
      const agreed = overlap(this.aside[which], window);
      if (this.aside[which] && agreed) {
        this[which] = agreed;
        this.aside[which] = null;
      } else {
        this.aside[which] = window;
        return true;
      }
    }
    if (which === "exact") this.cached = null;
    return true;
  }

  // The window in use ({low, high} ms), or null before any answer.
  get window() {
    const held = this.exact || this.cached;
    if (!held) return null;
    const grown = Math.abs(this.local() - held.at) * DRIFT;
    return { low: held.low - grown, high: held.high + grown };
  }

  // The server's time (ms), best guess: the middle of the window (this page's clock before any answer).
  now() {
    const window = this.window;
    return this.local() + (window ? (window.low + window.high) / 2 : 0);
  }

  // The server's time (ms) as a second is sent by it: the best guess, but never more than LEAD_MS
  // past the earliest the server's clock can be (a wide window: few answers, slow ones, cached ones).
  // A second is sent once this reaches it: at most LEAD_MS before it happens by the server's clock,
  // within the 2 s the server allows; never a second early by this computer's clock.
  reached() {
    const window = this.window;
    return this.local() + (window ? Math.min((window.low + window.high) / 2, window.low + LEAD_MS) : 0);
  }
}

// Where `held` (grown by the drift since it was narrowed) and `window` overlap; `window` alone where
// nothing is held; null where they do not overlap.
function overlap(held, window) {
  if (!held) return window;
  const grown = Math.abs(window.at - held.at) * DRIFT;
  const low = Math.max(held.low - grown, window.low);
  const high = Math.min(held.high + grown, window.high);
  return low <= high ? { low, high, at: window.at } : null;
}

// The one clock of this page (the API's answers feed it: api.js).
export const serverClock = new ServerClock();
