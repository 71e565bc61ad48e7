"""Lambda's execution model for the local server: each invocation runs alone in a worker process.

A Lambda execution environment serves one event at a time, and the handlers rely on it: each
function's resolver keeps the current event on its module-level ``app``, process-wide.
Requests served by threads of one process would read each other's events (another caller's
identity, another body); worker processes, like execution environments, cannot.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from . import handlers
from .clock import WallClock
from .dynamodb_local import rss_bytes

T = TypeVar("T")

# Enough to overlap DynamoDB round trips on 2 cores; each holds Powertools and boto3 (~60 MB).
WORKERS = int(os.environ.get("ALLEYCAT_LOCAL_WORKERS", "4"))


def name_process(name: str) -> None:
    """The process's name as ``ps``, ``top`` and /proc/<pid>/comm show it (Linux: 15 bytes at most)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(15, name.encode()[:15])  # PR_SET_NAME
    except OSError:
        pass


def _warm(clock, functions, name) -> None:
    """Worker start: named, the stack's clock is the functions' (``alleycat.clock``), the worker's
    functions imported (all, unless named) and the DynamoDB client made, so that the first requests a
    local stack serves (a race's first seconds) do not all pay cold starts."""
    from alleycat import clock as function_clock

    name_process(name)
    from alleycat.storage import dynamo

    function_clock.use(clock)
    dynamo.client()
    for function in functions or sorted(app.parent.name for app in (handlers.ROOT / "functions").glob("*/app.py")):
        handlers.handler(function)


def _ready() -> int:
    return os.getpid()


class Runtime:
    """``invoke(function, event)`` from any thread; at most ``workers`` invocations run at once, on
    ``clock`` (``local.clock``: the wall clock, or one a test moves). ``prestart`` starts every worker
    now; otherwise a worker starts when an invocation finds none free. ``functions``: the ones its
    workers run (imported as they start), or every function. ``name``: its workers' process name."""

    def __init__(self, workers: int = WORKERS, clock=None, prestart: bool = True, functions: tuple[str, ...] = (),
                 name: str = "lambda"):
        # spawn, not fork: the parent already runs threads (server, stream poller)
        self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=_warm, initargs=(clock or WallClock(), functions, name))
        for ready in [self._pool.submit(_ready) for _ in range(workers if prestart else 0)]:  # started and warm
            ready.result()

    def invoke(self, function: str, event: dict) -> dict:
        return self._pool.submit(handlers.invoke, function, event).result()

    def start(self, function: str, event: dict) -> dict:
        """``function`` invoked on a thread of a worker, returning at once (an asynchronous invocation that
        mostly sleeps: a race's ticker)."""
        self._pool.submit(handlers.start, function, event).result()
        return {}

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker (a module-level function, its arguments picklable): the layer's
        code on the stack's clock, one call per worker at a time, as the handlers run (the MQTT broker's ingest)."""
        return self._pool.submit(function, *args).result()

    def rss_bytes(self) -> int:
        """Resident memory of the worker processes."""
        return sum(rss_bytes(pid) for pid in list(self._pool._processes or {}))

    def stop(self, wait: bool = True) -> None:
        """Waits for the invocations running, or (``wait=False``) ends them: a finisher waiting for
        a race's end when the stack stops."""
        if not wait:
            for process in list((self._pool._processes or {}).values()):
                process.terminate()
        self._pool.shutdown(wait=wait, cancel_futures=True)
