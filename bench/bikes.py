"""Requests as they reach Lambda: every invocation in a worker process of its own, measured.

The race-day replay of a 1,000-racer race runs its handlers here: each bike's own one-sample
``POST /races/{raceId}/telemetry`` (signed in as its racer, with an ``Idempotency-Key`` as the
simulator's bikes send), a second's 1,000 posts at once over ``WORKERS`` processes, as bikes
post; the joins the same way; each stream batch through the real ``stream_processor``.

A worker is an execution environment: one event at a time (Powertools keeps the current event
process-wide), the deployed function's settings (metrics on; Lambda's advanced logging controls
as ``stacks/functions.py`` sets them: JSON, application level ``INFO``; Powertools' log sampling
and buffer), and for each invocation it measures:

- wall time and CPU time (the process's, every thread's: the stream processor writes in
  parallel; DynamoDB Local runs in another process, so its work is not in it);
- every DynamoDB request (``bench.ledger``: operation, units, start and stop), and the
  *waves*: requests that overlap in time are one wave, so a wave is one round trip's wait;
- what the handler wrote to stdout and stderr, line by line, as Lambda's application
  log-level filter passes it to CloudWatch Logs (a JSON line with a ``level`` below the
  configured one is dropped; a line without a level counts as INFO, as Lambda does).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import sys
import time
import uuid
from concurrent.futures import ProcessPoolExecutor

WORKERS = int(os.environ.get("BENCH_BIKE_WORKERS", "4"))
LEVELS = {"TRACE": 0, "DEBUG": 10, "INFO": 20, "WARN": 30, "WARNING": 30, "ERROR": 40, "FATAL": 50, "CRITICAL": 50}


class Output:
    """A stream that keeps what is written while armed (a handler's output), passes the rest on."""

    def __init__(self, stream):
        self._stream, self._armed, self._text = stream, False, []

    def write(self, text: str) -> int:
        if self._armed:
            self._text.append(text)
            return len(text)
        return self._stream.write(text)

    def flush(self) -> None:
        if not self._armed:
            self._stream.flush()

    def arm(self) -> None:
        self._armed, self._text = True, []

    def disarm(self) -> list[str]:
        self._armed = False
        return [line for line in "".join(self._text).split("\n") if line]

    def __getattr__(self, name):
        return getattr(self._stream, name)


def kind(line: str) -> tuple[str, int]:
    """(what a log line is, its level) as Lambda's log-level filter sees it."""
    try:
        record = json.loads(line)
    except ValueError:
        return "text", LEVELS["INFO"]
    if not isinstance(record, dict):
        return "text", LEVELS["INFO"]
    if "_aws" in record:
        return "metrics (EMF)", LEVELS["INFO"]
    level = str(record.get("level", "INFO")).upper()
    return f"log {level}", LEVELS.get(level, LEVELS["INFO"])


def delivered(lines: list[str], minimum: str) -> list[tuple[str, int]]:
    """(kind, bytes) of each line that reaches CloudWatch Logs at application log level ``minimum``."""
    out = []
    for line in lines:
        what, level = kind(line)
        if level >= LEVELS[minimum]:
            out.append((what, len(line.encode())))
    return out


def emf_metrics(line: str) -> list[str]:
    """The custom metrics an embedded-metric-format line publishes: namespace, name and dimensions
    (each distinct one is a custom metric CloudWatch bills by the month)."""
    if '"_aws"' not in line:
        return []
    record = json.loads(line)
    out = []
    for directive in record["_aws"].get("CloudWatchMetrics", []):
        for dimensions in directive.get("Dimensions", [[]]):
            for metric in directive.get("Metrics", []):
                out.append(f"{directive['Namespace']}/{metric['Name']} [{', '.join(dimensions)}]")
    return out


def interpreter_start_cpu_ms(runs: int = 5) -> dict:
    """CPU time of starting a Python interpreter (``python -c pass``): the runtime's part of a cold
    start, which section 1 leaves out. Median of ``runs``."""
    import resource
    import statistics
    import subprocess

    samples = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        samples.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return {"cpu_ms": statistics.median(samples), "runs": runs}


def waves(calls) -> int:
    """Round trips: requests overlapping in time (parallel writes) are one wave."""
    count, end = 0, float("-inf")
    for call in sorted(calls, key=lambda c: c.start):
        if call.start > end:
            count += 1
        end = max(end, call.stop)
    return count


# --- in the worker -------------------------------------------------------------------------

_OUT: Output | None = None
_ERR: Output | None = None
_LEDGER = None
_LEVEL = "INFO"


def _init(url: str, table: str, settings: dict) -> None:
    global _OUT, _ERR, _LEDGER, _LEVEL
    # Before anything imports Powertools: its Logger keeps the stream it finds at creation.
    _OUT, _ERR = Output(sys.stdout), Output(sys.stderr)
    sys.stdout, sys.stderr = _OUT, _ERR
    from local.server import configure_environment

    configure_environment(url, table)
    os.environ.update(settings)
    _LEVEL = settings.get("AWS_LAMBDA_LOG_LEVEL", "INFO")
    from local.dynamodb_local import EmbeddedDynamoDB  # noqa: F401 - the client's settings
    import boto3

    from alleycat import dynamo
    from local import handlers

    from .ledger import Ledger

    raw = boto3.client("dynamodb", endpoint_url=url)

    def lookup(keys):
        found = {}
        for start in range(0, len(keys), 100):
            pending = {table: {"Keys": keys[start:start + 100], "ConsistentRead": True}}
            while pending:
                response = raw.batch_get_item(RequestItems=pending)
                for item in response["Responses"].get(table, []):
                    found[(item["PK"]["S"], item["SK"]["S"])] = item
                pending = response.get("UnprocessedKeys") or {}
        return [found.get((k["PK"]["S"], k["SK"]["S"])) for k in keys]

    dynamo.client.cache_clear()
    _LEDGER = Ledger(dynamo.client(), lookup).__enter__()
    for function in ("post_telemetry", "stream_processor", "join_race", "get_race_leaderboard"):
        handlers.handler(function)
    # A first request warms botocore (its models, endpoint rules, the connection): a race of no
    # such id answers 404 after one read. Cold starts are measured in section 1, not here.
    from local.events import sample_event

    _OUT.arm()
    _ERR.arm()
    handlers.invoke("post_telemetry", sample_event("post_telemetry", {"raceId": "0" * 26},
                                                   claims={"sub": "warm-up"}))
    _OUT.disarm()
    _ERR.disarm()
    _LEDGER.take()


def _measure(function: str, event: dict, label=None) -> dict:
    from local import handlers

    _LEDGER.take()
    _OUT.arm()
    _ERR.arm()
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        response = handlers.invoke(function, event)
    finally:
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        lines = _OUT.disarm() + _ERR.disarm()
    calls = _LEDGER.take()
    for call in calls:
        call.label = label
    logs = delivered(lines, _LEVEL)
    status = response.get("statusCode") if isinstance(response, dict) else None
    metrics = sorted({metric for line in lines for metric in emf_metrics(line)})
    return {"function": function, "status": status, "wall_ms": wall * 1000, "cpu_ms": cpu * 1000,
            "calls": calls, "waves": waves(calls), "log_lines": logs, "log_bytes": sum(b for _, b in logs),
            "body": response.get("body") if function == "get_race_leaderboard" else None,
            "failures": len(response.get("batchItemFailures", [])) if function == "stream_processor" else 0,
            "response_bytes": len((response.get("body") or "").encode()) if status else 0,
            "metrics": metrics, "example_lines": lines[:4]}


def _post(race_id: str, racer: str, second: int, cadence: float, resistance: int, label) -> dict:
    from local.events import sample_event

    event = sample_event("post_telemetry", {"raceId": race_id},
                         body={"samples": [{"racerId": racer, "second": second, "cadence": cadence,
                                            "resistance": resistance}]}, claims={"sub": racer})
    event["headers"]["idempotency-key"] = uuid.uuid4().hex
    return {**_measure("post_telemetry", event, label), "racer": racer}


def _invoke(function: str, event: dict, label) -> dict:
    return _measure(function, event, label)


def deployed_settings() -> dict:
    """The environment the stack gives a function, as far as what it writes goes: metrics on,
    Lambda's advanced logging controls (which set AWS_LAMBDA_LOG_*), Powertools' log sampling."""
    from stacks.settings import APPLICATION_LOG_LEVEL, LOG_FORMAT, LOG_SAMPLE_RATE

    return {"POWERTOOLS_METRICS_DISABLED": "false", "POWERTOOLS_LOG_LEVEL": "", "LOG_LEVEL": "",
            "AWS_LAMBDA_LOG_FORMAT": LOG_FORMAT, "AWS_LAMBDA_LOG_LEVEL": APPLICATION_LOG_LEVEL,
            "POWERTOOLS_LOGGER_SAMPLE_RATE": str(LOG_SAMPLE_RATE)}


# --- in the bench ---------------------------------------------------------------------------

class Runner:
    """``WORKERS`` execution environments against the engine at ``url``, table ``table``."""

    def __init__(self, url: str, table: str, settings: dict, workers: int = WORKERS):
        self.workers = workers
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_init, initargs=(url, table, settings))
        for ready in [self._pool.submit(os.getpid) for _ in range(workers)]:
            ready.result()

    def posts(self, race_id: str, samples: list[tuple], label) -> list[dict]:
        """One second of bikes: every (racer, second, cadence, resistance) its own request, all at once,
        in no fixed order (bikes' clocks are not in step)."""
        samples = list(samples)
        random.Random(label).shuffle(samples)
        futures = [self._pool.submit(_post, race_id, *sample, label) for sample in samples]
        return [f.result() for f in futures]

    def invoke_all(self, function: str, events: list[dict], label) -> list[dict]:
        futures = [self._pool.submit(_invoke, function, event, label) for event in events]
        return [f.result() for f in futures]

    def invoke(self, function: str, event: dict, label) -> dict:
        return self._pool.submit(_invoke, function, event, label).result()

    def stop(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def figures(results: list[dict]) -> dict:
    """Per-invocation statistics of measured invocations (without their calls)."""
    if not results:
        return {"invocations": 0}
    n = len(results)
    by_kind: dict = {}
    for r in results:
        for what, size in r["log_lines"]:
            row = by_kind.setdefault(what, {"lines": 0, "bytes": 0})
            row["lines"] += 1
            row["bytes"] += size
    statuses: dict = {}
    for r in results:
        statuses[str(r["status"])] = statuses.get(str(r["status"]), 0) + 1
    mean = lambda key: sum(r[key] for r in results) / n  # noqa: E731
    return {
        "invocations": n, "statuses": statuses,
        "wall_ms": {"mean": mean("wall_ms"), "p50": percentile([r["wall_ms"] for r in results], 50),
                    "p90": percentile([r["wall_ms"] for r in results], 90),
                    "p99": percentile([r["wall_ms"] for r in results], 99)},
        "cpu_ms": {"mean": mean("cpu_ms"), "p50": percentile([r["cpu_ms"] for r in results], 50),
                   "p90": percentile([r["cpu_ms"] for r in results], 90),
                   "p99": percentile([r["cpu_ms"] for r in results], 99)},
        "dynamodb_requests": sum(len(r["calls"]) for r in results) / n,
        "waves": mean("waves"),
        "rcu": sum(c.read_units for r in results for c in r["calls"]) / n,
        "wcu": sum(c.write_units + c.index_units for r in results for c in r["calls"]) / n,
        "operations": _operations(results),
        "log_bytes": mean("log_bytes"), "log_events": sum(len(r["log_lines"]) for r in results) / n,
        "log_by_kind": {k: {"lines_per_invocation": v["lines"] / n, "bytes_per_line": v["bytes"] / v["lines"]}
                        for k, v in by_kind.items()},
        "example_lines": next((r["example_lines"] for r in results if r["example_lines"]), []),
    }


def _operations(results: list[dict]) -> dict:
    out: dict = {}
    for r in results:
        for call in r["calls"]:
            out[call.operation] = out.get(call.operation, 0) + 1
    return {op: count / len(results) for op, count in out.items()}
