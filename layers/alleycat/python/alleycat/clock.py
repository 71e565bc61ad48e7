"""The time the functions read, and the contract's way of writing it.

In Lambda it is the machine's. The local stack runs functions on a clock of its own (its tests
advance it by hand) and installs it here, in each of its function processes (``use``).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone

UTC_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

now = time.time
sleep = time.sleep


def use(clock) -> None:
    """Reads ``clock.now()`` and waits with ``clock.sleep(seconds)`` from now on (the local stack)."""
    global now, sleep
    now, sleep = clock.now, clock.sleep


def iso(seconds: float) -> str:
    """Epoch seconds as the contract writes a time: ``2026-11-22T10:00:00Z`` (whole seconds, UTC)."""
    return datetime.fromtimestamp(int(seconds), timezone.utc).strftime(UTC_FORMAT)


def iso_ms(seconds: float) -> str:
    """Epoch seconds to the millisecond, ``2026-11-22T10:00:00.123Z``: sorts as the times do (a key's order)."""
    whole = int(seconds // 1)
    return iso(whole)[:-1] + f".{min(999, round((seconds - whole) * 1000)):03d}Z"


def epoch(text: str) -> float:
    """A time the contract wrote (``iso``'s form) as epoch seconds."""
    return datetime.strptime(text, UTC_FORMAT).replace(tzinfo=timezone.utc).timestamp()
