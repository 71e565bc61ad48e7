"""When a race's finish is scheduled: within the contract's 30 s, whatever second the race ends on and
whenever in its minute EventBridge Scheduler invokes (60-second precision)."""

from alleycat.flows import ending
from alleycat.clock import epoch, iso

END = epoch("2026-11-25T18:05:00Z")
DELIVERIES = (0, 0.5, 30, 59, 59.999)  # the scheduler invokes somewhere in the minute named


def finished_at(end: float, invoked: float) -> float:
    """The finisher invoked at ``invoked`` waits for ``end + GRACE``, then finishes."""
    return max(invoked, end + ending.GRACE)


def test_every_race_finishes_after_its_grace_and_inside_the_promise():
    for second_of_end in range(0, 60):
        end = END + second_of_end
        minute = ending.schedule_minute(end)
        assert minute % 60 == 0
        for delivery in DELIVERIES:
            invoked = minute + delivery
            assert invoked <= end + ending.FINISH_WITHIN - ending.MARGIN, (iso(end), delivery)
            assert end + ending.GRACE <= finished_at(end, invoked) <= end + ending.FINISH_WITHIN - ending.MARGIN
            assert finished_at(end, invoked) - invoked <= ending.LONGEST_WAIT - ending.LEAD


def test_the_scheduled_minute_is_the_latest_that_keeps_the_promise():
    # One minute later could be invoked at its last second, past end + FINISH_WITHIN - MARGIN
    for second_of_end in range(0, 60):
        end = END + second_of_end
        assert ending.schedule_minute(end) + 60 + 59.999 > end + ending.FINISH_WITHIN - ending.MARGIN


def test_a_finisher_started_too_near_the_end_to_schedule_waits_no_longer_than_its_bound():
    # Started when its minute is under LEAD ahead: the earliest such moment is minute - LEAD
    for second_of_end in range(0, 60):
        end = END + second_of_end
        started = ending.schedule_minute(end) - ending.LEAD
        assert finished_at(end, started) - started <= ending.LONGEST_WAIT


def test_a_schedule_is_named_after_its_race():
    assert ending.schedule_name("01JD5Z6Q8X0000000000000000") == "finish-01JD5Z6Q8X0000000000000000"
    assert len(ending.schedule_name("01JD5Z6Q8X0000000000000000")) <= 64  # Scheduler's limit on a name
