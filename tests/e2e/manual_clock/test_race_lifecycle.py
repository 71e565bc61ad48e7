"""Races run themselves on `make local`: a race is listed upcoming, then live when its start passes
(no write), then finishes by itself within 30 s of its end, with no finish call.

On the stack whose clock the tests move (``manual_clock/conftest.py``): no test waits for a race's end.
Real time only bounds how long the stack may take to react (a few seconds at most).
"""

import time

import pytest

from alleycat.clock import epoch
from alleycat.rules import finishing
from local.server import TABLE_NAME

REACT_SECONDS = 20  # real time the stack may take: a finisher's worker starting, the stream, the settlement


@pytest.fixture
def race(client):
    """Makes a race in a class of its own with one racer joined: ``race(starts_in, duration)``."""
    admin = client.token("ops", ["admin"])
    made = []

    def make(starts_in, duration):
        n = len(made)
        class_id, racer_id = f"life-{n}-{time.monotonic_ns()}", f"rider-{time.monotonic_ns()}"
        assert client.call("PUT", f"/classes/{class_id}", {"name": "Hill climb"}, admin)[0] == 200
        assert client.call("PUT", f"/racers/{racer_id}", {"name": "Rae"}, admin)[0] == 200
        status, body = client.call("POST", f"/classes/{class_id}/races",
                                   {"startsAt": client.starts_in(starts_in), "durationSeconds": duration}, admin)
        assert status == 201, body
        assert client.call("PUT", f"/races/{body['raceId']}/racers/{racer_id}", token=admin)[0] == 200
        made.append(body)
        return {**body, "admin": admin, "racerId": racer_id, "endsAt": epoch(body["startsAt"]) + duration}

    return make


def listed(client, state):
    return [item["raceId"] for item in client.call("GET", f"/races?state={state}&limit=100")[1]["items"]]


def status_of(client, race_id):
    return client.call("GET", f"/races/{race_id}")[1]["status"]


def eventually(check, seconds=REACT_SECONDS):
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds} s of real time: {check.__doc__ or check}")
        time.sleep(0.05)


def advance_to(clock, moment):
    clock.advance(max(0.0, moment - clock.now()))


def ride(client, race, seconds):
    samples = [{"racerId": race["racerId"], "second": s, "cadence": 80, "resistance": 50} for s in seconds]
    return client.call("POST", f"/races/{race['raceId']}/telemetry", {"samples": samples}, race["admin"])


def test_a_race_goes_live_at_its_start_and_finishes_by_itself_within_30_s_of_its_end(stack, client, race):
    # Given a 60-second race that starts in two minutes or so, ending when its schedule is at its
    # latest (the end of its minute 40 s before the end is the last moment it may fire)
    stack.scheduler.delivery = lambda: 59.9
    now = stack.clock.now()
    before_end = finishing.PRECISION + finishing.MARGIN - finishing.FINISH_WITHIN  # 40 s: the minute named holds end - 40 s
    starts_in = 120 + (before_end - 60 - now) % 60
    race = race(starts_in=starts_in, duration=60)
    race_id, clock = race["raceId"], stack.clock
    eventually(lambda: any(name == f"finish-{race_id}" for _, name in stack.scheduler.schedules))
    assert race_id in listed(client, "upcoming") and race_id not in listed(client, "live")
    # When its start passes (no write in between)
    advance_to(clock, epoch(race["startsAt"]))
    # Then it is live
    assert race_id in listed(client, "live") and race_id not in listed(client, "upcoming")
    # and once its 60 seconds have happened (its schedule fires 19 s or more after its end), takes them all
    advance_to(clock, race["endsAt"])
    assert ride(client, race, range(60))[1]["accepted"] == 60
    # When the clock reaches the moment its schedule fires: the last second of the minute named
    minute = finishing.schedule_minute(race["endsAt"])
    assert race["endsAt"] + 19 < minute + 59.9 < race["endsAt"] + finishing.FINISH_WITHIN - finishing.MARGIN
    advance_to(clock, minute + 59.95)
    # Then it is finished, no finish call made, before the clock is 30 s past its end
    eventually(lambda: status_of(client, race_id) == "finished")
    assert clock.now() - race["endsAt"] < finishing.FINISH_WITHIN
    # and telemetry is refused, the race is listed finished, the racer ranked, the class board filled
    assert ride(client, race, [59])[0] == 409
    assert race_id in listed(client, "finished") and race_id not in listed(client, "live")
    eventually(lambda: client.call("GET", f"/racers/{race['racerId']}/results")[1]["items"][0]["rank"] == 1)
    board = client.call("GET", f"/classes/{race['classId']}/leaderboard")[1]["items"]
    assert [(row["racerId"], row["raceId"], row["bestScore"]) for row in board] == [
        (race["racerId"], race_id, 60 * 132.25)]
    # and its schedule is gone (deleted after it ran)
    eventually(lambda: not any(name == f"finish-{race_id}" for _, name in stack.scheduler.schedules))


