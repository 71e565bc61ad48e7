// Countdowns to races' starts: "starts in 4:12", ticking on each second, then "live". One ticker
// per page: the page makes its countdown elements with it and stops it when the page goes (for
// good: an element made after that, by a read that was still under way, shows but never ticks).
// The server's clock counts (serverTime.js): a computer's clock minutes off still shows the right wait.
import { h } from "./dom.js";
import { serverClock } from "./serverTime.js";
import { timeLeft } from "./time.js";

// onStart(): a start the ticker counted down to has passed (once per tick, however many did) —
// the page reads its lists again. An element already past when made reads "live" and calls nothing.
export function countdowns(onStart = () => {}) {
  const counting = new Map(); // element -> start (ms)
  let timer = null;
  let stopped = false;

  const show = (element, at, now) => {
    if (now < at) {
      element.textContent = `starts in ${timeLeft(at - now)}`;
      return false;
    }
    element.textContent = "live";
    element.className = "status open";
    return true;
  };

  function tick() {
    timer = null;
    const now = serverClock.now();
    let started = false;
    for (const [element, at] of counting) {
      if (!element.isConnected) counting.delete(element); // its list was drawn again, or the page left
      else if (show(element, at, now)) {
        counting.delete(element);
        started = true;
      }
    }
    schedule();
    if (started) onStart();
  }

  function schedule() {
    if (timer === null && counting.size) timer = setTimeout(tick, 1000 - (((serverClock.now() % 1000) + 1000) % 1000)); // on the server's second
  }

  return {
    // A countdown to `startsAt` (ISO); put it on the page in the same task (a tick drops elements
    // that are not on the page).
    element(startsAt) {
      const element = h("span", { class: "countdown" });
      const at = Date.parse(startsAt);
      if (!show(element, at, serverClock.now()) && !stopped) {
        counting.set(element, at);
        schedule();
      }
      return element;
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = null;
      counting.clear();
    },
  };
}
