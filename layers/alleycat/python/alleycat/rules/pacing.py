"""How fast Best items of one class are written: slots at most ``BEST_WRITES_PER_SECOND`` a second, over
every invocation settling races of the class at once (times as values; ``stream.pacing`` reserves the
slots on the class's BestPace item and waits for them)."""

from __future__ import annotations

from decimal import Decimal

# Best items of one class share one inverted-index partition (BEST#classId): keep their
# writes, over all invocations, well under its 1,000 WCU/s.
BEST_WRITES_PER_SECOND = 400
BLOCK = 50  # slots reserved at a time: one read and one conditional write per block
MILLISECOND = Decimal("0.001")


def block_size(left: int) -> int:
    """Slots to reserve next when ``left`` writes are still to start (at least one)."""
    return max(1, min(BLOCK, left))


def first_slot(now: float, next_free: Decimal) -> Decimal:
    """Where a reservation at ``now`` starts (epoch seconds, to the millisecond): now, or the class's next free
    slot if it is later."""
    return max(Decimal(str(round(now, 3))), Decimal(next_free))


def reserved_until(start: Decimal, count: int, rate: float) -> Decimal:
    """The class's next free slot once ``count`` slots at ``rate`` a second from ``start`` are reserved."""
    return (start + Decimal(count) / Decimal(rate)).quantize(MILLISECOND)


def slots(start: Decimal, count: int, rate: float) -> list[float]:
    """The ``count`` write starts (epoch seconds) reserved from ``start``, one every 1/``rate`` seconds."""
    return [float(start) + n / rate for n in range(count)]


def delay(slot: float, now: float) -> float:
    """How long a write whose slot is ``slot`` waits at ``now`` (0: it starts at once)."""
    return max(0.0, slot - now)
