"""The local stand-in for EventBridge Scheduler, met by AWS's own client (boto3) pointed at it.

Time is a ManualClock: a schedule comes due only when a test moves the clock, never by waiting on
the wall clock; ``wait_tick()`` waits for the stand-in to have looked at the clock's new time.
"""

import json
import threading
from datetime import UTC, datetime

import boto3
import pytest
from botocore import UNSIGNED
from botocore.config import Config
from botocore.exceptions import ClientError

from local.clock import ManualClock
from local.lambda_api import LambdaApi
from local.scheduler import MAX_LOCAL_RETRIES, SchedulerApi

ACCESS_KEY, SECRET_KEY, REGION, ACCOUNT = "AKIDLOCAL", "local-secret", "eu-west-1", "123456789012"
FINISHER = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:finisher"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/scheduler-invokes-finisher"
DLQ = f"arn:aws:sqs:{REGION}:{ACCOUNT}:finisher-dlq"
NOW = datetime(2026, 11, 25, 18, 30, tzinfo=UTC).timestamp()
MINUTE = datetime(2026, 11, 25, 18, 35, tzinfo=UTC).timestamp()  # of at(2026-11-25T18:35:..)
INPUT = json.dumps({"raceId": "R1", "endsAt": "2026-11-25T18:35:00Z"})


class Targets:
    """The scheduler's ``invoke``: records each call; the first ``failures`` calls raise."""

    def __init__(self, failures: int = 0):
        self.calls: list[tuple[str, str]] = []
        self.failures = failures
        self.called = threading.Event()

    def __call__(self, arn: str, payload: str) -> None:
        self.calls.append((arn, payload))
        self.called.set()
        if len(self.calls) <= self.failures:
            raise RuntimeError(f"delivery {len(self.calls)} failed")


@pytest.fixture
def clock():
    return ManualClock(NOW)


@pytest.fixture
def targets():
    return Targets()


@pytest.fixture
def start(clock, targets):
    """``start(**options)``: a SchedulerApi on the test's clock and targets (delivery at the minute's start)."""
    running = []

    def started(**options) -> SchedulerApi:
        options = {"invoke": targets, "delivery": lambda: 0, **options}
        running.append(SchedulerApi(clock, access_key=ACCESS_KEY, secret_key=SECRET_KEY, region=REGION,
                                    account=ACCOUNT, **options).start())
        return running[-1]

    yield started
    for api in running:
        api.stop()


@pytest.fixture
def api(start):
    return start()


def client(api, secret=SECRET_KEY, **config):
    return boto3.client("scheduler", endpoint_url=api.url, region_name=REGION, aws_access_key_id=ACCESS_KEY,
                        aws_secret_access_key=secret, config=Config(retries={"max_attempts": 1}, **config))


def create(scheduler, name="race-R1-finish", at="2026-11-25T18:35:00", target=None, window=None, **request):
    return scheduler.create_schedule(Name=name, ScheduleExpression=f"at({at})",
                                     FlexibleTimeWindow=window or {"Mode": "OFF"},
                                     Target={"Arn": FINISHER, "RoleArn": ROLE, "Input": INPUT, **(target or {})},
                                     **request)


def error_of(call) -> tuple[int, str, str]:
    with pytest.raises(ClientError) as raised:
        call()
    response = raised.value.response
    return response["ResponseMetadata"]["HTTPStatusCode"], response["Error"]["Code"], response["Error"]["Message"]


def move_to(clock: ManualClock, api: SchedulerApi, when: float) -> None:
    """The clock set forward to ``when``, and the schedules checked against it."""
    clock.advance(when - clock.now())
    api.wait_tick()


