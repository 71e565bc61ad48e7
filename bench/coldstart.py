"""Cold start of every function: a fresh interpreter imports the handler and serves its events/ request.

Measured against a bare boto3 client in a fresh interpreter that also makes a first request
(``boto3_request``): a function's first request pays botocore's first-call costs (the
operation's model, endpoint rules, signing, parsing), so a baseline without one would
compare unlike things. The client alone (``boto3``) is reported too.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from alleycat import entities as e
from alleycat import keys, store

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


def _child(function: str, path: str | None) -> dict:
    command = [sys.executable, "-m", "bench.cold_child", function] + ([path] if path else [])
    done = subprocess.run(command, cwd=env.ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    if done.returncode != 0:
        raise RuntimeError(f"cold start of {function} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_request(table: str) -> dict:
    """The bare client's first request: the kind most functions make first, a Query of one race's partition."""
    race = {"raceId": RACE_ID}
    return {"operation": "query", "request": {
        "TableName": table, "KeyConditionExpression": "PK = :pk AND begins_with(SK, :prefix)", "Limit": 2,
        "ExpressionAttributeValues": {":pk": {"S": keys.RACE.pk.build(race)}, ":prefix": {"S": keys.RACE.sk.prefix()}}}}


def _inputs(folder: str, stream_event: dict, table: str) -> dict[str, str | None]:
    """Each child's input file: the function's events/ request, the baseline's DynamoDB request."""
    paths: dict[str, str | None] = {"boto3": None}
    for name in ["boto3_request"] + env.functions():
        paths[name] = os.path.join(folder, f"{name}.json")
        if name == "boto3_request":
            payload = baseline_request(table)
        elif name == "stream_processor":
            payload = stream_event
        else:
            payload = json.loads((env.EVENTS / f"{name}.json").read_text())
        with open(paths[name], "w") as out:
            json.dump(payload, out)
    return paths


def measure(dynamo: env.Dynamo, runs: int) -> dict:
    """Median cold start of the baselines and every function; ``vs_boto3`` is CPU time against the client plus
    its first request (``vs_boto3_wall`` the same in wall time, DynamoDB Local's response time included).

    Runs go in rounds, the baseline first in each: a machine getting busier or quieter
    shifts the baseline and the functions alike. ``finish_race`` closes the race the other
    events name, so its rounds come last.
    """
    stream_event = seed_event_fixtures(dynamo, "bench-events")
    samples: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as folder:
        paths = _inputs(folder, stream_event, "bench-events")
        others = [f for f in env.functions() if f != "finish_race"]
        for group in (["boto3_request", "boto3"] + others, ["boto3_request", "finish_race"]):
            for _ in range(runs):
                for name in group:
                    samples.setdefault(name, []).append(_child(name, paths[name]))
    results = {name: _summary(taken) for name, taken in samples.items()}
    results = {name: results[name] for name in ["boto3", "boto3_request"] + [f for f in results if not f.startswith("boto3")]}
    baseline = results["boto3_request"]
    for name, figures in results.items():
        figures["vs_boto3"] = figures["total_cpu_ms"] / baseline["total_cpu_ms"]
        figures["vs_boto3_wall"] = figures["total_ms"] / baseline["total_ms"]
        say(f"cold start {name:24s} median CPU {figures['total_cpu_ms']:6.1f} ms (import {figures['import_cpu_ms']:.1f} "
            f"+ first request {figures['first_request_cpu_ms']:.1f}) = {figures['vs_boto3']:.2f}× the client and its "
            f"first request; wall {figures['total_ms']:.1f} ms = {figures['vs_boto3_wall']:.2f}×")
    return results


def _summary(samples: list[dict]) -> dict:
    total = [s["import_ms"] + s["first_ms"] for s in samples]
    median = {name: statistics.median(s[name] for s in samples) for name in ("import_ms", "first_ms", "import_cpu_ms", "first_cpu_ms")}
    return {"import_ms": median["import_ms"], "first_request_ms": median["first_ms"],
            "import_cpu_ms": median["import_cpu_ms"], "first_request_cpu_ms": median["first_cpu_ms"],
            "total_ms": statistics.median(total), "min_ms": min(total), "max_ms": max(total),
            "total_cpu_ms": statistics.median(s["import_cpu_ms"] + s["first_cpu_ms"] for s in samples),
            "status": sorted({str(s["status"]) for s in samples}), "runs": len(samples)}


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
