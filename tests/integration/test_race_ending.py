"""The stream processor arranges each new race's finish (``alleycat.ending``) with EventBridge Scheduler
and Lambda's Invoke, here their stand-ins on a clock the test holds."""

import json

import pytest

from alleycat import clock as function_clock
from alleycat import ending
from alleycat.clock import epoch
from alleycat.routes import FINISHER
from local import handlers
from local.clock import ManualClock
from local.lambda_api import LambdaApi
from local.scheduler import SchedulerApi

from .conftest import ADMIN, Api, process

NOW = epoch("2026-11-25T18:00:10Z")
GROUP = "race-finishes"


@pytest.fixture
def arranged(monkeypatch, table):
    """The stand-ins running, the functions' environment pointing at them, the clock at NOW;
    what the finisher is invoked with is run for real (``handlers.invoke``) and kept."""
    clock = ManualClock(NOW)
    monkeypatch.setattr(function_clock, "now", clock.now)
    invoked = []

    def run(function, event):
        invoked.append((function, event))
        return handlers.invoke(function, event)

    functions = LambdaApi(run, {FINISHER}).start()
    scheduler = SchedulerApi(clock, functions.invoke_async, groups=(GROUP,), delivery=lambda: 0).start()
    for name, value in {"AWS_ENDPOINT_URL_SCHEDULER": scheduler.url, "AWS_ENDPOINT_URL_LAMBDA": functions.url,
                        "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
                        ending.GROUP: GROUP, ending.FINISHER: functions.arn(FINISHER),
                        ending.ROLE: "arn:aws:iam::000000000000:role/finishes",
                        ending.DEAD_LETTERS: "arn:aws:sqs:us-east-1:000000000000:finishes"}.items():
        monkeypatch.setenv(name, value)
    yield scheduler, invoked
    scheduler.stop()
    functions.stop()


def new_race(starts_in, duration):
    api = Api()
    api("put_class", body={"name": "Hill climb"}, claims=ADMIN)
    starts_at = function_clock.iso(NOW + starts_in)
    status, race = api("create_race", body={"startsAt": starts_at, "durationSeconds": duration}, claims=ADMIN)
    assert status == 201
    return race


def test_a_new_race_gets_one_schedule_for_the_minute_that_keeps_the_promise(arranged, server):
    scheduler, invoked = arranged
    race = new_race(starts_in=600, duration=300)
    records = server.read()
    assert process(records) == {"batchItemFailures": []}
    [(group, name)] = list(scheduler.schedules)
    schedule = scheduler.schedules[group, name].description
    end = NOW + 900
    assert (group, name) == (GROUP, f"finish-{race['raceId']}")
    assert schedule["ScheduleExpression"] == f"at({function_clock.iso(ending.schedule_minute(end))[:-1]})"
    assert schedule["ActionAfterCompletion"] == "DELETE" and schedule["FlexibleTimeWindow"] == {"Mode": "OFF"}
    assert json.loads(schedule["Target"]["Input"]) == {"raceId": race["raceId"]}
    assert schedule["Target"]["DeadLetterConfig"]["Arn"].endswith(":finishes")
    # When the race's records come again (a retried batch)
    assert process(records) == {"batchItemFailures": []}
    # Then the schedule made first stands, alone, and nothing was invoked
    assert list(scheduler.schedules) == [(group, name)] and invoked == []


def test_a_race_too_near_its_end_has_its_finisher_invoked_at_once(arranged, server):
    scheduler, invoked = arranged
    race = new_race(starts_in=-400, duration=300)  # ended 100 s ago
    assert process(server.read()) == {"batchItemFailures": []}
    assert not scheduler.schedules
    _eventually(lambda: invoked == [(FINISHER, {"raceId": race["raceId"]})])  # asynchronously: on a thread
    _eventually(lambda: Api()("get_race", {"raceId": race["raceId"]})[1]["status"] == "finished")


def test_a_race_finished_before_its_record_is_read_is_left_alone(arranged, server):
    scheduler, invoked = arranged
    race = new_race(starts_in=600, duration=300)
    assert Api()("finish_race", {"raceId": race["raceId"]}, claims=ADMIN)[0] == 200
    assert process(server.read()) == {"batchItemFailures": []}
    assert not scheduler.schedules and invoked == []


def test_when_the_scheduler_cannot_be_reached_the_record_is_retried(arranged, server):
    scheduler, _ = arranged
    new_race(starts_in=600, duration=300)
    records = server.read()
    scheduler.stop()
    created = [r for r in records if r["eventName"] == "INSERT" and r["dynamodb"]["NewImage"]["type"]["S"] == "Race"]
    failures = process(records)["batchItemFailures"]
    assert failures == [{"itemIdentifier": created[0]["dynamodb"]["SequenceNumber"]}]


def _eventually(check, seconds=10):
    import time

    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    return True
