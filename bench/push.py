"""Live boards pushed over AppSync Events: measured on `make local`, priced for 1,000 viewers.

**Measured** (``measure``): `python -m local` (what `make local` runs: DynamoDB Local on disk, the
stand-in Event API) in a process of its own; ``RACERS`` bikes each posting their own sample every
second (``simulator --bikes``) for ``SECONDS``; ``VIEWERS`` viewers subscribed to the race's channel
and ``POLLERS`` viewers polling the board every second as the page did before push, in a process of
their own (``simulator.audience``). Freshness is the time from the telemetry answer that accepted a
sample to the viewer's board showing it, for every sample and every viewer. The machine's load is
recorded beside the figures (it shares its 2 cores with other work).

**Priced** (``priced``): the race's bill (``bench.pricing``: 1,000 racers, 300 s, 1,000 viewers) with
the measured messages per second and bytes per message, beside the same race polled through CloudFront.

``BENCH_ONLY=push make bench`` (``make bench-push``) measures push alone and prices the race again,
leaving the other stages' measurements in docs/performance.json as they are; ``make bench`` runs it
as one of its stages.
"""

from __future__ import annotations

import json
import math
import os
import platform
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone

from .env import ROOT
from .progress import say

from alleycat.push import MAX_MESSAGE_BYTES

QUICK = os.environ.get("BENCH_QUICK") == "1"
RACERS, VIEWERS, POLLERS, SECONDS = (10, 10, 2, 60) if QUICK else (100, 100, 5, 120)
# Half the bikes, the same viewers: on a 2-core machine 100 separate bikes, their viewers and the
# stack take more CPU than it has (late ticks), so the run is repeated where the stack keeps up.
LIGHTER_RACERS = RACERS // 2
LIGHTER_KEYS = ("racers", "late_ticks", "freshness_p50_s", "freshness_p95_s", "freshness_max_s", "polling_p50_s",
                "polling_p95_s", "polling_max_s", "load_average", "bytes_per_message", "messages_per_second")
PRICED_VIEWERS, PRICED_SECONDS = 1000, 300  # the race-day scenario (bench/pricing.py)
CONNECTED_BEFORE_START_SECONDS = 60  # assumed: viewers open the page a minute before the start
PUBLISH_MS = 15  # assumed Lambda time per publish in AWS (one Query + one HTTPS POST, in parallel per race)
STREAM_MEMORY_MB = 1024


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
    """The race's bill with boards pushed (``pricing.race_cost``'s push lever, from the measured messages)
    beside the bill as polled (``figures["cost"]``), and the lines where they differ."""
    from .pricing import race_cost

    pushed, polled = race_cost(figures, figures["memory_mb"], {"push": True}), figures["cost"]
    def by_kind(lines: list[dict]) -> dict:  # "CloudFront requests (viewers' polls)" -> "CloudFront requests"
        kinds: dict = {}
        for line in lines:
            kinds[line["item"].split(" (")[0]] = kinds.get(line["item"].split(" (")[0], 0.0) + line["usd"]
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


