"""Live boards pushed over AppSync Events by each race's ticker, measured on `make local` (its own process; bikes,
viewers, pollers and a probe of the board from the simulator: freshness and where it goes, messages, the machine's
load), priced beside polling."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime

from alleycat.rules import ticking
from alleycat.settings import FAN_IN as FAN_IN_VARIABLE
from local.kinesis import POLLED_VARIABLE
from local.streams import SHARDS_VARIABLE

from .env import ROOT, say
from .pricing import race_cost

QUICK = os.environ.get("BENCH_QUICK") == "1"
RACERS, VIEWERS, POLLERS, SECONDS = (10, 10, 2, 60) if QUICK else (100, 100, 5, 120)
SHARDS = 4  # as a 1,000-racer race's table has in AWS (docs/performance.md, "Push")
PROBE_SECONDS = 0.1  # the probe's reads of the board: when each sample was on it (simulator.audience)
GOAL_P95_S = 1.0  # issue 53: a bike's second on a viewer's screen within 1 s at p95
FAN_IN = os.environ.get("BENCH_FAN_IN", "on") == "on"  # the local stack with ALLEYCAT_FAN_IN=on (docs/fan-in.md)


class LoadSampler:
    """The machine's 1-minute load average every 5 s while the measurement runs."""

    def __enter__(self) -> LoadSampler:
        self.before, self._stop = os.getloadavg()[0], threading.Event()
        self.samples: list[float] = []
        threading.Thread(target=self._sample, daemon=True).start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(5.0):
            self.samples.append(os.getloadavg()[0])

    def __exit__(self, *exc) -> None:
        self._stop.set()
        during, after = self.samples or [os.getloadavg()[0]], os.getloadavg()[0]
        self.figures = {"before": self.before, "during_mean": sum(during) / len(during), "during_max": max(during),
                        "after": after, "cores": os.cpu_count()}


