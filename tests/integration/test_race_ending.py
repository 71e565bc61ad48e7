"""A race's finisher (``alleycat.flows.ending``, timed by ``alleycat.rules.finishing``), started by the stream
processor when the race is created, with EventBridge Scheduler and Lambda's Invoke as their stand-ins, on a
clock the test holds."""

import time

import pytest

from alleycat import clock as function_clock
from alleycat import settings
from alleycat.aws import clients as aws
from alleycat.clock import epoch, iso
from alleycat.rules import finishing
from alleycat.settings import FINISH_DEAD_LETTER_ARN, FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN, FINISHER_ARN
from local import handlers
from local.clock import ManualClock
from local.lambda_api import LambdaApi
from local.scheduler import SchedulerApi
from stacks.settings import FINISHER

from .conftest import ADMIN, Api, process

NOW = epoch("2026-11-25T18:00:10Z")
GROUP = "race-finishes"


class Finishes:
    """The stand-ins, the functions' environment pointing at them, the clock at NOW. The finisher runs
    for real (``handlers.invoke``) on a thread of its own, as Lambda runs an asynchronous invocation;
    what it answered is kept."""

    def __init__(self, monkeypatch):
        self.clock = ManualClock(NOW)
        monkeypatch.setattr(function_clock, "now", self.clock.now)
        monkeypatch.setattr(function_clock, "sleep", self.clock.sleep)
        self.answers = []
        self.functions = LambdaApi(self.run, {FINISHER}).start()
        self.scheduler = SchedulerApi(self.clock, self.functions.invoke_async, groups=(GROUP,),
                                      delivery=lambda: 0).start()
        for name, value in {"AWS_ENDPOINT_URL_SCHEDULER": self.scheduler.url,
                            "AWS_ENDPOINT_URL_LAMBDA": self.functions.url,
                            "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                            FINISH_SCHEDULE_GROUP: GROUP, FINISHER_ARN: self.functions.arn(FINISHER),
                            FINISH_SCHEDULE_ROLE_ARN: "arn:aws:iam::000000000000:role/finishes",
                            FINISH_DEAD_LETTER_ARN: "arn:aws:sqs:us-east-1:000000000000:finishes"}.items():
            monkeypatch.setenv(name, value)
        settings.reset()
        aws.client.cache_clear()  # clients made for another test's stand-ins

    def run(self, function, event):
        answer = handlers.invoke(function, event)
        self.answers.append(answer)
        return answer

    def outcomes(self, count: int, seconds: float = 20) -> list[str]:
        """The first ``count`` finisher answers' outcomes, once there are that many."""
        deadline = time.monotonic() + seconds
        while len(self.answers) < count:
            assert time.monotonic() < deadline, f"{len(self.answers)} finisher answers, not {count}"
            time.sleep(0.02)
        return [answer["outcome"] for answer in self.answers[:count]]

    def waiting(self, seconds: float = 20) -> None:
        """Once the finisher sleeps on the clock and has read its time as it is now: it had the chance
        to act at this time, and waits on."""
        now, deadline = self.clock.now(), time.monotonic() + seconds
        while not any(seen >= now for _, seen in self.clock.sleeping()):
            assert time.monotonic() < deadline, f"no finisher waiting at {iso(now)}: {self.answers}"
            time.sleep(0.02)

    def stop(self):
        self.scheduler.stop()
        self.functions.stop()
        aws.client.cache_clear()


@pytest.fixture
def finishes(monkeypatch, table):
    running = Finishes(monkeypatch)
    yield running
    running.stop()


def new_race(starts_in, duration, created_in=0):
    """A race starting ``starts_in`` seconds from NOW, created ``created_in`` seconds from NOW."""
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    status, race = api("create_race", body={"startsAt": iso(NOW + starts_in), "durationSeconds": duration},
                       claims=ADMIN, at=iso(NOW + created_in))
    assert status == 201
    return race


def status_of(race_id):
    return Api()("get_race", {"raceId": race_id})[1]["status"]


