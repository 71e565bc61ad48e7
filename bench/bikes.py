"""Requests as they reach Lambda: each invocation in a worker process, an execution environment (one event at a
time, the deployed settings), measured: wall and CPU time (every thread's; DynamoDB Local's is another process's),
DynamoDB requests (``ledger``) and their waves, what the handler wrote as Lambda's log-level filter passes it."""

from __future__ import annotations

import base64
import io
import json
import multiprocessing
import os
import random
import resource
import statistics
import subprocess
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor

from .ledger import waves

WORKERS = int(os.environ.get("BENCH_BIKE_WORKERS", "4"))
LEVELS = {"TRACE": 0, "DEBUG": 10, "INFO": 20, "WARN": 30, "WARNING": 30, "ERROR": 40, "FATAL": 50, "CRITICAL": 50}


def delivered(lines: list[str], minimum: str) -> list[tuple[str, int]]:
    """(kind, bytes) of each line reaching CloudWatch Logs at level ``minimum``: no level (text, EMF) is INFO."""
    out = []
    for line in lines:
        record = json.loads(line) if line.startswith("{") else None
        level = str(record.get("level", "INFO")).upper() if record and "_aws" not in record else "INFO"
        what = "text" if record is None else "metrics (EMF)" if "_aws" in record else f"log {level}"
        if LEVELS.get(level, LEVELS["INFO"]) >= LEVELS[minimum]:
            out.append((what, len(line.encode())))
    return out


def emf_metrics(line: str) -> list[str]:
    """The custom metrics an embedded-metric-format line publishes (each distinct one billed by the month)."""
    if '"_aws"' not in line:
        return []
    return [f"{directive['Namespace']}/{metric['Name']} [{', '.join(dimensions)}]"
            for directive in json.loads(line)["_aws"].get("CloudWatchMetrics", [])
            for dimensions in directive.get("Dimensions", [[]]) for metric in directive.get("Metrics", [])]


def interpreter_start_cpu_ms(runs: int = 5) -> dict:
    """CPU time of starting a Python interpreter: the runtime's part of a cold start. Median of ``runs``."""
    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return {"cpu_ms": statistics.median(samples), "runs": runs}


# --- in the worker -------------------------------------------------------------------------

_OUT, _LEDGER, _LEVEL = io.StringIO(), None, "INFO"  # what a worker's handlers write


def _init(url: str, table: str, settings: dict) -> None:
    global _LEDGER, _LEVEL
    sys.stdout = sys.stderr = _OUT  # before anything imports Powertools: its Logger keeps the stream it finds
    from alleycat import settings as function_settings
    from alleycat.storage import dynamo
    from local import handlers
    from local.events import sample_event
    from local.server import configure_environment

    from .ledger import Ledger

    configure_environment(url, table)
    os.environ.update(settings)
    function_settings.reset()
    _LEVEL = settings["AWS_LAMBDA_LOG_LEVEL"]
    dynamo.client.cache_clear()
    _LEDGER = Ledger().__enter__()
    for function in ("post_telemetry", "stream_processor", "join_race", "get_race_leaderboard", "ingest_telemetry",
                     "authorize_ingest"):
        handlers.handler(function)
    # A first request warms botocore (models, endpoint rules, the connection): a race of no such id
    # answers 404 after one read. Cold starts are section 1's.
    _measure("post_telemetry", sample_event("post_telemetry", {"raceId": "0" * 26}, claims={"sub": "warm-up"}))


def _measure(function: str, event: dict, label=None) -> dict:
    from local import handlers

    assert _LEDGER is not None  # _init ran in this worker
    _LEDGER.take()
    _OUT.seek(0)
    _OUT.truncate()
    cpu, wall = time.process_time(), time.perf_counter()
    response = handlers.invoke(function, event)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    lines, calls = [line for line in _OUT.getvalue().split("\n") if line], _LEDGER.take()
    for call in calls:
        call.label = label
    logs, status = delivered(lines, _LEVEL), response.get("statusCode")
    return {"function": function, "label": label, "status": status, "wall_ms": wall * 1000, "cpu_ms": cpu * 1000,
            "calls": calls, "waves": waves(calls), "log_lines": logs, "log_bytes": sum(b for _, b in logs),
            "body": response.get("body"), "failures": len(response.get("batchItemFailures", [])),
            "response_bytes": len((response.get("body") or "").encode()),
            "metrics": sorted({metric for line in lines for metric in emf_metrics(line)}), "example_lines": lines[:4],
            "emf_lines": [line for line in lines if '"_aws"' in line]}


