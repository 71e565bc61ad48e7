"""How a race finishes by itself: the finisher runs, at the race's end, the finish an admin's call runs.

The stream processor invokes the finisher once a race is created (``start``). The finisher reads the
race and the clock and does what the finish's timing (``rules.finishing``) says: far from the end, a
one-time EventBridge Scheduler schedule (``aws.scheduler``) that invokes it again near the end; near
the end, wait for the end and its grace, then finish the race unless it is finished already. So the
schedule's errors are the finisher's (Lambda's retries, then its alarmed failure queue), never a
stream record's. Schedules delete themselves once they have run.
"""

from __future__ import annotations

from alleycat import clock, settings
from alleycat.observability import seconds
from alleycat.rules import finishing
from alleycat.storage import entities as e
from alleycat.storage import races

RETRIES = 10  # the scheduler's invocations of the finisher that fail (throttled), then the dead letters
MAX_EVENT_AGE_SECONDS = 3600


def enabled() -> bool:
    """Whether races finish by themselves here (the stack sets the finisher; tests of other things do not)."""
    return settings.load().finishes_races


def schedule_name(race_id: str) -> str:
    return f"finish-{race_id}"


def start(race_id: str) -> None:
    """The stream processor's part: the finisher invoked (asynchronously) for a race just created."""
    from alleycat.aws import lambdas  # a new race's record only

    lambdas.invoke_later(settings.load().needed(settings.FINISHER_ARN), {"raceId": race_id})


def finish_when_due(race_id: str, finisher_arn: str) -> str:
    """The finisher: "scheduled" (far from the end: it will be invoked again near it), "finished",
    or "left" (gone, or finished already: by an admin, or by another invocation)."""
    race = races.get(race_id, consistent=True)
    if race is None or race.status != e.OPEN:
        return "left"
    end, now = finishing.ends_at(race), clock.now()
    minute = finishing.minute_to_schedule(end, now)
    if minute is not None:
        _schedule(race, minute, finisher_arn)
        return "scheduled"
    wait = finishing.wait_to_finish(end, now)
    if wait > 0:
        clock.sleep(wait)
    if not races.finish(race, only_if_open=True):
        return "left"
    if end is not None:  # a year 1 or 9999 race has no end to measure from
        seconds("FinishedAfterEnd", clock.now() - end)  # the promise, measured: FINISH_WITHIN at most
    return "finished"


def _schedule(race: e.Race, minute: float, finisher_arn: str) -> None:
    """The finisher invoked again in ``minute``; a schedule an earlier invocation made for the race stands."""
    from alleycat.aws import scheduler  # far from the end only

    scheduler.create_one_time_schedule(
        schedule_name(race.raceId), settings.load().needed(settings.FINISH_SCHEDULE_GROUP), minute,
        f"Finishes race {race.raceId} ({race.className}, {race.startsAt}, {race.durationSeconds} s)",
        finisher_arn, settings.load().needed(settings.FINISH_SCHEDULE_ROLE_ARN), {"raceId": race.raceId}, RETRIES, MAX_EVENT_AGE_SECONDS,
        settings.load().needed(settings.FINISH_DEAD_LETTER_ARN))
