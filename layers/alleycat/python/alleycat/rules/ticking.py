"""When a race's board is pushed: one message a race second, from the race's clock (values; the race's
ticker, ``flows.ticking``, reads the clock, the board and the race, and publishes).

Second ``k`` of a race is ``[startsAt + k, startsAt + k + 1)``. Its message goes at ``tick_at(start, k)``,
``PHASE`` seconds after the second began, when its samples are expected on the board: a bike sends a
second as it ends, the telemetry call takes a few hundredths, and the stream writes the board within
its batching window (``docs/performance.md``, section 6, measured the phase). So no message goes before
the start (``k`` is never negative), and at most one goes a race second.

A ticker that wakes late (a stalled machine, a slow read) sends the latest tick due only while it is
within ``LATE`` of its time, else waits for the next: the ticks missed are skipped, never sent in a
burst, and two messages are never less than ``1 - LATE`` seconds apart.

One Lambda invocation ticks for at most ``RUN_SECONDS`` (Lambda's limit is 900 s): ``HANDOVER_TICKS``
before its last tick it asks for the next invocation, which takes over from the tick after its last.
A race that starts far ahead is ticked by an invocation that a one-time schedule starts in the minute
before the start (``minute_to_schedule``; EventBridge Scheduler's 60-second precision, as the finisher's).
"""

from __future__ import annotations

import math

from alleycat.rules import finishing

PHASE = 1.5  # seconds after a second began: the bench's board writes of the second are done by then
LATE = 0.5  # a tick woken later than this after its time is skipped
RUN_SECONDS = 840  # one invocation's ticking, inside Lambda's 900-second timeout
HANDOVER_TICKS = 5  # the next invocation is asked for this many ticks before this one's last
MARGIN = 10  # the scheduled invocation's (cold) start, before the first tick
SETTLE_WAIT = finishing.FINISH_WITHIN + 60  # after the end: how long a ticker waits for the race to be settled


def tick_at(start: float, second: int) -> float:
    """When race second ``second``'s message goes (epoch seconds), for a race starting at ``start``."""
    return start + second + PHASE


def due(start: float, now: float) -> int:
    """The latest second whose tick has come at ``now`` (negative before the first tick)."""
    return math.floor(now - start - PHASE)


def next_second(start: float, now: float, last: int) -> int:
    """The second a ticker at ``now`` sends next, after ``last`` (-1: none yet): the next one, or the latest
    due if ticks were missed, or the one after that when the latest is over ``LATE`` past its time."""
    second = max(last + 1, due(start, now))
    return second + 1 if now - tick_at(start, second) > LATE else second


def last_tick(start: float, started: float) -> int:
    """The last second an invocation that started at ``started`` ticks (the next invocation takes the one after)."""
    return due(start, started + RUN_SECONDS)


def hand_over_at(last: int) -> int:
    """The second at whose tick the next invocation is asked for."""
    return last - HANDOVER_TICKS


def waited_too_long(duration: int, second: int) -> bool:
    """Whether a ticker at ``second`` of a race ``duration`` seconds long gives up waiting for its settlement."""
    return second >= duration + SETTLE_WAIT


def minute_to_schedule(start: float | None, now: float) -> float | None:
    """The minute (epoch seconds) a ticker invoked at ``now`` schedules itself in, for a race starting at
    ``start``; None when it ticks itself from now on (the minute is under ``finishing.LEAD`` ahead)."""
    if start is None:
        return None
    minute = math.floor((start - finishing.PRECISION - MARGIN) / 60) * 60
    return minute if minute >= now + finishing.LEAD else None
