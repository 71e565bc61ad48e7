"""`make demo`: the local stack plus a fleet of simulated racers, and the frontend to watch them.

PORT (default 3000), RACERS (default 100) and SPEED (race seconds per second, default 1)
come from the environment. Ctrl-C stops the simulator, then the stack.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

from simulator.client import ApiClient
from simulator.progress import ProgressBar
from simulator.race import Settings, Simulator

from .server import LocalStack, wait_for_ctrl_c


def start_simulator(stack: LocalStack, settings: Settings, stop: threading.Event,
                    show_progress: bool = True) -> tuple[Simulator, threading.Thread]:
    """The simulator racing against ``stack`` in a daemon thread."""
    client = ApiClient(stack.url)
    client.token = client.local_admin_token()
    simulator = Simulator(client, settings, progress=ProgressBar(enabled=show_progress), stop=stop)

    def ride() -> None:
        try:
            simulator.run()
        except Exception as error:  # shown, not raised: the stack stays up for the frontend
            if not stop.is_set():
                sys.stderr.write(f"\nsimulator stopped: {error!r}\n")

    thread = threading.Thread(target=ride, name="simulator", daemon=True)
    thread.start()
    return simulator, thread


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    stack = LocalStack(port=int(os.environ.get("PORT", "3000"))).start()
    settings = Settings(racers=int(os.environ.get("RACERS", "100")),
                        speed=float(os.environ.get("SPEED", "1")))
    stop = threading.Event()
    simulator, thread = start_simulator(stack, settings, stop)
    print(f"Alleycat demo: {settings.racers} racers at speed {settings.speed:g}\n"
          f"  frontend  {stack.url}/#/classes/{settings.class_id}\n"
          f"  API       {stack.url}\n(Ctrl-C stops it)", flush=True)
    try:
        wait_for_ctrl_c(stop)
    finally:
        stop.set()
        thread.join(timeout=5)
        stack.stop()
        print(f"\n{simulator.totals.summary()}\nstopped", flush=True)


if __name__ == "__main__":
    main()
