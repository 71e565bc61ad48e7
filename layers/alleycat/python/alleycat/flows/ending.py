"""How a race finishes by itself: the finisher runs, at the race's end, the finish an admin's call runs.

The contract wants a race finished at most ``FINISH_WITHIN`` seconds after ``startsAt +
durationSeconds``; the finisher finishes it ``GRACE`` seconds after, so that the samples of its
last seconds still on their way are taken. EventBridge Scheduler invokes a one-time schedule
somewhere in the minute it names (60-second precision) and refuses a time already past.

The stream processor invokes the finisher once a race is created (``start``). Far from the
race's end, the finisher makes a one-time schedule that invokes it again in the minute holding
``end - BEFORE_END``: that invocation lands ``MARGIN`` seconds inside the promise at the latest.
Near the end it waits for ``end + GRACE`` and finishes the race, unless it is finished already.
So the schedule's errors are the finisher's (Lambda's retries, then its alarmed failure queue),
never a stream record's. Schedules delete themselves once they have run.

A race stored before creation refused a ``startsAt`` outside ``clock.RACE_YEARS`` (``1-01-01T00:00:00Z``,
``9999-12-31T23:59:59Z``) has no end a schedule can name: the finisher finishes it at once.
"""

from __future__ import annotations

import json
import math

from alleycat import settings
from alleycat.aws import clients as aws
from alleycat import clock
from alleycat.storage import races
from alleycat.storage import entities as e
from alleycat.observability import seconds

FINISH_WITHIN = 30  # the contract's promise, in seconds after the race's end
GRACE = 10  # a sample sent in the last second and still on its way is taken
PRECISION = 60  # EventBridge Scheduler invokes a one-time schedule within its minute
MARGIN = 10  # the finisher's (cold) start and the finishing transaction, inside the promise
BEFORE_END = PRECISION - (FINISH_WITHIN - MARGIN)  # 40: the minute named holds end - BEFORE_END
LEAD = 60  # a schedule's minute must be this far ahead when it is made, or the finisher waits now
LONGEST_WAIT = GRACE + BEFORE_END + PRECISION + LEAD  # 170 s: invoked at creation, its minute under LEAD ahead

# The stream processor's: the finisher to invoke. The finisher's: where and as whom it schedules itself.
FINISHER_VARIABLE = "FINISHER_ARN"
GROUP_VARIABLE, ROLE_VARIABLE = "FINISH_SCHEDULE_GROUP", "FINISH_SCHEDULE_ROLE_ARN"
DEAD_LETTERS_VARIABLE = "FINISH_DEAD_LETTER_ARN"
RETRIES = 10  # the scheduler's invocations of the finisher that fail (throttled), then the dead letters


def enabled() -> bool:
    """Whether races finish by themselves here (the stack sets the finisher; tests of other things do not)."""
    return settings.load().finishes_races


def ends_at(race: e.Race) -> float | None:
    """The race's end (epoch seconds); None when its ``startsAt`` is no time of ``clock.RACE_YEARS``."""
    start = clock.race_start(race.startsAt)
    return None if start is None else start + race.durationSeconds


def schedule_minute(end: float) -> float:
    """The minute to schedule the finisher in: its invocation lands before ``end + FINISH_WITHIN - MARGIN``."""
    return math.floor((end - BEFORE_END) / 60) * 60


def schedule_name(race_id: str) -> str:
    return f"finish-{race_id}"


def start(race_id: str) -> None:
    """The stream processor's part: the finisher invoked (asynchronously) for a race just created."""
    aws.invoke_later(settings.load().needed(settings.FINISHER_ARN), {"raceId": race_id})


def finish_when_due(race_id: str, finisher_arn: str) -> str:
    """The finisher: "scheduled" (far from the end: it will be invoked again near it), "finished",
    or "left" (gone, or finished already: by an admin, or by another invocation)."""
    race = races.get(race_id, consistent=True)
    if race is None or race.status != e.OPEN:
        return "left"
    end = ends_at(race)
    if end is None:  # a year 1 or 9999 race, stored before creation refused them: over now
        return "finished" if races.finish(race, only_if_open=True) else "left"
    minute = schedule_minute(end)
    if minute >= clock.now() + LEAD:
        _schedule(race, minute, finisher_arn)
        return "scheduled"
    wait = end + GRACE - clock.now()
    if wait > 0:
        clock.sleep(wait)
    if not races.finish(race, only_if_open=True):
        return "left"
    seconds("FinishedAfterEnd", clock.now() - end)  # the promise, measured: FINISH_WITHIN at most
    return "finished"


def _schedule(race: e.Race, minute: float, finisher_arn: str) -> None:
    scheduler = aws.client("scheduler")
    try:
        scheduler.create_schedule(
            Name=schedule_name(race.raceId), GroupName=settings.load().needed(settings.FINISH_SCHEDULE_GROUP),
            ScheduleExpression=f"at({clock.iso(minute)[:-1]})", ScheduleExpressionTimezone="UTC",
            FlexibleTimeWindow={"Mode": "OFF"}, ActionAfterCompletion="DELETE",
            Description=f"Finishes race {race.raceId} ({race.className}, {race.startsAt}, {race.durationSeconds} s)"[:512],
            Target={"Arn": finisher_arn, "RoleArn": settings.load().needed(settings.FINISH_SCHEDULE_ROLE_ARN),
                    "Input": json.dumps({"raceId": race.raceId}),
                    "RetryPolicy": {"MaximumRetryAttempts": RETRIES, "MaximumEventAgeInSeconds": 3600},
                    "DeadLetterConfig": {"Arn": settings.load().needed(settings.FINISH_DEAD_LETTER_ARN)}})
    except scheduler.exceptions.ConflictException:
        pass  # made by an earlier invocation for the same race
