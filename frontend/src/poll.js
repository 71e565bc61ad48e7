// Calls ``task`` now and then every ``ms`` after it settles, until stopped or it returns false.
export function poll(ms, task) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    const again = await task();
    if (!stopped && again !== false) timer = setTimeout(tick, ms);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
