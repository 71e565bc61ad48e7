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
import queue
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
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
    functions imported (all when none are named; none when ``functions`` is None: a replaced worker imports
    each as it is invoked, as a new Lambda execution environment does) and the DynamoDB client made, so that
    the first requests a local stack serves (a race's first seconds) do not all pay cold starts."""
    from alleycat import clock as function_clock

    name_process(name)
    from alleycat.storage import dynamo

    function_clock.use(clock)
    dynamo.client()
    for function in () if functions is None else functions or sorted(app.parent.name for app in (handlers.ROOT / "functions").glob("*/app.py")):
        handlers.handler(function)


def _ready() -> int:
    return os.getpid()


class WorkerDied(RuntimeError):
    """The worker running an invocation died before it answered (killed, out of memory): Lambda's
    ``Runtime.ExitError``, a function error to whoever invoked it."""


class _Environment:
    """One execution environment: a worker process of its own (a one-process pool), started at its first
    invocation and replaced by a new one, its modules loaded afresh, once it has died."""

    def __init__(self, initargs: tuple):
        self._initargs = initargs
        self.pool = self._new()
        self.running = False  # an invocation was handed to its worker and has not answered
        self.stopped = False

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_warm, initargs=self._initargs)

    def processes(self) -> list:
        return list((self.pool._processes or {}).values())

    def run(self, function: Callable[..., T], *args: Any) -> T:
        if any(not process.is_alive() for process in self.processes()):
            self.replace()  # died while idle: nothing of it was in flight
        try:
            future = self.pool.submit(function, *args)
        except BrokenProcessPool:
            self.replace()
            future = self.pool.submit(function, *args)
        self.running = True
        try:
            return future.result()
        except BrokenProcessPool as error:
            self.replace()
            raise WorkerDied(f"{self._initargs[2]} worker exited while running {getattr(function, '__name__', function)}"
                             ) from error
        finally:
            self.running = False

    def replace(self) -> None:
        if self.stopped:  # its worker ended by stop(): no new one
            return
        clock, _, name = self._initargs
        self._initargs = (clock, None, name)  # its functions imported as they are invoked
        dead, self.pool = self.pool, self._new()
        dead.shutdown(wait=False, cancel_futures=True)

    def stop(self, wait: bool) -> None:
        self.stopped = True
        if not wait:
            for process in self.processes():
                process.terminate()
        self.pool.shutdown(wait=wait, cancel_futures=True)


class Runtime:
    """``invoke(function, event)`` from any thread; at most ``workers`` invocations run at once, on
    ``clock`` (``local.clock``: the wall clock, or one a test moves), each in an execution environment of
    its own (a worker process). ``prestart`` starts every worker now; otherwise a worker starts when an
    invocation finds none free. A worker that dies is replaced, as Lambda replaces a crashed environment:
    the invocation it held raises ``WorkerDied``, the next ones run in a new process. ``functions``: the
    ones its workers run (imported as they start), or every function (``()``), or none until invoked (None).
    ``name``: its workers' process name."""

    def __init__(self, workers: int = WORKERS, clock=None, prestart: bool = True,
                 functions: tuple[str, ...] | None = (), name: str = "lambda"):
        # spawn, not fork: the parent already runs threads (server, stream poller)
        initargs = (clock or WallClock(), functions, name)
        self._environments = [_Environment(initargs) for _ in range(workers)]
        self._idle: queue.LifoQueue[_Environment] = queue.LifoQueue()  # the warmest first
        for environment in self._environments:
            self._idle.put(environment)
        for ready in [environment.pool.submit(_ready) for environment in self._environments if prestart]:
            ready.result()  # started and warm

    def _run(self, function: Callable[..., T], *args: Any) -> T:
        environment = self._idle.get()
        try:
            return environment.run(function, *args)
        finally:
            self._idle.put(environment)

    def invoke(self, function: str, event: dict) -> dict:
        return self._run(handlers.invoke, function, event)

    def start(self, function: str, event: dict) -> dict:
        """``function`` invoked on a thread of a worker, returning at once (an asynchronous invocation that
        mostly sleeps: a race's ticker)."""
        self._run(handlers.start, function, event)
        return {}

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker (a module-level function, its arguments picklable): the layer's
        code on the stack's clock, one call per worker at a time, as the handlers run (the MQTT broker's ingest)."""
        return self._run(function, *args)

    def pids(self) -> list[int]:
        """The worker processes running now."""
        return [process.pid for environment in self._environments for process in environment.processes()
                if process.is_alive()]

    def running_pids(self) -> list[int]:
        """The workers holding an invocation now (handed to them, not yet answered)."""
        return [process.pid for environment in self._environments if environment.running
                for process in environment.processes()]

    def rss_bytes(self) -> int:
        """Resident memory of the worker processes."""
        return sum(rss_bytes(pid) for pid in self.pids())

    def stop(self, wait: bool = True) -> None:
        """Waits for the invocations running, or (``wait=False``) ends them: a finisher waiting for
        a race's end when the stack stops."""
        for environment in self._environments:
            environment.stop(wait)
