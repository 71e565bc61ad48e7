// The ride page's heartbeat: onBeat() several times a second from a dedicated worker
// (heartbeat.worker.js, built next to the app: frontend/build.mjs names it in HEARTBEAT_WORKER), so a
// hidden page keeps its ride's seconds. Where a worker cannot start (no Worker, a policy), nothing
// beats: the page's own timers still run. Returns stop().
/* global HEARTBEAT_WORKER */
export function heartbeat(onBeat) {
  let worker = null;
  try {
    worker = new Worker(HEARTBEAT_WORKER);
    worker.onmessage = () => onBeat();
    worker.onerror = () => worker?.terminate();
  } catch {
    return () => {};
  }
  return () => worker.terminate();
}