def test_create_get_list_and_delete_a_one_time_schedule(api):
    scheduler = client(api)
    arn = f"arn:aws:scheduler:{REGION}:{ACCOUNT}:schedule/default/race-R1-finish"
    assert create(scheduler)["ScheduleArn"] == arn
    schedule = scheduler.get_schedule(Name="race-R1-finish")
    assert {key: schedule[key] for key in ("Arn", "Name", "GroupName", "ScheduleExpression",
                                           "ScheduleExpressionTimezone", "State", "ActionAfterCompletion")} == {
        "Arn": arn, "Name": "race-R1-finish", "GroupName": "default", "ScheduleExpression": "at(2026-11-25T18:35:00)",
        "ScheduleExpressionTimezone": "UTC", "State": "ENABLED", "ActionAfterCompletion": "NONE"}
    assert schedule["Target"] == {"Arn": FINISHER, "RoleArn": ROLE, "Input": INPUT, "RetryPolicy": {
        "MaximumEventAgeInSeconds": 86400, "MaximumRetryAttempts": 185}}
    assert schedule["CreationDate"].timestamp() == NOW  # the clock's time, not the wall's
    listed = scheduler.list_schedules()["Schedules"]
    assert [(entry["Name"], entry["GroupName"], entry["State"], entry["Target"]) for entry in listed] == [
        ("race-R1-finish", "default", "ENABLED", {"Arn": FINISHER})]
    assert scheduler.delete_schedule(Name="race-R1-finish", GroupName="default")["ResponseMetadata"][
        "HTTPStatusCode"] == 200
    missing = (404, "ResourceNotFoundException", "Schedule race-R1-finish does not exist.")
    assert error_of(lambda: scheduler.get_schedule(Name="race-R1-finish")) == missing
    assert error_of(lambda: scheduler.delete_schedule(Name="race-R1-finish")) == missing
    assert scheduler.list_schedules()["Schedules"] == []


def test_a_name_is_unique_in_its_group_and_a_group_must_exist(start):
    scheduler = client(start(groups=("races",)))
    create(scheduler)
    assert error_of(lambda: create(scheduler, at="2026-11-25T19:00:00")) == (
        409, "ConflictException", "Schedule race-R1-finish already exists.")
    create(scheduler, GroupName="races")
    assert scheduler.get_schedule(Name="race-R1-finish", GroupName="races")["GroupName"] == "races"
    assert error_of(lambda: create(scheduler, GroupName="nope")) == (
        404, "ResourceNotFoundException", "Schedule group nope does not exist.")
    assert error_of(lambda: scheduler.get_schedule(Name="race-R1-finish", GroupName="nope"))[0] == 404


def test_a_request_without_a_required_field_is_a_validation_error(api):
    unchecked = client(api, parameter_validation=False)  # boto3 would refuse to send it
    status, code, message = error_of(lambda: unchecked.create_schedule(
        Name="race-R1-finish", ScheduleExpression="at(2026-11-25T18:35:00)", FlexibleTimeWindow={"Mode": "OFF"},
        Target={"Arn": FINISHER}))
    assert (status, code) == (400, "ValidationException")
    assert message == ("1 validation error detected: Value null at 'target.roleArn' failed to satisfy constraint: "
                       "Member must not be null")
    assert error_of(lambda: unchecked.create_schedule(Name="r", Target={"Arn": FINISHER}))[2].startswith(
        "3 validation errors detected: Value null at 'scheduleExpression'")
    assert api.schedules == {}


@pytest.mark.parametrize("options, message", [
    ({"at": "2026-11-25T18:29:59"}, "The at expression at(2026-11-25T18:29:59) is in the past"),
    ({"at": "tomorrow"}, "Invalid Schedule Expression at(tomorrow)"),
    ({"at": "2026-02-30T10:00:00"}, "Invalid Schedule Expression at(2026-02-30T10:00:00)"),
    ({"ScheduleExpressionTimezone": "Mars/Olympus"}, "Invalid ScheduleExpressionTimezone Mars/Olympus"),
    ({"window": {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 5}},
     "A FLEXIBLE time window is not supported locally; use Mode OFF"),
    ({"name": "race R1"}, "1 validation error detected: Value 'race R1' at 'name' failed to satisfy constraint: "
                          "Member must satisfy regular expression pattern: ^[0-9a-zA-Z-_.]+$"),
])
def test_what_cannot_fire_is_refused_at_create(api, options, message):
    assert error_of(lambda: create(client(api), **options)) == (400, "ValidationException", message)
    assert api.schedules == {}


