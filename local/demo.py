"""`make demo`: the local stack plus a fleet of simulated racers, and the frontend to watch them and join.

PORT (default 3000), RACERS (default 100), METRIC (output, the default, or power: a power class of its own,
``demo-power``, ranked by the racers' watts), SPEED (race seconds per second, default 1; above 1 each race
started ``duration × (1 − 1/SPEED)`` before its first tick, so every second posted has happened by the
server's clock: ``simulator.race.head_start``), and RACES (stop after this many; default: until Ctrl-C) come
from the environment. At SPEED 1 each race is announced ANNOUNCE seconds (default 120) before its start: it is
"Up next", counting down, with the simulated racers joined, so a person can sign up and join it before it
starts and race the field (which rides from the start); the next is announced as long before the race ridden
ends, and starts as it ends (``simulator.race.Settings.announce``). After each race it prints the late
ticks so far and the stack's memory. Ctrl-C stops the simulator, then the stack.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Mapping

from simulator.client import ApiClient
from simulator.progress import ProgressBar
from simulator.race import Settings, Simulator

from .server import LocalStack, start_or_explain, wait_for_ctrl_c

# Two minutes: time to open the page, sign up (the stand-in's emailed code is in the terminal) and join.
ANNOUNCE_SECONDS = 120


def demo_settings(environ: Mapping[str, str]) -> Settings:
    """The simulator's settings from ``make demo``'s environment (RACERS, SPEED, RACES, ANNOUNCE, METRIC)."""
    speed = float(environ.get("SPEED", "1"))
    races = environ.get("RACES")
    metric = environ.get("METRIC", "output")
    if metric not in ("output", "power"):
        raise SystemExit(f"METRIC={metric}: a class's metric is output or power")
    settings = Settings(racers=int(environ.get("RACERS", "100")), speed=speed, races=int(races) if races else None,
                        announce=int(environ.get("ANNOUNCE", str(ANNOUNCE_SECONDS))))
    if metric == "power":
        settings.class_id, settings.class_name, settings.metric = "demo-power", "Demo power class", "power"
    return settings


def start_simulator(stack: LocalStack, settings: Settings, stop: threading.Event,
                    show_progress: bool = True) -> tuple[Simulator, threading.Thread]:
    """The simulator racing against ``stack`` in a daemon thread."""
    client = ApiClient(stack.url)
    client.token = client.local_admin_token()
    progress = ProgressBar(enabled=show_progress, after_race=stack.memory)
    simulator = Simulator(client, settings, progress=progress, stop=stop, clock=stack.clock)

    def ride() -> None:
        try:
            simulator.run()
        except Exception as error:  # noqa: BLE001 - shown, not raised: the stack stays up for the frontend
            if not stop.is_set():
                sys.stderr.write(f"\nsimulator stopped: {error!r}\n")
        if settings.races:
            stop.set()  # the races asked for are done

    thread = threading.Thread(target=ride, name="simulator", daemon=True)
    thread.start()
    return simulator, thread


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    stack = start_or_explain(int(os.environ.get("PORT", "3000")))
    settings = demo_settings(os.environ)
    stop = threading.Event()
    simulator, thread = start_simulator(stack, settings, stop)
    announced = (f"  each race is up next {settings.announce} s before its start: sign in on the site and join it\n"
                 if simulator.announcing else "")
    pushed = f"  live boards pushed over {stack.events.realtime_url} (AppSync Events' protocol)\n" if stack.events else ""
    print(f"Alleycat demo: {settings.racers} racers at speed {settings.speed:g}\n"
          f"  frontend  {stack.url}/  (the races: {stack.url}/#/classes/{settings.class_id})\n"
          f"{announced}"
          f"  API       {stack.url}\n"
          f"{pushed}"
          "(Ctrl-C stops it)", flush=True)
    try:
        wait_for_ctrl_c(stop)
    finally:
        stop.set()
        thread.join(timeout=5)
        stack.stop()
        print(f"\n{simulator.totals.summary()}\nstopped", flush=True)


if __name__ == "__main__":
    main()
