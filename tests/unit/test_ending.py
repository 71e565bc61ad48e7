"""The finisher (``alleycat.flows.ending``): its schedules, named after their race, and what it does when
invoked. The timing itself: test_finishing.py."""

from alleycat import clock, settings
from alleycat.aws import scheduler
from alleycat.clock import epoch
from alleycat.flows import ending
from alleycat.settings import FINISH_DEAD_LETTER_ARN, FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN
from alleycat.storage import entities as e
from alleycat.storage import races


def test_a_schedule_is_named_after_its_race():
    assert ending.schedule_name("01JD5Z6Q8X0000000000000000") == "finish-01JD5Z6Q8X0000000000000000"
    assert len(ending.schedule_name("01JD5Z6Q8X0000000000000000")) <= 64  # Scheduler's limit on a name


# --- the finisher's steps, with the race, the clock and Scheduler as stand-ins (no table, no waiting) ------

RACE_ID = "01JD5Z6Q8X0000000000000000"
END = epoch("2026-11-25T18:05:00Z")


class Stand:
    """A race ending at END, open; the clock at ``now``, moved on by sleeping; what was done, in order."""

    def __init__(self, monkeypatch, now: float, status: str = e.OPEN):
        self.now, self.done = now, list[tuple]()
        self.race = e.Race(RACE_ID, "hill-climb", "Hill climb", "2026-11-25T18:00:00Z", 300, status=status)
        monkeypatch.setattr(clock, "now", lambda: self.now)
        monkeypatch.setattr(clock, "sleep", self.sleep)
        monkeypatch.setattr(races, "get", lambda race_id, consistent: self.race if race_id == RACE_ID and consistent else None)
        monkeypatch.setattr(races, "finish", self.finish)
        monkeypatch.setattr(scheduler, "create_one_time_schedule", lambda *args: self.done.append(("schedule", args)))
        monkeypatch.setattr(ending, "seconds", lambda name, value: self.done.append((name, value)))
        for variable in (FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN, FINISH_DEAD_LETTER_ARN):
            monkeypatch.setenv(variable, f"the {variable}")
        settings.reset()

    def sleep(self, seconds):
        assert seconds > 0
        self.done.append(("sleep", seconds))
        self.now += seconds

    def finish(self, race, only_if_open):
        assert only_if_open  # an admin's finish meanwhile is left alone
        self.done.append(("finish", self.now))
        return race.status == e.OPEN


def test_far_from_its_end_the_finisher_schedules_itself_in_the_minute_holding_end_minus_40_s(monkeypatch):
    stand = Stand(monkeypatch, END - 3600)
    assert ending.finish_when_due(RACE_ID, "arn:finisher") == "scheduled"
    [(what, args)] = stand.done
    assert what == "schedule" and args[:3] == (f"finish-{RACE_ID}", f"the {FINISH_SCHEDULE_GROUP}", epoch("2026-11-25T18:04:00Z"))
    assert "arn:finisher" in args and {"raceId": RACE_ID} in args and f"the {FINISH_DEAD_LETTER_ARN}" in args


def test_near_its_end_the_finisher_waits_for_end_plus_10_s_even_under_a_second_then_finishes(monkeypatch):
    stand = Stand(monkeypatch, END + 9.5)
    assert ending.finish_when_due(RACE_ID, "arn:finisher") == "finished"
    assert stand.done == [("sleep", 0.5), ("finish", END + 10), ("FinishedAfterEnd", 10)]


def test_invoked_after_its_grace_the_finisher_finishes_at_once(monkeypatch):
    stand = Stand(monkeypatch, END + 12)
    assert ending.finish_when_due(RACE_ID, "arn:finisher") == "finished"
    assert stand.done == [("finish", END + 12), ("FinishedAfterEnd", 12)]


def test_a_race_finished_already_is_left(monkeypatch):
    stand = Stand(monkeypatch, END + 12, status=e.FINISHED)
    assert ending.finish_when_due(RACE_ID, "arn:finisher") == "left" and stand.done == []
