"""Best writes of one class, paced over every invocation settling races of the class at once."""

from __future__ import annotations

import threading
import time
from decimal import Decimal

from alleycat.storage import classes

# Best items of one class share one inverted-index partition (BEST#classId): keep their
# writes, over all invocations, well under its 1,000 WCU/s.
BEST_WRITES_PER_SECOND = 400


class ClassPacer:
    """Spaces one class's Best writes so that no more than ``rate`` start in any second (thread-safe).

    Slots are reserved ``BLOCK`` at a time on the class's BestPace item (one read and one
    conditional write per block); a reservation that loses a race to another is redone.
    """

    BLOCK = 50

    def __init__(self, class_id: str, total: int, rate: float = BEST_WRITES_PER_SECOND,
                 clock=time.time, sleep=time.sleep):
        self._class_id, self._left, self._rate = class_id, total, rate
        self._clock, self._sleep = clock, sleep
        self._slots: list[float] = []
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            if not self._slots:
                self._reserve()
            start = self._slots.pop(0)
        delay = start - self._clock()
        if delay > 0:
            self._sleep(delay)

    def _reserve(self) -> None:
        count = max(1, min(self.BLOCK, self._left))
        while True:
            pace = classes.get_pace(self._class_id)
            start = max(Decimal(str(round(self._clock(), 3))), Decimal(pace.nextFree))
            until = start + Decimal(count) / Decimal(self._rate)
            if classes.reserve_pace(pace, until.quantize(Decimal("0.001"))):
                break
        self._left -= count
        self._slots = [float(start) + n / self._rate for n in range(count)]
