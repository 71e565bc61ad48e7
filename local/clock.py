"""The local stack's clock: the wall clock, or a clock a test moves by hand.

Anything with ``now()`` (epoch seconds) and ``sleep(seconds)`` is a clock. ``ManualClock`` keeps
its time in shared memory, so function worker processes read the time the test sets: hand it to
a ``ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn"))`` as an ``initargs``
value (shared memory crosses to a process only as it is spawned, not in a submitted task).
"""

from __future__ import annotations

import multiprocessing
import time

POLL_SECONDS = 0.005


class WallClock:
    """Real time, for ``make local``."""

    def now(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class ManualClock:
    """Time that stands still until ``advance``; every process it was spawned with sees each move."""

    def __init__(self, start: float):
        self._time = multiprocessing.get_context("spawn").Value("d", start)

    def now(self) -> float:
        return self._time.value

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock does not go back")
        with self._time.get_lock():
            self._time.value += seconds

    def sleep(self, seconds: float) -> None:
        """Returns once someone has advanced the clock by ``seconds`` (checked every few ms of real time)."""
        until = self.now() + seconds
        while self.now() < until:
            time.sleep(POLL_SECONDS)

