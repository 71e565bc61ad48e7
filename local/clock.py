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
    """Time that stands still until ``advance``; every process it was spawned with sees each move.

    ``sleeping()`` tells a test who waits on it, in any of those processes: a test that asserts nothing
    happened yet first sees the waiter read the time it moved the clock to."""

    SLOTS = 64  # sleeps under way at once that ``sleeping()`` can tell of

    def __init__(self, start: float):
        spawn = multiprocessing.get_context("spawn")
        self._time = spawn.Value("d", start)
        self._sleeps = spawn.Array("d", 2 * self.SLOTS)  # (until, latest time read) per slot; until 0: free

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
        slot = self._take_slot(until)
        try:
            while (now := self.now()) < until:
                if slot is not None:
                    self._sleeps[2 * slot + 1] = now
                time.sleep(POLL_SECONDS)
        finally:
            if slot is not None:
                self._sleeps[2 * slot] = 0.0

    def sleeping(self) -> list[tuple[float, float]]:
        """``(until, latest time read)`` of each sleep under way: one whose latest time read is the
        clock's now has seen it and sleeps on."""
        with self._sleeps.get_lock():
            pairs = self._sleeps[:]
        return [(pairs[n], pairs[n + 1]) for n in range(0, len(pairs), 2) if pairs[n]]

    def _take_slot(self, until: float) -> int | None:
        with self._sleeps.get_lock():
            for slot in range(self.SLOTS):
                if not self._sleeps[2 * slot]:
                    self._sleeps[2 * slot], self._sleeps[2 * slot + 1] = until, 0.0
                    return slot
        return None  # more sleeps than slots: this one sleeps untold