def markdown(f: dict) -> list[str]:
    """docs/performance.md's section on push (from the figures under ``push``)."""
    p = f["push"]
    load, shards, lighter = p["load_average"], f["assumed"]["stream_shards"]["value"], p.get("lighter")
    return [
        "## 7. Live boards pushed (AppSync Events)",
        ("**Quick run (BENCH_QUICK=1): not figures to publish.** " if p.get("quick") else "") + f"Measured {p['measured']} on `make local` ({p['machine']}; 1-minute load average {load['before']:.1f} before, "
        f"{load['during_mean']:.1f} on average during (max {load['during_max']:.1f}), {load['after']:.1f} after, on "
        f"{load['cores']} cores shared with other work): {p['racers']} bikes each posting its own sample every second "
        f"for {p['race_seconds']} s ({p['late_ticks']} late ticks of {p['race_seconds']}), {p['viewers']} viewers subscribed to the race's "
        f"channel over the stand-in Event API (AppSync Events' WebSocket protocol) and {p['pollers']} viewers polling "
        "the board every second as the page did before, in one run (`bench/push.py`, `simulator/audience.py`). "
        "Freshness: from the telemetry answer that accepted a sample to the viewer's board showing it, for every "
        f"sample and every viewer ({p['freshness_samples']:,} pushed, {p['polling_samples']:,} polled). The local "
        "polling figure has no CloudFront in front: in AWS a polled answer may also be up to a second old (`max-age=1`).",
        *([f"**At that load the stack did not keep real time** ({p['late_ticks']} of {p['race_seconds']} ticks late: "
            "the bikes' seconds came slower than one a second, and every stage queued behind the others' work), so the "
            "figures hold queueing a machine to itself would not have. What a pushed sample waits for: the stream's "
            "batching window (up to 1 s, the same in AWS), the stream processor's invocation (its reads and writes on "
            "DynamoDB Local, then one board read and one publish), and the fan-out (milliseconds); a polled one waits "
            "for the same window and invocation, then for the next poll."]
          if p["late_ticks"] > p["race_seconds"] / 10 else []),
        _table(["", "p50 s", "p95 s", "max s"],
               [["**pushed** (subscribed viewers)", f"**{p['freshness_p50_s']:.2f}**", f"**{p['freshness_p95_s']:.2f}**",
                 f"{p['freshness_max_s']:.2f}"],
                ["polled every second (before)", f"{p['polling_p50_s']:.2f}", f"{p['polling_p95_s']:.2f}",
                 f"{p['polling_max_s']:.2f}"]]
               + ([[f"pushed, {lighter['racers']} bikes ({lighter['late_ticks']} late ticks)", f"{lighter['freshness_p50_s']:.2f}",
                    f"{lighter['freshness_p95_s']:.2f}", f"{lighter['freshness_max_s']:.2f}"],
                   [f"polled, {lighter['racers']} bikes", f"{lighter['polling_p50_s']:.2f}", f"{lighter['polling_p95_s']:.2f}",
                    f"{lighter['polling_max_s']:.2f}"]] if lighter else [])),
        *([f"The last two rows: the same run again with {lighter['racers']} bikes and the same {p['viewers']} viewers "
           f"right after (load {lighter['load_average']['during_mean']:.1f} on average), where the stack keeps close to "
           "real time: what the pipeline itself takes when the machine is not the queue."] if lighter else []),
        f"Messages per second per race: **{p['messages_per_second']:.2f}** (one per stream invocation that wrote the "
        f"race's board: the local stream has one shard; in AWS up to one per shard carrying the race). Bytes per "
        f"message: **{p['bytes_per_message']:,.0f}** on average (p95 {p['bytes_per_message_p95']:,.0f}, max "
        f"{p['bytes_per_message_max']:,.0f}; {p['rows_per_message']:.0f} rows): the top 10 rows and the racers whose "
        "standing changed, at most 4 KB (`alleycat.push.MAX_MESSAGE_BYTES`), so a 1,000-racer board's message also stays "
        f"one metered operation. Samples never shown to a viewer by the end: {p['never_shown']:,}.",
        f"**Priced** in the race's bill (section 5, `bench/pricing.py`: 1,000 racers, a 300-second race, 1,000 "
        f"viewers), from those messages: each of the S = {shards} stream shards' invocations publishes its own "
        "message for the race, and AppSync delivers each to every viewer; every assumption is labelled in "
        "docs/performance.json (`cost` of the push lever: `push.pushed_lines`). The lines that change:",
        _table(["line of the race's bill", "polled every second, US$", "pushed, US$"],
               [[d["item"], f"{d['polled']:.3f}", f"{d['pushed']:.3f}"] for d in p["differ"]]
               + [["**the race**", f"**{p['polling_dollars_per_race']:.2f}**", f"**{p['dollars_per_race']:.2f}**"]]),
        f"Pushed as built, a race costs **${p['dollars_per_race']:.2f}**; polled every second, "
        f"**${p['polling_dollars_per_race']:.2f}**. AppSync bills every delivery, and each of the S shards' "
        f"invocations sends every viewer a message: {p['messages_per_second'] * shards:.1f} a second where a "
        "viewer polled once"
        + "".join(f". Coalesced to one message a second per race (a lever, not built: section 5), a race would cost "
                  f"${l['total']:.2f}" for l in f.get("levers", []) if "coalesced" in l["lever"])
        + ". Besides dollars, pushed viewers no longer reach CloudFront or the API every second (two board reads "
        "each: the first paint and the read on subscribing), and they see a sample sooner by the figures above.",
    ]


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])