def test_a_new_race_schedules_its_finish_for_the_minute_that_keeps_the_promise(finishes, server):
    race = new_race(starts_in=600, duration=300)
    records = server.read()
    assert process(records) == {"batchItemFailures": []}
    assert finishes.outcomes(1) == ["scheduled"]
    [(group, name)] = list(finishes.scheduler.schedules)
    schedule = finishes.scheduler.schedules[group, name].description
    end = NOW + 900
    assert (group, name) == (GROUP, f"finish-{race['raceId']}")
    assert schedule["ScheduleExpression"] == f"at({iso(finishing.schedule_minute(end))[:-1]})"
    assert schedule["ActionAfterCompletion"] == "DELETE" and schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert schedule["Target"]["Arn"] == finishes.functions.arn(FINISHER)
    assert schedule["Target"]["DeadLetterConfig"]["Arn"].endswith(":finishes")
    # When the race's records come again (a retried batch): the schedule made first stands, alone
    assert process(records) == {"batchItemFailures": []}
    assert finishes.outcomes(2) == ["scheduled", "scheduled"]
    assert list(finishes.scheduler.schedules) == [(group, name)]
    # When its minute comes (the scheduler at its earliest: 40 s or more before the end)
    finishes.clock.advance(finishing.schedule_minute(end) - NOW)
    finishes.waiting()
    # Then the finisher waits: the race is open at its end, and finished GRACE seconds after
    assert len(finishes.answers) == 2 and status_of(race["raceId"]) == "open"
    finishes.clock.advance(end - finishes.clock.now())
    finishes.waiting()
    assert len(finishes.answers) == 2 and status_of(race["raceId"]) == "open"
    finishes.clock.advance(finishing.GRACE)
    assert finishes.outcomes(3)[2] == "finished" and status_of(race["raceId"]) == "finished"


def test_a_race_too_near_its_end_to_schedule_is_finished_after_its_grace(finishes, server):
    race = new_race(starts_in=-280, duration=300)  # ends in 20 s
    assert process(server.read()) == {"batchItemFailures": []}
    finishes.waiting()
    assert not finishes.scheduler.schedules and finishes.answers == []  # waiting, nothing scheduled
    finishes.clock.advance(20 + finishing.GRACE)
    assert finishes.outcomes(1) == ["finished"] and status_of(race["raceId"]) == "finished"


def test_a_race_an_admin_finishes_while_its_finisher_waits_is_left_as_the_admin_finished_it(finishes, server):
    race = new_race(starts_in=-280, duration=300)  # ends in 20 s: its finisher waits for its end
    assert process(server.read()) == {"batchItemFailures": []}
    finishes.waiting()
    # When an admin finishes it meanwhile / Then the finisher, woken after the grace, leaves it alone
    assert Api()("finish_race", {"raceId": race["raceId"]}, claims=ADMIN)[0] == 200
    finishes.clock.advance(20 + finishing.GRACE)
    assert finishes.outcomes(1) == ["left"] and status_of(race["raceId"]) == "finished"


def test_a_race_whose_end_passed_before_its_finisher_ran_is_finished_at_once(finishes, server):
    race = new_race(starts_in=-400, duration=300, created_in=-400)  # ended 100 s ago
    assert process(server.read()) == {"batchItemFailures": []}
    assert finishes.outcomes(1) == ["finished"] and status_of(race["raceId"]) == "finished"


def test_a_race_finished_before_its_finisher_runs_is_left_alone(finishes, server):
    race = new_race(starts_in=-400, duration=300, created_in=-400)
    assert Api()("finish_race", {"raceId": race["raceId"]}, claims=ADMIN)[0] == 200
    assert process(server.read()) == {"batchItemFailures": []}
    assert finishes.outcomes(1) == ["left"] and not finishes.scheduler.schedules


def test_when_the_finisher_cannot_be_started_the_new_races_record_is_retried(finishes, server):
    new_race(starts_in=600, duration=300)
    records = server.read()
    finishes.functions.stop()
    created = [r for r in records if r["eventName"] == "INSERT" and r["dynamodb"]["NewImage"]["type"]["S"] == "Race"]
    failures = process(records)["batchItemFailures"]
    assert failures == [{"itemIdentifier": created[0]["dynamodb"]["SequenceNumber"]}]


@pytest.mark.parametrize("starts_at", ["1-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1999-12-31T23:59:59Z", "2100-01-01T00:00:00Z",
                                       "yesterday"])
def test_a_race_stored_with_a_start_creation_now_refuses_is_finished_at_once(finishes, server, starts_at):
    # Given a race stored before creation checked its startsAt (as 0001-01-01T00:00:00Z was: "1-01-01T00:00:00Z")
    from alleycat import ids
    from alleycat.storage import races
    from alleycat.storage.entities import Race

    Api()("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    race = races.create(Race(ids.new_race_id(), "hill-climb", "Hill climb", starts_at, 300))
    # When its finisher runs: it has no end a schedule can name, so it finishes the race rather than crash
    assert process(server.read()) == {"batchItemFailures": []}
    assert finishes.outcomes(1) == ["finished"] and status_of(race.raceId) == "finished"
    assert not finishes.scheduler.schedules
