"""The time the functions read, and the contract's way of writing it.

In Lambda it is the machine's. The local stack runs functions on a clock of its own (its tests
advance it by hand) and installs it here, in each of its function processes (``use``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

UTC_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
# The years a race may start in (the contract's). ``iso`` writes every end of such a race, and
# EventBridge Scheduler takes it; a year 1 is stored as ``1-01-01T00:00:00Z`` and ``epoch`` cannot
# read it, and the end of a race starting at ``9999-12-31T23:59:59Z`` is in a year ``iso`` cannot write.
RACE_YEARS = range(2000, 2100)

now = time.time
sleep = time.sleep


def use(clock) -> None:
    """Reads ``clock.now()`` and waits with ``clock.sleep(seconds)`` from now on (the local stack)."""
    global now, sleep
    now, sleep = clock.now, clock.sleep


def iso(seconds: float) -> str:
    """Epoch seconds as the contract writes a time: ``2026-11-22T10:00:00Z`` (whole seconds, UTC)."""
    return datetime.fromtimestamp(int(seconds), UTC).strftime(UTC_FORMAT)


def iso_ms(seconds: float) -> str:
    """Epoch seconds to the millisecond, ``2026-11-22T10:00:00.123Z``: sorts as the times do (a key's order)."""
    whole = int(seconds // 1)
    return iso(whole)[:-1] + f".{min(999, round((seconds - whole) * 1000)):03d}Z"


def epoch(text: str) -> float:
    """A time the contract wrote (``iso``'s form) as epoch seconds; ValueError for any other text."""
    return datetime.strptime(text, UTC_FORMAT).replace(tzinfo=UTC).timestamp()


def race_start(text: str) -> float | None:
    """A stored race's ``startsAt`` as epoch seconds, or None when it is not a time of ``RACE_YEARS``
    in ``iso``'s form (races created before creation refused them: ``1-01-01T00:00:00Z``, ``9999-12-31T23:59:59Z``)."""
    try:
        moment = datetime.strptime(text, UTC_FORMAT)
    except (TypeError, ValueError):
        return None
    return moment.replace(tzinfo=UTC).timestamp() if moment.year in RACE_YEARS else None