def test_a_finisher_invoked_before_the_end_waits_for_it(stack, client, race):
    # Given a race whose schedule fires at the start of its minute, 40 s or more before the end
    stack.scheduler.delivery = lambda: 0
    race = race(starts_in=0, duration=300)
    race_id, clock = race["raceId"], stack.clock
    eventually(lambda: any(name == f"finish-{race_id}" for _, name in stack.scheduler.schedules))
    minute = finishing.schedule_minute(race["endsAt"])
    advance_to(clock, minute + 0.05)
    eventually(lambda: any(f.target_arn.endswith(":finish_due_race") and race_id in f.input and f.done.is_set()
                           for f in stack.scheduler.fired))
    # Then the race stays open until its end and past it: its last seconds, as they happen or still on
    # their way, are taken
    advance_to(clock, race["endsAt"] - 1)
    assert ride(client, race, [298])[1]["accepted"] == 1
    advance_to(clock, race["endsAt"] + 1)
    assert ride(client, race, [299])[1]["accepted"] == 1
    assert status_of(client, race_id) == "open"
    # When its grace has passed too
    advance_to(clock, race["endsAt"] + finishing.GRACE)
    # Then the waiting finisher finishes it
    eventually(lambda: status_of(client, race_id) == "finished")
    assert clock.now() - race["endsAt"] < finishing.FINISH_WITHIN


def test_a_race_that_would_already_be_over_by_the_stacks_clock_is_refused(stack, client, race):
    # Given a class, on the stack's clock (the server's: the request's time, not the test machine's)
    made = race(starts_in=600, duration=60)
    admin, path = made["admin"], f"/classes/{made['classId']}/races"
    # When a race that ended 60 s ago is asked for, then one in its last second: the first is over, the second is not
    status, body = client.call("POST", path, {"startsAt": client.starts_in(-120), "durationSeconds": 60}, admin)
    assert status == 400 and "already be over" in body["message"] and "startsAt" in body["message"]
    status, ends_now = client.call("POST", path, {"startsAt": client.starts_in(-59), "durationSeconds": 60}, admin)
    assert status == 201, ends_now
    # Then only the second exists, and it finishes by itself after its grace
    races = client.call("GET", f"/classes/{made['classId']}/races?limit=100")[1]["items"]
    assert sorted(r["raceId"] for r in races) == sorted([made["raceId"], ends_now["raceId"]])
    advance_to(stack.clock, epoch(ends_now["startsAt"]) + 60 + finishing.GRACE)
    eventually(lambda: status_of(client, ends_now["raceId"]) == "finished")


def test_a_race_too_near_its_end_to_schedule_is_finished_after_its_end(stack, client, race):
    # Given a race created 30 s before its end: its minute is already past, so its finisher, started, waits
    race = race(starts_in=-30, duration=60)
    eventually(lambda: ("finish_due_race", {"raceId": race["raceId"]}) in stack.functions_api.invoked)
    eventually(lambda: any(abs(until - (race["endsAt"] + finishing.GRACE)) < 0.01 and seen >= stack.clock.now()
                           for until, seen in stack.clock.sleeping()))  # it read the race and waits on the clock
    assert status_of(client, race["raceId"]) == "open"
    assert not any(name == f"finish-{race['raceId']}" for _, name in stack.scheduler.schedules)
    # When its end and grace have passed
    advance_to(stack.clock, race["endsAt"] + finishing.GRACE)
    eventually(lambda: status_of(client, race["raceId"]) == "finished")


def test_an_admins_earlier_finish_wins_and_the_schedule_then_changes_nothing(stack, client, race):
    stack.scheduler.delivery = lambda: 30
    race = race(starts_in=0, duration=300)
    race_id = race["raceId"]
    eventually(lambda: any(name == f"finish-{race_id}" for _, name in stack.scheduler.schedules))
    assert client.call("POST", f"/races/{race_id}/finish", token=race["admin"])[0] == 200
    fired = len(stack.scheduler.fired)
    advance_to(stack.clock, race["endsAt"] + finishing.FINISH_WITHIN)
    eventually(lambda: len(stack.scheduler.fired) > fired and stack.scheduler.fired[-1].done.is_set())
    assert status_of(client, race_id) == "finished"
    eventually(lambda: client.call("GET", f"/racers/{race['racerId']}/results")[1]["items"][0]["rank"] == 1)
    # and the finisher changed nothing: one finish request, the admin's (a second would settle it again)
    item = stack.dynamodb.client().get_item(TableName=TABLE_NAME, ConsistentRead=True, Key={
        "PK": {"S": f"RACE#{race_id}"}, "SK": {"S": f"CLASS#{race['classId']}"}})["Item"]
    assert item["finishRequests"] == {"N": "1"}

