// The site controlling a smart trainer through its Fitness Machine Control Point (FTMS 1.0, 0x2AD9):
// control requested as it connects (and again as it comes back), then the target resistance level
// for the rider's resistance. One write at a time: each waits for its indication (0x80, op, result)
// or ANSWER_MS, as Auuki/Flux and GoldenCheetah wait (a GATT server answers one control point
// procedure at a time). A write that finishes writes the latest resistance wanted, if it is not the
// one just written: changes made meanwhile are not queued, only the last counts. The messages are
// ftms.js's; the characteristic is Web Bluetooth's (trainer.js), or any object with its methods. Runs
// in a browser and in Node (tests/integration/test_trainer_control_js.py).
import {
  CONTROL_NOT_PERMITTED, NOT_SUPPORTED, parseControlResponse, requestControl, RESULTS, resistancePercent,
  setTargetResistanceLevel, SUCCESS, targetLevel,
} from "./ftms.js";

export const ANSWER_MS = 2000; // a write unanswered this long is given up; the rider is told

// What the rider is told, for a status controlTrainer reports.
export function controlMessage(status) {
  const answer = (result) => `“${RESULTS[result] ?? `result ${result}`}”`;
  const ride = "The ride goes on reading it.";
  switch (status.state) {
    case "none":
      return "This trainer cannot be set from here (it has no Fitness Machine Control Point): set its resistance on the trainer. The ride goes on reading it.";
    case "asking":
      return "Asking the trainer for control…";
    case "setting":
      return `Setting the trainer to ${status.percent} %…`;
    case "set":
      return `Your trainer is set to ${status.percent} % (level ${status.level}).`;
    case "refused":
      if (status.during === "control" && status.result === NOT_SUPPORTED)
        return `Your trainer does not let this site set its resistance (it answered ${answer(status.result)}): set it on the trainer. ${ride}`;
      if (status.result === CONTROL_NOT_PERMITTED)
        return `Your trainer would not take orders from this site (${answer(status.result)}: another app, such as Zwift or its maker's, may hold it). Close that app, then change your resistance to ask again. ${ride}`;
      if (status.during === "control")
        return `Your trainer refused control (${answer(status.result)}). Change your resistance to ask again. ${ride}`;
      return `Your trainer refused ${status.percent} % (${answer(status.result)}): its resistance is not what you chose.`;
    case "silent":
      return status.during === "control"
        ? `Your trainer did not answer the request for control within ${ANSWER_MS / 1000} s. Change your resistance to ask again. ${ride}`
        : `Your trainer did not confirm ${status.percent} % within ${ANSWER_MS / 1000} s: its resistance may not be what you chose. Change it to try again.`;
    default:
      return "";
  }
}

// onStatus({state, during?, result?, percent?, level?}): what the control is at (controlMessage says it).
// answerMs, timers ({setTimeout, clearTimeout}): how long a write waits for its indication, on whose clock.
export function controlTrainer({ onStatus = () => {}, answerMs = ANSWER_MS, timers = globalThis } = {}) {
  let point = null; // the control point while connected
  let range = null;
  let granted = false; // the trainer answered the request for control with success
  let askForControl = false; // request control at the next turn (connected, or the rider changed something after a refusal)
  let wanted = null; // {percent, level}: the rider's latest
  let tried = null; // the `wanted` last written (or found already set)
  let acknowledged = null; // {percent, level}: the last the trainer confirmed
  let answered = null; // (response) => void: the write in flight, waiting for its indication
  let abandon = null; // () => void: ends the write in flight (the trainer went away)
  let busy = false;

  const indicated = (event) => {
    const response = parseControlResponse(event.target.value);
    if (response) answered?.(response);
  };

  // Writes `bytes`, then waits for the indication answering its op code: {result}, {timeout: true},
  // {error} (the write itself failed) or {lost: true}.
  function exchange(bytes) {
    return new Promise((resolve) => {
      let timer = null;
      const done = (outcome) => {
        if (timer === null) return;
        timers.clearTimeout(timer);
        timer = answered = abandon = null;
        resolve(outcome);
      };
      timer = timers.setTimeout(() => done({ timeout: true }), answerMs);
      answered = (response) => response.requestOp === bytes[0] && done(response);
      abandon = () => done({ lost: true });
      // Web Bluetooth: the control point takes writes with a response (writeValue where the browser is older).
      const write = point.writeValueWithResponse ? () => point.writeValueWithResponse(bytes) : () => point.writeValue(bytes);
      Promise.resolve().then(write).catch((error) => done({ error }));
    });
  }

  const failure = (outcome, during, target) => (outcome.timeout || outcome.error
    ? { state: "silent", during, ...target }
    : { state: "refused", during, result: outcome.result, ...target });

  async function turn() {
    if (busy) return;
    busy = true;
    try {
      while (point) {
        if (!granted) {
          if (!askForControl) break;
          onStatus({ state: "asking" });
          const outcome = await exchange(requestControl());
          askForControl = false; // changes made while it was asked for are this request's
          if (outcome.lost) break;
          if (outcome.result !== SUCCESS) {
            onStatus(failure(outcome, "control"));
            break;
          }
          granted = true;
          if (!wanted) onStatus({ state: "granted" });
        }
        if (!wanted || wanted === tried) break;
        const target = (tried = wanted);
        if (acknowledged?.level === target.level) {
          onStatus({ state: "set", ...target });
          continue;
        }
        onStatus({ state: "setting", ...target });
        const outcome = await exchange(setTargetResistanceLevel(target.level));
        if (outcome.lost) break;
        if (outcome.result === SUCCESS) {
          acknowledged = target;
          onStatus({ state: "set", ...target });
        } else {
          if (outcome.result === CONTROL_NOT_PERMITTED) granted = false; // taken back: asked for again at the next change
          onStatus(failure(outcome, "resistance", target));
        }
      }
    } finally {
      busy = false;
    }
  }

  return {
    // The trainer is connected (again): control is asked for, then the latest resistance set.
    attach(characteristic, supportedRange) {
      point?.removeEventListener("characteristicvaluechanged", indicated);
      point = characteristic;
      range = supportedRange;
      granted = false;
      askForControl = true;
      tried = acknowledged = null; // a trainer back from a drop-out may have forgotten it
      if (wanted) wanted = { percent: wanted.percent, level: targetLevel(wanted.percent, range) };
      point.addEventListener("characteristicvaluechanged", indicated);
      turn();
    },
    // The trainer has no control point: nothing is written.
    unavailable() {
      onStatus({ state: "none" });
    },
    // The trainer went away (or was disconnected): control is lost with it.
    detach() {
      point?.removeEventListener("characteristicvaluechanged", indicated);
      point = null;
      granted = false;
      acknowledged = null;
      abandon?.();
    },
    // The rider's resistance (0–100 %).
    set(percent) {
      wanted = { percent, level: targetLevel(percent, range) };
      if (!granted) askForControl = true;
      turn();
    },
    // The resistance the trainer confirmed, as a percent of its range (undefined before any).
    get acknowledgedPercent() {
      return acknowledged ? resistancePercent(acknowledged.level, range) : undefined;
    },
  };
}