def local_stack(environment: dict | None = None) -> tuple[subprocess.Popen, str, str]:
    """`python -m local` as `make local` runs it, on a free port, with ``environment`` besides ours: once it
    says it is ready, it, its URL and its DynamoDB Local's (``url table``)."""
    process = subprocess.Popen([sys.executable, "-m", "local"], cwd=ROOT, env={**os.environ, **(environment or {}), "PORT": "0"},
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, output, url = [], process.stdout, ""
    assert output is not None  # a pipe
    for line in output:
        lines.append(line)
        if "ready at" in line:
            url = line.split("ready at ", 1)[1].split()[0]
        if "DynamoDB Local: " in line:
            threading.Thread(target=lambda: [None for _ in output], daemon=True).start()  # keep draining
            return process, url, line.split("DynamoDB Local: ", 1)[1].strip().replace(" table ", " ")
    raise RuntimeError("the local stack did not start:\n" + "".join(lines))


def measure(racers: int = RACERS, viewers: int = VIEWERS, pollers: int = POLLERS, seconds: int = SECONDS,
            shards: int = SHARDS) -> dict:
    """One race pushed by its ticker on a local stack reading the stream as ``shards`` shards."""
    from simulator.client import ApiClient
    from simulator.progress import ProgressBar
    from simulator.race import Settings, Simulator

    # the telemetry log read once a second, as Lambda polls its standard iterator in AWS (not at once after a put)
    stack, url, dynamodb = local_stack({SHARDS_VARIABLE: str(shards), POLLED_VARIABLE: "1",
                                        **({FAN_IN_VARIABLE: "on"} if FAN_IN else {})})
    try:
        client, tag = ApiClient(url), uuid.uuid4().hex[:6]
        client.token = client.local_admin_token()
        settings = Settings(racers=racers, races=1, duration=seconds, bikes=True, push_viewers=viewers,
                            pollers=pollers, probe=PROBE_SECONDS,
                            # the probe reads the table by the route's own read (slice boards too), behind no API worker
                            probe_table=dynamodb, class_id=f"push-{tag}", racer_prefix=f"push-{tag}",
                            cognito_ids=True)  # as deployed: a message's bytes depend on them
        with LoadSampler() as load:
            started = time.monotonic()
            totals = Simulator(client, settings, progress=ProgressBar(enabled=False)).run()
            elapsed = time.monotonic() - started
    finally:
        stack.send_signal(signal.SIGTERM)  # wait_for_ctrl_c's stop (SIGINT may be ignored in the background)
        try:
            stack.wait(timeout=60)
        except subprocess.TimeoutExpired:
            stack.kill()
    [audience] = totals.audiences
    sizes = audience["bytes_per_message"]
    return {
        "measured": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"), "load_average": load.figures,
        "machine": f"{os.uname().sysname} {os.uname().machine}, {os.cpu_count()} cores",
        "racers": racers, "viewers": viewers, "pollers": pollers, "race_seconds": seconds, "elapsed_seconds": elapsed,
        "stream_shards": shards, "phase_s": ticking.PHASE, "fan_in": FAN_IN, "probe": "table",
        "late_ticks": totals.late_ticks, "samples_accepted": totals.accepted, "never_shown": audience["push"]["never_shown"],
        **{f"{name}_{q}_s": audience[kind][q] for name, kind in (("freshness", "push"), ("polling", "poll"))
           for q in ("p50", "p95", "p99", "max")},
        "freshness_samples": audience["push"]["n"], "polling_samples": audience["poll"]["n"],
        "messages_per_second": audience["messages_per_second"], "messages": audience["messages"],
        "bytes_per_message": sizes["mean"], "bytes_per_message_p95": sizes["p95"], "bytes_per_message_max": sizes["max"],
        "rows_per_message": audience["rows_per_message"]["mean"], "errors": audience["errors"], "first_error": audience["first_error"], "quick": QUICK,
        "probe_seconds": PROBE_SECONDS, **{f"{part}_{q}_s": audience["split"][part].get(q, 0.0)
                                           for part in ("upstream", "push") for q in ("p50", "p95")},
        "message_phase_p50_s": audience["message_phase"].get("p50", 0.0),
        "message_phase_spread_s": audience["message_phase"].get("p95", 0.0) - audience["message_phase"].get("p5", 0.0),
        "read_to_viewer_p50_s": audience["read_to_viewer"].get("p50", 0.0), "read_to_viewer_p95_s": audience["read_to_viewer"].get("p95", 0.0),
        "modelled_p95_s_by_phase": audience["split"]["phases"],
    }


TABLE_FIELDS = ("racers", "late_ticks", "messages_per_second", "freshness_p50_s", "freshness_p95_s", "polling_p50_s",
                "polling_p95_s", "upstream_p50_s", "upstream_p95_s", "push_p50_s", "push_p95_s", "bytes_per_message",
                "never_shown")


def missed(row: dict) -> list[str]:
    """The goals a run missed: no dearer than polling, about a message a race-second at most, and a bike's second on
    viewers' screens within GOAL_P95_S at the 95th percentile."""
    goals = {"dearer than polling": row["dollars_per_race"] > row["polling_dollars_per_race"],
             "over 1.1 messages a second": row["messages_per_second"] > 1.1,
             f"p95 over {GOAL_P95_S:g} s": row["freshness_p95_s"] > GOAL_P95_S}
    return [goal for goal, failed in goals.items() if failed]


def priced(figures: dict) -> dict:
    """The race's bill pushed beside the bill polled (both over MQTT, as built), and the kinds of line that differ;
    each measured run of the table priced the same way, and the goals it meets."""
    pushed, polled = race_cost(figures, {"push": True}), race_cost(figures, {"push": False})
    kinds: defaultdict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for n, lines in enumerate((polled["lines"], pushed["lines"])):
        for line in lines:  # "CloudFront requests (viewers' polls)" -> "CloudFront requests"
            kinds[line["item"].split(" (")[0]][n] += line["usd"]
    table = []
    for row in figures["push"].get("table", []):
        cost = race_cost({**figures, "push": row}, {"push": True})["total"]
        table.append({**row, "dollars_per_race": cost, "polling_dollars_per_race": polled["total"]})
        table[-1]["missed"] = missed(table[-1])
    return {"dollars_per_race": pushed["total"], "polling_dollars_per_race": polled["total"],
            "differ": [{"item": item, "polled": polled, "pushed": pushed_usd} for item, (polled, pushed_usd) in kinds.items()
                       if abs(polled - pushed_usd) >= 0.0005], "pushed_lines": pushed["lines"], "table": table}


def stage() -> dict:
    """``make bench``'s push stage, measured (``priced`` prices it once the race's bill is known): the stream read
    as SHARDS shards, RACERS bikes and half as many (on 2 cores 100 bikes, their viewers and the stack want more CPU
    than there is: late ticks); the first run's are the figures."""
    runs = {}
    for racers in (RACERS, RACERS // 2):
        say(f"push: {racers} bikes and {VIEWERS} subscribed viewers (+{POLLERS} polling, a probe every {PROBE_SECONDS:g} s) "
            f"on `make local` for {SECONDS} s, the stream as {SHARDS} shards, a message a race second at phase {ticking.PHASE:g} s, "
            f"fan-in {'on' if FAN_IN else 'off'}")
        runs[racers] = run = measure(racers=racers)
        say(f"push: shown after p50 {run['freshness_p50_s']:.2f} s, p95 {run['freshness_p95_s']:.2f} s (on the board: p95 "
            f"{run['upstream_p95_s']:.2f} s; then pushed: p95 {run['push_p95_s']:.2f} s; polling every second: p95 "
            f"{run['polling_p95_s']:.2f} s); {run['messages_per_second']:.2f} messages/s of {run['bytes_per_message']:,.0f} bytes; "
            f"load {run['load_average']['during_mean']:.1f}")
    return {**runs[RACERS], "lighter": runs[RACERS // 2],
            "table": [{field: run[field] for field in TABLE_FIELDS} for run in runs.values()]}