def test_rate_and_cron_schedules_are_not_run_locally(api):
    scheduler = client(api)
    for expression in ("rate(5 minutes)", "cron(0 12 * * ? *)"):
        status, code, message = error_of(lambda expression=expression: scheduler.create_schedule(
            Name="r", ScheduleExpression=expression, FlexibleTimeWindow={"Mode": "OFF"},
            Target={"Arn": FINISHER, "RoleArn": ROLE}))
        assert (status, code) == (400, "ValidationException")
        assert message == f"Only one-time schedules, at(yyyy-mm-ddThh:mm:ss), are supported locally, not {expression}"


def test_a_schedule_fires_at_the_start_of_its_minute_never_before(api, clock, targets):
    create(client(api), at="2026-11-25T18:35:30")  # 60 s precision: its minute is 18:35
    move_to(clock, api, MINUTE - 0.25)
    assert api.fired == [] and targets.calls == []
    move_to(clock, api, MINUTE)
    [firing] = api.fired
    assert firing.at == MINUTE and (firing.target_arn, firing.input) == (FINISHER, INPUT)
    assert firing.done.wait(2) and firing.attempts == 1 and firing.error is None
    assert targets.calls == [(FINISHER, INPUT)]
    assert client(api).get_schedule(Name="race-R1-finish")["State"] == "ENABLED"  # NONE after completion: it stays
    move_to(clock, api, MINUTE + 600)
    assert len(api.fired) == 1  # once


def test_a_schedule_fires_before_the_end_of_its_minute(start, clock, targets):
    api = start(delivery=lambda: 59.9)
    create(client(api))
    move_to(clock, api, MINUTE + 59.875)
    assert api.fired == []
    move_to(clock, api, MINUTE + 59.9375)
    [firing] = api.fired
    assert MINUTE + 59.9 <= firing.at < MINUTE + 60
    assert targets.called.wait(2)


def test_by_default_each_schedule_draws_its_second_in_the_minute(start):
    api = start(delivery=None)
    scheduler = client(api)
    for n in range(8):
        create(scheduler, name=f"race-{n}")
    dues = [schedule.due for schedule in api.schedules.values()]
    assert all(MINUTE <= due < MINUTE + 60 for due in dues)
    assert len(set(dues)) > 1


def test_the_time_is_read_in_the_schedules_time_zone(api):
    create(client(api), at="2026-11-25T19:35:00", ScheduleExpressionTimezone="Europe/Paris")  # UTC+1 in November
    assert api.schedules["default", "race-R1-finish"].due == MINUTE


def test_a_schedule_deleted_after_completion_is_gone_once_it_has_fired(api, clock):
    scheduler = client(api)
    create(scheduler, ActionAfterCompletion="DELETE")
    assert scheduler.get_schedule(Name="race-R1-finish")["ActionAfterCompletion"] == "DELETE"
    move_to(clock, api, MINUTE)
    assert api.fired[0].done.wait(2)
    assert error_of(lambda: scheduler.get_schedule(Name="race-R1-finish"))[1] == "ResourceNotFoundException"


def test_a_failed_delivery_is_retried(start, clock):
    api = start(invoke=Targets(failures=2))
    create(client(api), target={"RetryPolicy": {"MaximumRetryAttempts": 5, "MaximumEventAgeInSeconds": 60}})
    move_to(clock, api, MINUTE)
    assert api.fired[0].done.wait(2)
    assert api.fired[0].attempts == 3 and api.fired[0].error is None
    assert api.dead_letters == []


