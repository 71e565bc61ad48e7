"""Live boards pushed over AppSync Events: measured on `make local` (``python -m local`` in a process of
its own; bikes, subscribed viewers and pollers from the simulator), priced in the race's bill.

Freshness is the time from the telemetry answer that accepted a sample to a viewer's board showing
it, for every sample and viewer. The machine's load is recorded beside the figures.
"""

from __future__ import annotations

import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from datetime import datetime, timezone

from .env import ROOT, say
from .pricing import race_cost

QUICK = os.environ.get("BENCH_QUICK") == "1"
RACERS, VIEWERS, POLLERS, SECONDS = (10, 10, 2, 60) if QUICK else (100, 100, 5, 120)
# Half the bikes, the same viewers: on a 2-core machine 100 separate bikes, their viewers and the
# stack take more CPU than it has (late ticks), so the run is repeated where the stack keeps up.
LIGHTER_RACERS = RACERS // 2
LIGHTER_KEYS = ("racers", "late_ticks", "freshness_p50_s", "freshness_p95_s", "freshness_max_s", "polling_p50_s",
                "polling_p95_s", "polling_max_s", "load_average", "bytes_per_message", "messages_per_second")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LoadSampler:
    """The machine's 1-minute load average every few seconds while the measurement runs."""

    def __init__(self, every: float = 5.0):
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> "LoadSampler":
        self.before = os.getloadavg()[0]
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.after = os.getloadavg()[0]

    def figures(self) -> dict:
        during = self.samples or [self.after]
        return {"before": self.before, "during_mean": sum(during) / len(during), "during_max": max(during),
                "after": self.after, "cores": os.cpu_count()}


def start_local_stack(port: int) -> subprocess.Popen:
    """`python -m local` as `make local` runs it; returns once it says it is ready."""
    process = subprocess.Popen([sys.executable, "-m", "local"], cwd=ROOT, env={**os.environ, "PORT": str(port)},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in process.stdout:
        lines.append(line)
        if "ready at" in line:
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # keep draining
            return process
    raise RuntimeError("the local stack did not start:\n" + "".join(lines))


def stop_local_stack(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)  # wait_for_ctrl_c's stop (SIGINT may be ignored in the background)
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()


def measure(racers: int = RACERS, viewers: int = VIEWERS, pollers: int = POLLERS, seconds: int = SECONDS) -> dict:
    from simulator.client import ApiClient
    from simulator.progress import ProgressBar
    from simulator.race import Settings, Simulator

    port = free_port()
    stack = start_local_stack(port)
    try:
        client = ApiClient(f"http://127.0.0.1:{port}")
        client.token = client.local_admin_token()
        tag = uuid.uuid4().hex[:6]
        settings = Settings(racers=racers, races=1, duration=seconds, bikes=True, push_viewers=viewers,
                            pollers=pollers, class_id=f"push-{tag}", racer_prefix=f"push-{tag}")
        simulator = Simulator(client, settings, progress=ProgressBar(enabled=False))
        with LoadSampler() as load:
            started = time.monotonic()
            totals = simulator.run()
            elapsed = time.monotonic() - started
    finally:
        stop_local_stack(stack)
    [audience] = totals.audiences
    push, poll, sizes = audience["push"], audience["poll"], audience["bytes_per_message"]
    return {
        "measured": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
        "load_average": load.figures(),
        "racers": racers, "viewers": viewers, "pollers": pollers, "race_seconds": seconds,
        "elapsed_seconds": elapsed, "late_ticks": totals.late_ticks, "samples_accepted": totals.accepted,
        "freshness_p50_s": push["p50"], "freshness_p95_s": push["p95"], "freshness_p99_s": push["p99"],
        "freshness_max_s": push["max"], "freshness_samples": push["n"], "never_shown": push["never_shown"],
        "polling_p50_s": poll["p50"], "polling_p95_s": poll["p95"], "polling_max_s": poll["max"],
        "polling_samples": poll["n"],
        "messages_per_second": audience["messages_per_second"], "messages": audience["messages"],
        "bytes_per_message": sizes["mean"], "bytes_per_message_p95": sizes["p95"], "bytes_per_message_max": sizes["max"],
        "rows_per_message": audience["rows_per_message"]["mean"], "errors": audience["errors"], "quick": QUICK,
    }


def priced(figures: dict) -> dict:
    """The race's bill with boards pushed beside the bill as polled (``figures["cost"]``), and the lines
    where they differ."""
    pushed, polled = race_cost(figures, {"push": True}), figures["cost"]

    def by_kind(lines: list[dict]) -> dict:  # "CloudFront requests (viewers' polls)" -> "CloudFront requests"
        kinds: dict = defaultdict(float)
        for line in lines:
            kinds[line["item"].split(" (")[0]] += line["usd"]
        return kinds

    before, after = by_kind(polled["lines"]), by_kind(pushed["lines"])
    differ = [{"item": item, "polled": before.get(item, 0.0), "pushed": after.get(item, 0.0)}
              for item in [*before, *(i for i in after if i not in before)]
              if abs(before.get(item, 0.0) - after.get(item, 0.0)) >= 0.0005]
    return {"dollars_per_race": pushed["total"], "polling_dollars_per_race": polled["total"], "differ": differ,
            "pushed_lines": pushed["lines"]}


def stage() -> dict:
    """``make bench``'s push stage, measured (``priced`` prices it once the race's bill is known)."""
    say(f"push: {RACERS} bikes and {VIEWERS} subscribed viewers (+{POLLERS} polling) on `make local` for {SECONDS} s")
    figures = measure()
    say(f"push: {LIGHTER_RACERS} bikes as well, the load this machine keeps in real time")
    lighter = measure(racers=LIGHTER_RACERS)
    figures["lighter"] = {key: lighter[key] for key in LIGHTER_KEYS}
    say(f"push: shown after p50 {figures['freshness_p50_s']:.2f} s, p95 {figures['freshness_p95_s']:.2f} s "
        f"(polling every second: p95 {figures['polling_p95_s']:.2f} s); {figures['messages_per_second']:.2f} "
        f"messages/s of {figures['bytes_per_message']:,.0f} bytes; load {figures['load_average']['during_mean']:.1f}")
    return figures
