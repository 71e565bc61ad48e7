"""When a race finishes by itself (``alleycat.rules.finishing``), against the contract and EventBridge
Scheduler's precision, with every expected value from them and from arithmetic here.

- The contract (/work/shared/spec/api.md, "A race finishes by itself"): finished at most 30 s after
  ``startsAt + durationSeconds``; a sample counts with at most 2 s of tolerance for clocks, and late
  samples are taken until the race is finished.
- Scheduler invokes a one-time schedule somewhere in the minute it names ("between 1:00:00 and
  1:00:59") and refuses a time already past.
- The finisher needs time between its invocation and the finish written: a cold start at 128 MB
  (about 0.25 s of CPU at 1,769 MB, docs/performance.md, so ~3.5 s at 128 MB), Lambda's queue and the
  transaction's retries. docs/capacity.md allows it 10 s: the invocation lands before end + 20 s.
"""

import math

import pytest

from alleycat.clock import epoch
from alleycat.rules import finishing

PROMISE = 30  # seconds after the end, the contract's
CLOCK_TOLERANCE = 2  # the contract's: a bike whose clock is 2 s late sends its last second 2 s after the end
FINISHER_NEEDS = 10  # from its invocation to the finish written
MINUTE = 60
END = epoch("2026-11-25T18:05:00Z")  # a whole minute
ENDS = [END + second for second in range(0, 3 * MINUTE)]  # every second of end in three minutes
# Where in its minute Scheduler invokes: its first instant, every second, its last millisecond
OFFSETS = [0, 0.001, 0.5] + list(range(1, MINUTE)) + [59.5, 59.999]


def finished_at(end: float, invoked: float) -> float:
    """When a finisher invoked at ``invoked`` writes the finish: after its wait (it must not schedule again)."""
    assert finishing.minute_to_schedule(end, invoked) is None, (end, invoked)
    return invoked + finishing.wait_to_finish(end, invoked)


def scheduled_minute(end: float) -> float:
    """The minute a finisher invoked when the race is created, an hour before its end, schedules."""
    minute = finishing.minute_to_schedule(end, end - 3600)
    assert minute is not None
    return minute


def waits(end: float | None, now: float) -> float:
    """How long a finisher at ``now`` waits to finish (it does not schedule itself)."""
    assert finishing.minute_to_schedule(end, now) is None, (end, now)
    return finishing.wait_to_finish(end, now)


def test_every_scheduled_finish_lands_inside_the_promise_wherever_in_its_minute_scheduler_invokes():
    for end in ENDS:
        minute = scheduled_minute(end)
        assert minute % MINUTE == 0, end  # a minute Scheduler can name
        for offset in OFFSETS:
            finished = finished_at(end, minute + offset)
            # Then the finish is written within the promise, the finisher's own time included
            assert finished + FINISHER_NEEDS <= end + PROMISE, (end, offset)
            # and not before a late clock's last second could come in
            assert finished >= end + CLOCK_TOLERANCE, (end, offset)


def test_the_minute_scheduled_is_the_latest_whose_every_invocation_keeps_the_promise():
    # The latest whole minute m whose invocations (before m + 60) leave the finisher its time: m + 60 +
    # FINISHER_NEEDS <= end + PROMISE; an earlier one would keep the finisher waiting, billed, for nothing
    for end in ENDS:
        latest = math.floor((end + PROMISE - FINISHER_NEEDS - MINUTE) / MINUTE) * MINUTE
        assert scheduled_minute(end) == latest, end


def test_examples_of_the_minute_scheduled():
    # A race ending on a minute's first second: its end - 40 s is 18:04:20, so 18:04
    assert scheduled_minute(epoch("2026-11-25T18:05:00Z")) == epoch("2026-11-25T18:04:00Z")
    # Ending at 18:05:39 (end - 40 s = 18:04:59): 18:04; at 18:05:40 (18:05:00): 18:05
    assert scheduled_minute(epoch("2026-11-25T18:05:39Z")) == epoch("2026-11-25T18:04:00Z")
    assert scheduled_minute(epoch("2026-11-25T18:05:40Z")) == epoch("2026-11-25T18:05:00Z")


def test_a_finisher_invoked_near_the_end_waits_for_the_end_and_its_grace_of_ten_seconds():
    # docs/capacity.md: "near the end it waits for end + 10 s"
    assert waits(END, END - 25) == 35
    assert waits(END, END) == 10
    assert waits(END, END + 9.5) == 0.5  # under a second: still waited
    assert waits(END, END + 9.999) == pytest.approx(0.001, abs=1e-6)


def test_a_finisher_invoked_at_or_after_the_end_and_its_grace_finishes_at_once():
    assert waits(END, END + 10) == 0
    assert waits(END, END + 10.001) == 0
    assert waits(END, END + 3600) == 0  # an end long past: no negative wait


def test_a_race_with_no_end_a_schedule_can_name_is_finished_at_once():
    assert waits(None, END) == 0


def test_a_schedule_is_made_only_for_a_minute_at_least_a_minute_ahead():
    # The latest minute for END is 18:04 (above); Scheduler refuses a past time, and a minute ahead
    # leaves the call its own delay
    minute = epoch("2026-11-25T18:04:00Z")
    assert finishing.minute_to_schedule(END, minute - 60) == minute
    assert finishing.minute_to_schedule(END, minute - 3600 * 24 * 365) == minute
    # Less than a minute ahead: the finisher waits now instead, for end + 10 s (70 s from 18:04:00)
    assert waits(END, minute - 59.999) == pytest.approx(129.999)
    assert waits(END, minute) == 70


def test_whenever_the_finisher_is_first_invoked_it_schedules_a_future_minute_or_finishes_in_the_promise():
    # A race created at any moment from 10 minutes before its end to just after it (creation refuses a race over)
    longest = 0.0
    for end in (END, END + 17, END + 39, END + 59):  # END + 39: its end - 40 s is a minute's last second
        for tenth in range(-6000, 100):
            now = end + tenth / 10
            minute = finishing.minute_to_schedule(end, now)
            if minute is not None:
                assert minute >= now + MINUTE and minute % MINUTE == 0, (end, now)
            else:
                wait = finishing.wait_to_finish(end, now)
                assert now + wait + FINISHER_NEEDS <= end + PROMISE or now > end + PROMISE - FINISHER_NEEDS
                assert now + wait >= end + CLOCK_TOLERANCE
                longest = max(longest, wait)
    # docs/capacity.md: a finisher waits 170 s at most (a race created late); the stack's timeout covers it
    assert 160 < longest <= 170
    assert longest <= finishing.LONGEST_WAIT


def test_a_race_ends_its_duration_after_its_start():
    class Race:
        startsAt, durationSeconds = "2026-11-25T18:00:00Z", 300

    assert finishing.ends_at(Race()) == END
