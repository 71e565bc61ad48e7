"""Cold start of every function: a fresh interpreter imports the handler and serves its events/ request."""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from alleycat import entities as e
from alleycat import store

from . import env
from .progress import say

RACE_ID = "01JD5Z6Q8X0000000000000000"  # the race the events/ files name
CLASS_ID, RACER_ID = "hill-climb", "racer-1"


def seed_event_fixtures(dynamo: env.Dynamo, table: str) -> dict:
    """The class, racer and race the events/ files name, so every first request finds its data; returns a stream event."""
    dynamo.create(table)
    dynamo.use(table)
    store.put_class(e.Class(CLASS_ID, "Hill climb"))
    store.put_racer(e.Racer(RACER_ID, "Racer One"))
    race = store.create_race(e.Race(RACE_ID, CLASS_ID, "Hill climb", "2026-11-22T10:00:00Z", 300))
    store.join_race(race, e.Racer(RACER_ID, "Racer One"))
    env.invoke("post_telemetry", env.event("post_telemetry"))
    return {"Records": _stream_records(dynamo, table)}


def _stream_records(dynamo: env.Dynamo, table: str) -> list[dict]:
    from local.streams import StreamTail

    return StreamTail.of_table(dynamo.server, table).read()[:1000]


def _child(function: str, event_path: str | None) -> dict:
    command = [sys.executable, "-m", "bench.cold_child", function] + ([event_path] if event_path else [])
    done = subprocess.run(command, cwd=env.ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"cold start of {function} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(dynamo: env.Dynamo, runs: int) -> dict:
    stream_event = seed_event_fixtures(dynamo, "bench-events")
    order = [f for f in env.functions() if f != "finish_race"] + ["finish_race"]  # finishing closes the race
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for function in ["boto3"] + order:
            path = None
            if function != "boto3":
                path = os.path.join(folder, f"{function}.json")
                payload = stream_event if function == "stream_processor" else json.loads((env.EVENTS / f"{function}.json").read_text())
                with open(path, "w") as out:
                    json.dump(payload, out)
            samples = [_child(function, path) for _ in range(runs)]
            total = [s["import_ms"] + s["first_ms"] for s in samples]
            results[function] = {
                "import_ms": statistics.median(s["import_ms"] for s in samples),
                "first_request_ms": statistics.median(s["first_ms"] for s in samples),
                "total_ms": statistics.median(total), "min_ms": min(total), "max_ms": max(total),
                "status": sorted({str(s["status"]) for s in samples}), "runs": runs,
            }
            say(f"cold start {function:24s} median {results[function]['total_ms']:7.1f} ms "
                f"(import {results[function]['import_ms']:.1f} + first request {results[function]['first_request_ms']:.1f})")
    baseline = results["boto3"]["total_ms"]
    for function, figures in results.items():
        figures["vs_boto3"] = figures["total_ms"] / baseline
    return results


def import_time(function: str, top: int = 15) -> list[dict]:
    """The most expensive imports (cumulative) of one handler, from ``python -X importtime``."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "bench.cold_child", function], cwd=env.ROOT,
                          capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    rows = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)", line)
        if match:
            rows.append({"module": match.group(4), "self_ms": int(match.group(1)) / 1000,
                         "cumulative_ms": int(match.group(2)) / 1000, "depth": len(match.group(3)) // 2})
    first_party = [r for r in rows if r["module"].startswith("alleycat") or r["module"] in ("boto3", "botocore")]
    chosen = sorted(rows, key=lambda r: -r["cumulative_ms"])[:top]
    extra = [r for r in sorted(first_party, key=lambda r: -r["cumulative_ms"]) if r not in chosen][:5]
    return chosen + extra
