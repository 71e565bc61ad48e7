"""When a race finishes by itself, from its end and the time now (values; the finisher, ``flows.ending``,
reads the clock and acts).

The contract wants a race finished at most ``FINISH_WITHIN`` seconds after ``startsAt +
durationSeconds``; the finisher finishes it ``GRACE`` seconds after, so that the samples of its
last seconds still on their way are taken. EventBridge Scheduler invokes a one-time schedule
somewhere in the minute it names (60-second precision) and refuses a time already past.

Far from the race's end the finisher schedules itself (``minute_to_schedule``) in the minute holding
``end - BEFORE_END``: that invocation lands ``MARGIN`` seconds inside the promise at the latest.
Near the end it waits for ``end + GRACE`` (``wait_to_finish``) and finishes the race.

A race stored before creation refused a ``startsAt`` outside ``clock.RACE_YEARS`` (``1-01-01T00:00:00Z``,
``9999-12-31T23:59:59Z``) has no end a schedule can name: it is finished at once.
"""

from __future__ import annotations

import math

from alleycat import clock

FINISH_WITHIN = 30  # the contract's promise, in seconds after the race's end
GRACE = 10  # a sample sent in the last second and still on its way is taken
PRECISION = 60  # EventBridge Scheduler invokes a one-time schedule within its minute
MARGIN = 10  # the finisher's (cold) start and the finishing transaction, inside the promise
BEFORE_END = PRECISION - (FINISH_WITHIN - MARGIN)  # 40: the minute named holds end - BEFORE_END
LEAD = 60  # a schedule's minute must be this far ahead when it is made, or the finisher waits now
LONGEST_WAIT = GRACE + BEFORE_END + PRECISION + LEAD  # 170 s: invoked at creation, its minute under LEAD ahead


def ends_at(race) -> float | None:
    """The race's end (epoch seconds); None when its ``startsAt`` is no time of ``clock.RACE_YEARS``."""
    start = clock.race_start(race.startsAt)
    return None if start is None else start + race.durationSeconds


def schedule_minute(end: float) -> float:
    """The minute to schedule the finisher in: its invocation lands before ``end + FINISH_WITHIN - MARGIN``."""
    return math.floor((end - BEFORE_END) / 60) * 60


def minute_to_schedule(end: float | None, now: float) -> float | None:
    """The minute a finisher invoked at ``now`` schedules itself in (epoch seconds, a whole minute), for a race
    open until ``end``; None when it finishes the race itself (``wait_to_finish``): the minute is under
    ``LEAD`` ahead, or the race has no end a schedule can name (``end`` None)."""
    if end is None:
        return None
    minute = schedule_minute(end)
    return minute if minute >= now + LEAD else None


def wait_to_finish(end: float | None, now: float) -> float:
    """Seconds a finisher at ``now`` waits before finishing a race open until ``end`` (0: at once)."""
    return 0.0 if end is None else max(0.0, end + GRACE - now)
