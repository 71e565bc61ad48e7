"""A clock the test controls for the waits between DynamoDB's answers and the next attempt.

botocore's retries (throttling, 5xx) and the layer's backoff (a transaction conflict, a batch's
unprocessed items) sleep on it: a sleep is recorded and moves the clock on at once, and the layer's
give-up deadline reads the same clock. What the test asserts about attempts and answers is
unchanged; only the wall-clock wait is gone.
"""

from __future__ import annotations

import time


class TestClock:
    __test__ = False  # not a test class

    def __init__(self):
        self.slept: list[float] = []
        self._ahead = 0.0

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self._ahead += seconds

    def monotonic(self) -> float:
        return time.monotonic() + self._ahead

    def __getattr__(self, name: str):  # the rest of the time module, as it is
        return getattr(time, name)


def install(monkeypatch) -> TestClock:
    """The clock, in place of ``time`` where botocore's retries and the layer's backoff sleep."""
    import botocore.endpoint

    from alleycat.storage import dynamo

    clock = TestClock()
    for module in (botocore.endpoint, dynamo):
        monkeypatch.setattr(module, "time", clock)
    return clock