# --- in the bench ---------------------------------------------------------------------------

class Runner:
    """``WORKERS`` execution environments against the engine at ``url``, table ``table``."""

    def __init__(self, url: str, table: str, settings: dict, workers: int = WORKERS):
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_init, initargs=(url, table, settings))
        for ready in [self._pool.submit(os.getpid) for _ in range(workers)]:
            ready.result()

    def posts(self, race_id: str, samples: list[tuple], label) -> list[dict]:
        """A second of bikes: each sample its own request as its racer, with an ``Idempotency-Key``, all at once."""
        from local.events import sample_event

        events = [sample_event("post_telemetry", {"raceId": race_id}, claims={"sub": racer}, body={"samples": [
            {"racerId": racer, "second": second, "cadence": cadence, "resistance": resistance}]})
            for racer, second, cadence, resistance in samples]
        for event in events:
            event["headers"]["idempotency-key"] = uuid.uuid4().hex
        random.Random(label).shuffle(events)
        return self.invoke_all("post_telemetry", events, label)

    def publishes(self, race_id: str, samples: list[tuple], label, arrival: float, sequence: int) -> list[dict]:
        """A second of bikes over MQTT: each sample its racer's message, as the topic rule's record on its shard,
        to the log's consumer in the event source mapping's batches (``over_mqtt.batches``), all at once."""
        from alleycat.edge import mqtt

        from .over_mqtt import lane_batches, rounds

        records = [mqtt.rule_record(mqtt.TOPIC.format(raceId=race_id, racerId=racer), json.dumps({"samples": [
            {"second": second, "cadence": cadence, "resistance": resistance}]}).encode(), arrival)[::-1]
            for racer, second, cadence, resistance in samples]
        events: list[dict] = []
        runs: list[dict] = []
        for batches in rounds(lane_batches(records, arrival, sequence)):  # a lane's batches one after another
            events += [{"Records": batch} for batch in batches]
            runs += self.invoke_all("ingest_telemetry", events[len(runs):], label)
        for run, event in zip(runs, events, strict=True):
            run["records"] = len(event["Records"])
            run["record_bytes"] = sum(len(base64.b64decode(r["kinesis"]["data"])) + len(r["kinesis"]["partitionKey"])
                                      for r in event["Records"])
        return runs

    def invoke_all(self, function: str, events: list[dict], label) -> list[dict]:
        return [f.result() for f in [self._pool.submit(_measure, function, event, label) for event in events]]

    def invoke(self, function: str, event: dict, label) -> dict:
        return self._pool.submit(_measure, function, event, label).result()

    def stop(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))] if ordered else 0.0


def figures(results: list[dict]) -> dict:
    """Per-invocation statistics of measured invocations."""
    n, calls = len(results), [c for r in results for c in r["calls"]]
    if not n:
        return {"invocations": 0}
    spread = lambda key: {"mean": sum(r[key] for r in results) / n,
                          **{f"p{q}": percentile([r[key] for r in results], q) for q in (50, 99)}}
    return {
        "invocations": n,
        "wall_ms": spread("wall_ms"), "cpu_ms": spread("cpu_ms"), "dynamodb_requests": len(calls) / n,
        "waves": sum(r["waves"] for r in results) / n, "rcu": sum(c.read_units for c in calls) / n,
        "wcu": sum(c.write_units + c.index_units for c in calls) / n,
        "log_bytes": sum(r["log_bytes"] for r in results) / n, "log_events": sum(len(r["log_lines"]) for r in results) / n,
        "example_lines": next((r["example_lines"] for r in results if r["example_lines"]), []),
    }
