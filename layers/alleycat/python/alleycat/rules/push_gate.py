"""When a race's board is pushed: at most ``messages_per_second()`` messages a race, however many
stream shards write its board, and no change left unsent.

Each stream invocation that wrote a race's board shards notes them on the race's gate (one item,
``races.*_push``) and, the first to note since the last message, asks for the next one
(``after_write`` gives ``Later``): the board publisher (``functions/publish_board``, invoked
asynchronously) sends the board as it is then, with the racers of every noted shard among its rows
that moved (``take``). A message goes when it is due (``next``: the last one plus the interval),
and ``LINGER_MS`` after the change that asked for it at the soonest: the S shards' invocations of
the same second (their batching windows open with the same second's samples) then ride in one
message instead of waiting a whole interval for the next.

A change is noted before the gate is read, and a message takes the notes in the write that allows
it, so every change is in a message sent or in the next one. A message asked for that never came
(Lambda gave it up) is asked for again by the first writer ``STALE_MS`` after it was due.

The gate reads the wall clock (AppSync bills messages as they go), never ``alleycat.clock``, the
race's clock, which a test may stop.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable

from alleycat import settings
from alleycat.storage import races

MESSAGES_VARIABLE = "PUSH_MESSAGES_PER_SECOND"
DEFAULT_MESSAGES_PER_SECOND = 1.0  # stacks/settings.py sets the deployed rate (docs/performance.md, "Push")
LINGER_MS = 200
STALE_MS = 5000
PUBLISHER_VARIABLE = "BOARD_PUBLISHER_ARN"  # the stream processor's: the board publisher to invoke


@dataclass(frozen=True)
class Later:
    """Ask the board publisher for a message at ``at`` (epoch milliseconds)."""

    at: int


def messages_per_second() -> float:
    return settings.load().push_messages_per_second or DEFAULT_MESSAGES_PER_SECOND


def interval_ms() -> int:
    """The least time between two messages of a race."""
    return round(1000 / messages_per_second())


def now_ms() -> int:
    return round(time.time() * 1000)


def after_write(race_id: str, shards: Iterable[int], now: int | None = None) -> Later | None:
    """What an invocation that wrote these board shards of the race does about its viewers: ask for
    the next message (``Later``), or nothing when it is asked for already."""
    now = now_ms() if now is None else now
    gate = races.note_push(race_id, set(shards), now)
    if gate.armed is None or (gate.armed < now - interval_ms() - LINGER_MS - STALE_MS
                              and races.rearm_push(race_id, gate.armed, now)):
        return Later(max(gate.next, now + LINGER_MS))
    return None


def take(race_id: str, now: int | None = None) -> frozenset[int] | None:
    """The board publisher's turn: the shards noted since the last message, or None when a message
    already took them (or one sent since is too recent)."""
    gate = races.take_push(race_id, now_ms() if now is None else now, interval_ms())
    return None if gate is None else frozenset(gate.pending)


def racers_on(boards: Iterable, shards: Iterable[int]) -> set[str]:
    """The racers standing on these shards of the board (``RaceBoard`` items)."""
    wanted = set(shards)
    return {racer_id for board in boards if board.shard in wanted for racer_id in board.standings}


def sleep_until(at: int) -> None:
    wait = at / 1000 - time.time()
    if wait > 0:
        time.sleep(wait)


def invoke_publisher() -> Callable[[str, int], None] | None:
    """How the stream processor asks for a race's next message: the board publisher invoked
    asynchronously with ``{"raceId", "at"}``; None where the stack sets no board publisher."""
    function = settings.load().board_publisher_arn
    if not function:
        return None
    from alleycat.aws import clients as aws

    return lambda race_id, at: aws.invoke_later(function, {"raceId": race_id, "at": at})
