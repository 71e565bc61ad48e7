"""How fast Best items of one class are written: slots at most ``BEST_WRITES_PER_SECOND`` a second, over
every invocation settling races of the class at once (times and slots as values; ``stream.pacing``
reserves them on the class's BestPace item and waits for them)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

# Best items of one class share one inverted-index partition (BEST#classId): keep their
# writes, over all invocations, well under its 1,000 WCU/s.
BEST_WRITES_PER_SECOND = 400
BLOCK = 50  # slots reserved at a time: one read and one conditional write per block
MILLISECOND = Decimal("0.001")


@dataclass(frozen=True)
class Reservation:
    """``slots`` write starts (epoch seconds), one every 1/rate seconds from the first; the class's next
    free slot is ``until`` once it is made."""

    slots: tuple[float, ...]
    until: Decimal


def block_size(left: int) -> int:
    """Slots to reserve next when ``left`` writes are still to start (at least one)."""
    return max(1, min(BLOCK, left))


def reservation(now: float, next_free: Decimal, count: int, rate: float) -> Reservation:
    """``count`` slots at ``rate`` a second from ``now`` (to the millisecond), or from the class's next free
    slot if it is later."""
    start = max(Decimal(str(round(now, 3))), Decimal(next_free))
    until = start + Decimal(count) / Decimal(rate)
    return Reservation(tuple(float(start) + n / rate for n in range(count)), until.quantize(MILLISECOND))


def delay(slot: float, now: float) -> float:
    """How long a write whose slot is ``slot`` waits at ``now`` (0: it starts at once)."""
    return max(0.0, slot - now)
