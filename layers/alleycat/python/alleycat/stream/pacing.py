"""Best writes of one class, paced over every invocation settling races of the class at once
(``rules.pacing``: the slots; the class's BestPace item: ``storage.classes``)."""

from __future__ import annotations

import threading
import time

from alleycat.rules import pacing
from alleycat.storage import classes


class ClassPacer:
    """Spaces one class's Best writes so that no more than ``rate`` start in any second (thread-safe).

    Slots are reserved ``pacing.BLOCK`` at a time on the class's BestPace item (one read and one
    conditional write per block); a reservation that loses a race to another is redone.
    """

    def __init__(self, class_id: str, total: int, rate: float = pacing.BEST_WRITES_PER_SECOND,
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
        delay = pacing.delay(start, self._clock())
        if delay > 0:
            self._sleep(delay)

    def _reserve(self) -> None:
        count = pacing.block_size(self._left)
        while True:
            pace = classes.get_pace(self._class_id)
            start = pacing.first_slot(self._clock(), pace.nextFree)
            if classes.reserve_pace(pace, pacing.reserved_until(start, count, self._rate)):
                break
        self._left -= count
        self._slots = pacing.slots(start, count, self._rate)
