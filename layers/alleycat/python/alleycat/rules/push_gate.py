"""When a race's board is pushed: at most ``settings.push_messages_per_second`` messages a race, however many
stream shards write its board, and no change left unsent (the gate's state and the time as values;
``flows.pushing`` reads and writes the gate, ``storage.push_gates``).

Each stream invocation that wrote a race's board shards notes them on the race's gate (one item),
and, the first to note since the last message (the gate it noted on was not ``armed``), asks for
the next one (``after_note`` gives ``Later``): the board publisher (``functions/publish_board``,
invoked asynchronously) sends the board as it is then, with the racers of every noted shard among
its rows that moved. A message goes when it is due (``next``: the last one plus the interval,
``next_after``), and ``LINGER_MS`` after the change that asked for it at the soonest: the S shards'
invocations of the same second (their batching windows open with the same second's samples) then
ride in one message instead of waiting a whole interval for the next.

A change is noted before the gate is read, and a message takes the notes in the write that allows
it, so every change is in a message sent or in the next one. A message asked for that never came
(Lambda gave it up) is asked for again (``Later.replaces``) by the first writer ``STALE_MS`` after it was due.

The gate's times are the wall clock's (AppSync bills messages as they go), never ``alleycat.clock``,
the race's clock, which a test may stop.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

LINGER_MS = 200
STALE_MS = 5000


@dataclass(frozen=True)
class Later:
    """Ask the board publisher for a message at ``at`` (epoch milliseconds); with ``replaces``, in place of
    the one asked for at ``replaces`` that never came, if the gate is still armed at it (else another
    writer asked again first)."""

    at: int
    replaces: int | None = None


def interval_ms(per_second: float) -> int:
    """The least time between two messages of a race, at ``per_second`` messages a second at most."""
    return round(1000 / per_second)


def after_note(armed: int | None, next_at: int, now: int, interval: int) -> Later | None:
    """What a writer that noted its shards at ``now`` on the gate as it was (``armed``: when the next message
    was asked for, None when none is coming; ``next_at``: the earliest next message) does about its viewers."""
    at = max(next_at, now + LINGER_MS)
    if armed is None:
        return Later(at)
    if armed < now - interval - LINGER_MS - STALE_MS:
        return Later(at, replaces=armed)
    return None


def next_after(now: int, interval: int) -> int:
    """The earliest message after one sent at ``now``."""
    return now + interval


def racers_on(boards: Iterable, shards: Iterable[int]) -> set[str]:
    """The racers standing on these shards of the board (``RaceBoard`` items)."""
    wanted = set(shards)
    return {racer_id for board in boards if board.shard in wanted for racer_id in board.standings}
