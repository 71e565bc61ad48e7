"""How a race finishes by itself: at its end, the finisher runs the finish an admin's call runs.

The contract wants a race finished at most ``FINISH_WITHIN`` seconds after ``startsAt +
durationSeconds``. EventBridge Scheduler invokes a one-time schedule somewhere in the minute it
names (60-second precision) and refuses a time already past. So the stream processor, when a
race is created, schedules the finisher for the minute that makes its invocation land no later
than ``MARGIN`` seconds inside the promise, and the finisher, invoked before the end, waits for
it (at most ``PRECISION + FINISH_WITHIN + MARGIN`` seconds, 100). A race whose minute is too
near to schedule (one created late, or in the past) has its finisher invoked at once, which
waits the same way. The schedule is deleted once it has run (``ActionAfterCompletion``).
"""

from __future__ import annotations

import json
import math
import os

from . import clock, store
from . import entities as e

FINISH_WITHIN = 30  # the contract's promise, in seconds after the race's end
PRECISION = 60  # EventBridge Scheduler invokes a one-time schedule within its minute
MARGIN = 10  # the finisher's start and the finishing transaction, inside the promise
LEAD = 60  # a schedule's minute must be this far ahead when it is made, or the finisher is invoked now
LONGEST_WAIT = PRECISION + FINISH_WITHIN + MARGIN + LEAD  # invoked at once: its minute was under LEAD ahead

# Set by the stack on the stream processor; without them (tests of other things) races are left to admins.
GROUP, ROLE, FINISHER, DEAD_LETTERS = ("FINISH_SCHEDULE_GROUP", "FINISH_SCHEDULE_ROLE_ARN", "FINISHER_ARN",
                                       "FINISH_DEAD_LETTER_ARN")
RETRIES = 10  # the scheduler's invocations of the finisher that fail (throttled), then the dead letters


def enabled() -> bool:
    return all(os.environ.get(name) for name in (GROUP, ROLE, FINISHER, DEAD_LETTERS))


def ends_at(race: e.Race) -> float:
    return clock.epoch(race.startsAt) + race.durationSeconds


def schedule_minute(end: float) -> float:
    """The minute to schedule the finisher in: its invocation then lands before ``end + FINISH_WITHIN - MARGIN``."""
    return math.floor((end + FINISH_WITHIN - MARGIN - PRECISION) / 60) * 60


def schedule_name(race_id: str) -> str:
    return f"finish-{race_id}"


def arrange(race_id: str) -> str | None:
    """The race's finish, arranged once: "scheduled", "invoked", or None for a race gone or finished already.

    Run again (a redelivered record), a schedule that exists is left as it is; a finisher invoked
    twice finishes the race once."""
    race = store.get_race(race_id, consistent=True)
    if race is None or race.status != e.OPEN:
        return None
    minute, payload = schedule_minute(ends_at(race)), json.dumps({"raceId": race_id})
    if minute < clock.now() + LEAD:
        _client("lambda").invoke(FunctionName=os.environ[FINISHER], InvocationType="Event", Payload=payload)
        return "invoked"
    scheduler = _client("scheduler")
    try:
        scheduler.create_schedule(
            Name=schedule_name(race_id), GroupName=os.environ[GROUP],
            ScheduleExpression=f"at({clock.iso(minute)[:-1]})", ScheduleExpressionTimezone="UTC",
            FlexibleTimeWindow={"Mode": "OFF"}, ActionAfterCompletion="DELETE",
            Description=f"Finishes race {race_id} ({race.className}, {race.startsAt}, {race.durationSeconds} s)"[:512],
            Target={"Arn": os.environ[FINISHER], "RoleArn": os.environ[ROLE], "Input": payload,
                    "RetryPolicy": {"MaximumRetryAttempts": RETRIES, "MaximumEventAgeInSeconds": 3600},
                    "DeadLetterConfig": {"Arn": os.environ[DEAD_LETTERS]}})
    except scheduler.exceptions.ConflictException:
        pass  # made by an earlier delivery of the race's record
    return "scheduled"


def finish_when_due(race_id: str) -> bool:
    """The finisher: waits for the race's end, then finishes it if it is still open (True when it did)."""
    race = store.get_race(race_id, consistent=True)
    if race is None or race.status != e.OPEN:
        return False
    wait = ends_at(race) - clock.now()
    if wait > 0:
        clock.sleep(wait)
    return store.finish_race(race, only_if_open=True)


def _client(service: str):
    import botocore.session

    from .dynamo import config

    return botocore.session.Session().create_client(service, config=config())
