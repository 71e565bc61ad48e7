"""Contention and throttling as real DynamoDB reports them: retried, then 503 with Retry-After, never 500."""

import json

from local import handlers
from local.events import sample_event

from .conftest import ADMIN, racer_claims
from .faults import cancelled, throttled


def invoke(function, path_parameters=None, body=..., claims=..., headers=None):
    event = sample_event(function, path_parameters, body, claims=claims)
    for name, value in (headers or {}).items():
        event["headers"][name] = value
        event["multiValueHeaders"][name] = [value]
    response = handlers.invoke(function, event)
    headers = {**{k: v[-1] for k, v in (response.get("multiValueHeaders") or {}).items()}, **(response.get("headers") or {})}
    return response["statusCode"], headers, json.loads(response["body"])


# join_race's transaction: entry, first chunk, race item (racerCount), board shard
JOIN_CONFLICT_ON_RACE = cancelled("None", "None", "TransactionConflict", "None")


def test_a_join_in_conflict_with_other_joins_is_retried_and_counts_once(api, race, faults):
    # Given two transactions that touch the race item at the same moment as this join
    faults.fail("TransactWriteItems", JOIN_CONFLICT_ON_RACE, times=2)
    # When the racer joins
    status, _, body = invoke("join_race", {"raceId": race["raceId"], "racerId": "racer-1"},
                             claims=racer_claims("racer-1"))
    # Then the join went through after the conflicts, once
    assert (status, body["racerId"]) == (200, "racer-1")
    assert faults.injected == ["TransactWriteItems"] * 2
    assert api("get_race", {"raceId": race["raceId"]})[1]["racerCount"] == 1


def test_a_join_still_in_conflict_after_its_retries_is_503_with_retry_after(api, race, faults):
    for reason in ("TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded"):
        faults.fail("TransactWriteItems", cancelled("None", "None", reason, "None"))
        status, headers, body = invoke("join_race", {"raceId": race["raceId"], "racerId": "racer-1"},
                                       claims=racer_claims("racer-1"))
        faults.clear()
        assert (status, headers.get("Retry-After")) == (503, "1"), reason
        assert "retry" in body["message"]
    # and the racer can join once the table is calm
    assert api("join_race", {"raceId": race["raceId"], "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 200
    assert api("get_race", {"raceId": race["raceId"]})[1]["racerCount"] == 1


def test_overlapping_creates_with_one_idempotency_key_answer_one_race(api, race, faults):
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


def test_throttled_reads_and_writes_are_retried_then_503(api, race, faults):
    # Given a table that throttles the next two requests of each kind
    faults.fail("Query", throttled("Query"), times=2)
    faults.fail("PutItem", throttled("PutItem", "ThrottlingException"), times=2)
    # Then reads and writes still succeed
    assert api("get_race", {"raceId": race["raceId"]})[0] == 200
    assert api("put_racer", {"racerId": "racer-2"}, body={"name": "Two"}, claims=ADMIN)[0] == 200
    # and a table that throttles everything answers 503, not 500
    faults.fail("Query", throttled("Query"))
    status, headers, _ = invoke("get_race", {"raceId": race["raceId"]})
    assert (status, headers.get("Retry-After")) == (503, "1")
