"""Contention and throttling as real DynamoDB reports them: retried, then 503 with Retry-After, never 500."""

import json

from alleycat import settings
from local import handlers
from local.events import sample_event, with_header

from .conftest import ADMIN, process, racer_claims
from .faults import cancelled, throttled


def invoke(function, path_parameters=None, body=..., claims=..., headers=None):
    event = sample_event(function, path_parameters, body, claims=claims)
    for name, value in (headers or {}).items():
        with_header(event, name, value)
    response = handlers.invoke(function, event)
    return response["statusCode"], response.get("headers") or {}, json.loads(response["body"])


# join_race's transaction: entry, first chunk, the check of the race's gate copy
JOIN_CONFLICT_ON_RACE = cancelled("None", "None", "TransactionConflict")


def test_a_join_in_conflict_with_other_joins_is_retried_and_counts_once(api, race, faults, clock, server):
    # Given two transactions that touch the race item at the same moment as this join
    faults.fail("TransactWriteItems", JOIN_CONFLICT_ON_RACE, times=2)
    # When the racer joins
    status, _, body = invoke("join_race", {"raceId": race["raceId"], "racerId": "racer-1"},
                             claims=racer_claims("racer-1"))
    # Then the join went through after the conflicts, once
    assert (status, body["racerId"]) == (200, "racer-1")
    assert faults.injected == ["TransactWriteItems"] * 2
    process(server.read())
    assert api("get_race", {"raceId": race["raceId"]})[1]["racerCount"] == 1


def test_a_join_still_in_conflict_after_its_retries_is_503_with_retry_after(api, race, faults, clock, server):
    for reason in ("TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"):
        faults.fail("TransactWriteItems", cancelled("None", "None", reason))
        status, headers, body = invoke("join_race", {"raceId": race["raceId"], "racerId": "racer-1"},
                                       claims=racer_claims("racer-1"))
        faults.clear()
        assert (status, headers.get("Retry-After")) == (503, "1"), reason
        assert clock.slept, "the conflicts were retried after a pause"
        assert "retry" in body["message"]
    # and the racer can join once the table is calm
    assert api("join_race", {"raceId": race["raceId"], "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 200
    process(server.read())
    assert api("get_race", {"raceId": race["raceId"]})[1]["racerCount"] == 1


def test_overlapping_creates_with_one_idempotency_key_answer_one_race(api, race, faults, clock):
    # Given a create with an Idempotency-Key that went through
    key = {"Idempotency-Key": "key-7"}
    status, _, first = invoke("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN, headers=key)
    assert status == 201
    # When its overlapping twin meets the first one's transaction on the marker item
    faults.fail("TransactWriteItems", cancelled("TransactionConflict", *["None"] * 21), times=1)
    status, _, second = invoke("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN, headers=key)
    # Then it answers the same race, and the class has one race for the key
    assert (status, second["raceId"]) == (201, first["raceId"])
    races = [r["raceId"] for r in api("get_class_races", query={"limit": "100"})[1]["items"]]
    assert races.count(first["raceId"]) == 1


def test_throttling_that_outlasts_the_sdk_retries_is_503_with_retry_after(api, race, faults, clock):
    # Given a table that throttles every request (botocore's own retries have run out)
    faults.fail("Query", throttled("Query"))
    faults.fail("PutItem", throttled("PutItem", "ThrottlingException"))
    # Then reads and writes answer 503 with Retry-After, not 500
    status, headers, _ = invoke("get_race", {"raceId": race["raceId"]})
    assert (status, headers.get("Retry-After")) == (503, "1")
    status, headers, _ = invoke("put_racer", {"racerId": "racer-2"}, body={"name": "Two"}, claims=ADMIN)
    assert (status, headers.get("Retry-After")) == (503, "1")


def test_a_stalled_database_ends_the_call_inside_the_lambda_timeout(monkeypatch):
    # Given a DynamoDB endpoint that accepts connections and never answers
    import socket
    import threading
    import time

    from alleycat.storage import dynamo

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    threading.Thread(target=accept, daemon=True).start()
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{listener.getsockname()[1]}")
    monkeypatch.setenv("TABLE_NAME", "stalled")
    monkeypatch.delenv(settings.DYNAMODB_READ_TIMEOUT_SECONDS, raising=False)  # the deployed timeouts
    settings.reset()
    dynamo.client.cache_clear()
    try:
        # When a function reads through it
        started = time.monotonic()
        status, headers, body = invoke("get_race", {"raceId": RACE_ID})
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        dynamo.client.cache_clear()
        for connection in held:
            connection.close()
        listener.close()
    # Then it gave up (botocore retried) before the function's 10 s timeout and said so
    assert (status, headers.get("Retry-After")) == (503, "1") and "retry" in body["message"]
    assert len(held) == dynamo.ATTEMPTS
    assert elapsed < 10


RACE_ID = "01JD5Z6Q8X000000000000000Z"