def test_a_delivery_that_fails_every_retry_goes_to_the_dead_letter_queue(start, clock):
    api = start(invoke=Targets(failures=99))
    scheduler = client(api)
    create(scheduler, target={"RetryPolicy": {"MaximumRetryAttempts": 1}, "DeadLetterConfig": {"Arn": DLQ}})
    create(scheduler, name="no-dlq")  # the default policy (185 retries), capped locally; no queue
    move_to(clock, api, MINUTE)
    with_dlq, without = sorted(api.fired, key=lambda firing: firing.schedule_arn.endswith("no-dlq"))
    assert with_dlq.done.wait(2) and without.done.wait(2)
    assert (with_dlq.attempts, without.attempts) == (2, 1 + MAX_LOCAL_RETRIES)
    assert isinstance(with_dlq.error, RuntimeError)
    [letter] = api.dead_letters
    assert letter["QueueArn"] == DLQ and letter["Body"] == INPUT
    assert letter["MessageAttributes"] == {
        "ERROR_CODE": "RuntimeError", "ERROR_MESSAGE": str(with_dlq.error),
        "EXHAUSTED_RETRY_CONDITION": "MaximumRetryAttempts", "RETRY_ATTEMPTS": "1",
        "SCHEDULE_ARN": with_dlq.schedule_arn, "TARGET_ARN": FINISHER}


def test_schedules_due_together_are_delivered_side_by_side(start, clock):
    both = threading.Barrier(2, timeout=2)
    api = start(invoke=lambda arn, payload: both.wait())  # each delivery waits for the other one
    scheduler = client(api)
    create(scheduler, name="race-1")
    create(scheduler, name="race-2")
    move_to(clock, api, MINUTE)
    assert all(firing.done.wait(3) for firing in api.fired) and len(api.fired) == 2
    assert [firing.error for firing in api.fired] == [None, None]


def test_a_disabled_schedule_does_not_fire_and_lists_filter_and_page(api, clock):
    scheduler = client(api)
    create(scheduler, name="race-1", State="DISABLED")
    for name in ("race-2", "race-3", "other"):
        create(scheduler, name=name)
    move_to(clock, api, MINUTE + 60)
    assert sorted(firing.schedule_arn.rsplit("/", 1)[1] for firing in api.fired) == ["other", "race-2", "race-3"]
    assert [s["Name"] for s in scheduler.list_schedules(State="DISABLED")["Schedules"]] == ["race-1"]
    pages = scheduler.get_paginator("list_schedules").paginate(NamePrefix="race-", GroupName="default",
                                                                PaginationConfig={"PageSize": 2})
    assert [[s["Name"] for s in page["Schedules"]] for page in pages] == [["race-1", "race-2"], ["race-3"]]
    assert error_of(lambda: scheduler.list_schedules(GroupName="nope"))[:2] == (404, "ResourceNotFoundException")
    assert error_of(lambda: scheduler.list_schedules(NextToken="not-ours")) == (
        400, "ValidationException", "Invalid NextToken")


def test_only_requests_signed_with_the_stand_ins_credentials_are_served(api):
    assert error_of(lambda: create(client(api, secret="wrong")))[:2] == (403, "InvalidSignatureException")
    assert error_of(lambda: create(client(api, signature_version=UNSIGNED)))[:2] == (
        403, "MissingAuthenticationTokenException")
    assert api.schedules == {}


def test_a_lambda_target_is_invoked_asynchronously_through_the_lambda_stand_in(start, clock):
    ran = threading.Event()
    events = []
    lam = LambdaApi(lambda name, event: (events.append((name, event)), ran.set()), {"finisher"}, region=REGION,
                    account=ACCOUNT)
    api = start(invoke=lam.invoke_async)
    scheduler = client(api)
    create(scheduler)
    create(scheduler, name="starter", target={"Arn": FINISHER.replace("finisher", "starter"),
                                              "RetryPolicy": {"MaximumRetryAttempts": 0},
                                              "DeadLetterConfig": {"Arn": DLQ}})
    move_to(clock, api, MINUTE)
    assert ran.wait(2)
    assert events == [("finisher", json.loads(INPUT))]
    assert all(firing.done.wait(2) for firing in api.fired)
    [letter] = api.dead_letters
    assert letter["MessageAttributes"]["ERROR_CODE"] == "ResourceNotFoundException"
