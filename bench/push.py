"""Live boards pushed over AppSync Events: measured on `make local`, priced for 1,000 viewers.

**Measured** (``measure``): `python -m local` (what `make local` runs: DynamoDB Local on disk, the
stand-in Event API) in a process of its own; ``RACERS`` bikes each posting their own sample every
second (``simulator --bikes``) for ``SECONDS``; ``VIEWERS`` viewers subscribed to the race's channel
and ``POLLERS`` viewers polling the board every second as the page did before push, in a process of
their own (``simulator.audience``). Freshness is the time from the telemetry answer that accepted a
sample to the viewer's board showing it, for every sample and every viewer. The machine's load is
recorded beside the figures (it shares its 2 cores with other work).

**Priced** (``price``): a 1,000-racer, 300-second race watched by 1,000 viewers, at the measured
messages per second and bytes per message, beside the same viewers polling through CloudFront.

``python -m bench.push`` (``make bench-push``) measures and prices alone and puts the figures under
``push`` in docs/performance.json and docs/performance.md, leaving the other stages' figures as
they are; ``make bench`` runs it as one of its stages.
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

from alleycat.push import MAX_MESSAGE_BYTES  # noqa: E402 - the layer is on sys.path once env is imported

QUICK = os.environ.get("BENCH_QUICK") == "1"
RACERS, VIEWERS, POLLERS, SECONDS = (10, 10, 2, 60) if QUICK else (100, 100, 5, 120)
PRICED_VIEWERS, PRICED_SECONDS = 1000, 300  # the race-day scenario (bench/pricing.py)
CONNECTED_BEFORE_START_SECONDS = 60  # assumed: viewers open the page a minute before the start
PUBLISH_MS = 15  # assumed Lambda time per publish in AWS (one Query + one HTTPS POST, in parallel per race)
STREAM_MEMORY_MB = 1024

PRICES = {
    "as_of": "us-east-1 list prices as found 2026-11-25: $1 per million Event API operations (AWS's price list for "
             "AppSync), $0.08 per million connection-minutes (the AppSync pricing page's real-time rate, assumed the same "
             "for Event APIs); free tier ignored — check aws.amazon.com/appsync/pricing before quoting",
    "event_api_operation_per_million": 1.00,  # publishes in, deliveries out, connects, subscribes, keep-alives
    "connection_minute_per_million": 0.08,
    "metered_kb": 5,  # assumed: each message metered in 5 KB steps, as the page says of real-time updates
    "data_transfer_out_per_gb": 0.09,  # AppSync data out is billed at the EC2 rate (first 10 TB)
    "keep_alive_seconds": 60,  # AppSync's ka interval: counted as operations (an upper bound)
}


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


def price(push: dict, race: dict, prices: dict, viewers: int = PRICED_VIEWERS, seconds: int = PRICED_SECONDS) -> dict:
    """The viewers' side of one race, pushed and polled. ``race``: the race-day stage's figures (the
    board's read units and gzip sizes); ``prices``: bench/pricing.py's (CloudFront, Lambda, DynamoDB)."""
    envelope = len(json.dumps({"type": "data", "id": "00000000-0000-0000-0000-000000000000", "event": ""}))
    message_bytes = push["bytes_per_message"]
    metered = max(1, math.ceil(message_bytes / (PRICES["metered_kb"] * 1024)))
    publishes = push["messages_per_second"] * seconds
    deliveries = publishes * viewers
    connected_minutes = viewers * (seconds + CONNECTED_BEFORE_START_SECONDS) / 60
    keep_alives = viewers * (seconds + CONNECTED_BEFORE_START_SECONDS) / PRICES["keep_alive_seconds"]
    operations = (publishes + deliveries) * metered + 2 * viewers + keep_alives  # + connect and subscribe
    first_reads = 2 * viewers  # the first paint, and the read again on subscribing
    board_gzip = race["leaderboard_gzip_bytes"]
    push_dollars = {
        "event_api_operations": operations / 1e6 * PRICES["event_api_operation_per_million"],
        "connection_minutes": connected_minutes / 1e6 * PRICES["connection_minute_per_million"],
        "data_transfer": deliveries * (message_bytes + envelope) / 1e9 * PRICES["data_transfer_out_per_gb"],
        "first_reads": first_reads / 1e6 * prices["cloudfront_https_request_per_million"]
        + first_reads * board_gzip / 1e9 * prices["cloudfront_transfer_out_per_gb"],
        # the publisher: a strongly consistent read of the board (twice the eventually consistent
        # units) and the Lambda time of each publish
        "publisher": publishes * 2 * race["leaderboard_read_rcu"] / 1e6 * prices["dynamodb_read_request_unit_per_million"]
        + publishes * STREAM_MEMORY_MB / 1024 * PUBLISH_MS / 1000 * prices["lambda_arm64_gb_second"],
    }
    polls = viewers * seconds
    origin = seconds  # Origin Shield: one origin request a second per cached answer
    origin_dollars = origin / 1e6 * (prices["cloudfront_origin_shield_request_per_million"]
                                     + prices["http_api_request_per_million"] + prices["lambda_request_per_million"])

    def polling(board_bytes: float) -> dict:
        return {"cloudfront_requests": polls / 1e6 * prices["cloudfront_https_request_per_million"],
                "cloudfront_transfer": polls * board_bytes / 1e9 * prices["cloudfront_transfer_out_per_gb"],
                "origin": origin_dollars}

    polling_dollars = polling(board_gzip)
    top100 = race.get("leaderboard_top100_gzip_bytes")
    return {
        "viewers": viewers, "race_seconds": seconds, "publishes": publishes, "deliveries": deliveries,
        "operations": operations, "metered_operations_per_message": metered, "connection_minutes": connected_minutes,
        "push_dollars": push_dollars, "push_total": sum(push_dollars.values()),
        "polls": polls, "polling_dollars": polling_dollars, "polling_total": sum(polling_dollars.values()),
        "polling_top100_total": sum(polling(top100).values()) if top100 else None,
        "board_gzip_bytes": board_gzip, "board_top100_gzip_bytes": top100,
        # a 1,000-racer board's message fills the budget: data out if every message were that size
        "data_transfer_at_budget": deliveries * (MAX_MESSAGE_BYTES + envelope) / 1e9 * PRICES["data_transfer_out_per_gb"],
    }


def with_price(push: dict, race: dict, prices: dict) -> dict:
    cost = price(push, race, prices)
    return {**push, "cost": cost, "prices": PRICES, "dollars_per_race": cost["push_total"],
            "polling_dollars_per_race": cost["polling_total"]}


def stage(race: dict, prices: dict) -> dict:
    """``make bench``'s push stage: measured, then priced beside polling."""
    say(f"push: {RACERS} bikes and {VIEWERS} subscribed viewers (+{POLLERS} polling) on `make local` for {SECONDS} s")
    measured = measure()
    figures = with_price(measured, race, prices)
    say(f"push: shown after p50 {figures['freshness_p50_s']:.2f} s, p95 {figures['freshness_p95_s']:.2f} s "
        f"(polling every second: p95 {figures['polling_p95_s']:.2f} s); {figures['messages_per_second']:.2f} "
        f"messages/s of {figures['bytes_per_message']:,.0f} bytes; 1,000 viewers: ${figures['dollars_per_race']:.3f} "
        f"a race pushed, ${figures['polling_dollars_per_race']:.3f} polled; load {figures['load_average']['during_mean']:.1f}")
    return figures


def markdown(f: dict) -> list[str]:
    """docs/performance.md's section on push (from the figures under ``push``)."""
    p = f["push"]
    cost, load = p["cost"], p["load_average"]
    dollars, polling = cost["push_dollars"], cost["polling_dollars"]
    top100 = (f"; ${cost['polling_top100_total']:.3f} were the frontend to read the top 100 rows "
              f"({cost['board_top100_gzip_bytes'] / 1024:.1f} KB)") if cost.get("polling_top100_total") else ""
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
                 f"{p['polling_max_s']:.2f}"]]),
        f"Messages per second per race: **{p['messages_per_second']:.2f}** (one per stream invocation that wrote the "
        f"race's board: the local stream has one shard; in AWS up to one per shard carrying the race). Bytes per "
        f"message: **{p['bytes_per_message']:,.0f}** on average (p95 {p['bytes_per_message_p95']:,.0f}, max "
        f"{p['bytes_per_message_max']:,.0f}; {p['rows_per_message']:.0f} rows): the top 10 rows and the racers whose "
        "standing changed, at most 4 KB (`alleycat.push.MAX_MESSAGE_BYTES`), so a 1,000-racer board's message also stays "
        f"one metered operation. Samples never shown to a viewer by the end: {p['never_shown']:,}.",
        f"**Priced** for {cost['viewers']:,} viewers of a {cost['race_seconds']}-second race at those rates "
        f"({p['prices']['as_of']}: ${p['prices']['event_api_operation_per_million']:.2f} per million Event API "
        f"operations, ${p['prices']['connection_minute_per_million']:.2f} per million connection-minutes, data out "
        f"${p['prices']['data_transfer_out_per_gb']:.2f}/GB; metered in {p['prices']['metered_kb']} KB steps, assumed; "
        "keep-alives and connects counted as operations, an upper bound; viewers connected a minute before the start, "
        f"assumed; {PUBLISH_MS} ms of Lambda per publish, assumed), beside the same viewers polling every second "
        "through CloudFront (section 5's prices):",
        _table(["viewers' side of one race", "quantity", "US$"],
               [["pushed: Event API operations", f"{cost['operations']:,.0f} ({cost['publishes']:,.0f} publishes, "
                 f"{cost['deliveries']:,.0f} deliveries)", f"{dollars['event_api_operations']:.3f}"],
                ["pushed: connection-minutes", f"{cost['connection_minutes']:,.0f}", f"{dollars['connection_minutes']:.4f}"],
                ["pushed: data out", f"{cost['deliveries'] * p['bytes_per_message'] / 1e9:.2f} GB",
                 f"{dollars['data_transfer']:.3f}"],
                ["pushed: first paint and re-read (2 board reads per viewer)", f"{2 * cost['viewers']:,}",
                 f"{dollars['first_reads']:.4f}"],
                ["pushed: the publisher (a consistent board read and Lambda time per publish)", f"{cost['publishes']:,.0f}",
                 f"{dollars['publisher']:.4f}"],
                ["**pushed, total**", "", f"**{cost['push_total']:.3f}**"],
                ["polled: CloudFront requests", f"{cost['polls']:,}", f"{polling['cloudfront_requests']:.3f}"],
                ["polled: CloudFront data out (the board as the frontend asks it, gzip)",
                 f"{cost['polls'] * cost['board_gzip_bytes'] / 1e9:.2f} GB", f"{polling['cloudfront_transfer']:.3f}"],
                ["polled: origin (Origin Shield, HTTP API, Lambda; one a second)", f"{cost['race_seconds']}",
                 f"{polling['origin']:.4f}"],
                ["**polled, total**", "", f"**{cost['polling_total']:.3f}**"]]),
        f"Pushed, the viewers' side of a race costs **${cost['push_total']:.3f}**; polled every second, "
        f"**${cost['polling_total']:.3f}**{top100}. A 1,000-racer board fills each message's "
        f"{MAX_MESSAGE_BYTES:,} bytes: the pushed data out would then cost ${cost['data_transfer_at_budget']:.3f} "
        "instead, still one metered operation a delivery. Besides dollars, pushed viewers no longer reach CloudFront "
        "or the API every second (two board reads each: the first paint and the read on subscribing), and they see "
        "a sample sooner by the figures above.",
    ]


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def main() -> None:
    """Measures and prices push alone; the other stages' figures in docs/performance.json stay."""
    from . import report

    path = ROOT / "docs" / "performance.json"
    figures = json.loads(path.read_text())
    from .pricing import PRICES as BENCH_PRICES

    figures["push"] = stage(figures["race_day"], figures.get("prices") or BENCH_PRICES)
    report.write(figures, stamp=False)
    say("wrote the push figures to docs/performance.md and docs/performance.json")


if __name__ == "__main__":
    main()
