"""Best writes of one class paced (``alleycat.rules.pacing``, ``alleycat.stream.pacing``), with no table and
no waiting: the BestPace item in memory, the clock moved on by sleeping.

Expected values from the design (README's data model, ``BEST#classId``: one partition for a class's
Best items, 1,000 WCU/s at most): 400 writes a second at most over every invocation, slots reserved
50 at a time, times to the millisecond.
"""

from decimal import Decimal

import pytest

from alleycat.rules import pacing
from alleycat.storage import entities as e
from alleycat.stream import pacing as stream_pacing

NOW = 1_800_000_000.0
RATE = 400


def test_slots_are_reserved_fifty_at_a_time_and_at_least_one():
    assert [pacing.block_size(left) for left in (0, 1, 49, 50, 51, 300)] == [1, 1, 49, 50, 50, 50]


def reservation(now: float, next_free: Decimal, count: int, rate: float) -> tuple[list[float], Decimal]:
    """The slots a reservation of ``count`` at ``now`` takes, and the class's next free slot after it."""
    start = pacing.first_slot(now, next_free)
    return pacing.slots(start, count, rate), pacing.reserved_until(start, count, rate)


def test_a_reservation_starts_now_when_the_class_has_no_slot_taken_ahead():
    slots, until = reservation(NOW, Decimal(0), 50, RATE)
    assert slots == pytest.approx([NOW + n / 400 for n in range(50)], abs=1e-6)
    assert until == Decimal("1800000000.125")  # 50 slots of 2.5 ms


def test_a_reservation_starts_at_the_classes_next_free_slot_when_it_is_ahead():
    slots, until = reservation(NOW, Decimal("1800000000.5"), 4, RATE)
    assert slots == pytest.approx([NOW + 0.5, NOW + 0.5025, NOW + 0.505, NOW + 0.5075], abs=1e-6)
    assert until == Decimal("1800000000.510")
    # a next free slot already past counts for nothing
    assert reservation(NOW, Decimal("1799999999"), 1, RATE)[0] == pytest.approx([NOW], abs=1e-6)


def test_times_are_kept_to_the_millisecond():
    assert pacing.first_slot(NOW + 0.0004, Decimal(0)) == Decimal("1800000000.0")
    assert pacing.first_slot(NOW + 0.0006, Decimal(0)) == Decimal("1800000000.001")
    assert reservation(NOW, Decimal(0), 1, 3)[1] == Decimal("1800000000.333")
    assert reservation(NOW, Decimal(0), 2, 3)[1] == Decimal("1800000000.667")


def test_a_write_waits_until_its_slot_and_not_at_all_once_it_has_come():
    assert pacing.delay(NOW + 0.25, NOW) == pytest.approx(0.25)
    assert pacing.delay(NOW, NOW) == 0
    assert pacing.delay(NOW, NOW + 1) == 0


class Paces:
    """The classes' BestPace items in memory, with the conditional write storage.classes makes."""

    def __init__(self):
        self.next_free: dict[str, Decimal] = {}
        self.writes = 0

    def get_pace(self, class_id):
        return e.BestPace(class_id, self.next_free.get(class_id, Decimal(0)))

    def reserve_pace(self, pace, until):
        self.writes += 1
        if self.next_free.get(pace.classId, Decimal(0)) != pace.nextFree:
            return False
        self.next_free[pace.classId] = until
        return True


class Clock:
    def __init__(self):
        self.now = NOW

    def sleep(self, seconds):
        assert seconds > 0
        self.now += seconds


def test_two_invocations_settling_one_class_together_keep_to_its_rate_and_are_not_slowed_below_it(monkeypatch):
    # Given two invocations, each with 300 Best writes of the same class, interleaved
    paces, clock = Paces(), Clock()
    monkeypatch.setattr(stream_pacing, "classes", paces)
    pacers = [stream_pacing.ClassPacer("hill", 300, clock=lambda: clock.now, sleep=clock.sleep) for _ in range(2)]
    starts = []
    for _ in range(300):
        for pacer in pacers:
            pacer.wait()
            starts.append(clock.now)
    # Then no second holds more than 400 write starts
    assert len(starts) == 600
    assert max(sum(1 for t in starts if s <= t < s + 1 - 1e-9) for s in starts) <= 400
    # and all 600 started within 600 / 400 s, give or take a block's reservation
    assert max(starts) - min(starts) < 1.5 + 0.2
    # with one read and one write a block of 50 (12 blocks), and a few redone when the other took the slot first
    assert 12 <= paces.writes < 24


def test_another_class_is_paced_on_its_own(monkeypatch):
    paces, clock = Paces(), Clock()
    monkeypatch.setattr(stream_pacing, "classes", paces)
    hill = stream_pacing.ClassPacer("hill", 50, clock=lambda: clock.now, sleep=clock.sleep)
    flat = stream_pacing.ClassPacer("flat", 1, clock=lambda: clock.now, sleep=clock.sleep)
    for _ in range(50):
        hill.wait()
    flat.wait()
    assert clock.now == pytest.approx(NOW + 49 / 400)  # flat's first write waited for no hill slot
