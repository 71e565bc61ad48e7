"""POST /races/{raceId}/telemetry: the writes a request causes are bounded by the seconds it adds
(docs/security.md, "Bad input"), and a batch sent again costs its read alone: on the chunk path
(``ALLEYCAT_FAN_IN=off``: one write a racer-chunk); the fan-in's bound is a write a (slice, second) and one a slice's
board (tests/integration/test_telemetry.py, its fan-in tests)."""

from decimal import ROUND_HALF_UP, Decimal

import pytest

from .conftest import ADMIN, racer_claims
from .test_telemetry import sample, stored_points

pytestmark = pytest.mark.usefixtures("chunk_path")

HOUR = 3600
WRITE_OPERATIONS = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}


@pytest.fixture
def hour_race(api):
    """A 3,600-s race (the sample events arrive an hour after its start: every second has happened), r1 joined."""
    assert api("put_class", body={"name": "Hill climb"}, claims=ADMIN)[0] == 200
    assert api("put_racer", {"racerId": "r1"}, body={"name": "R1"}, claims=racer_claims("r1"))[0] == 200
    status, race = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": HOUR}, claims=ADMIN)
    assert status == 201
    assert api("join_race", {"raceId": race["raceId"], "racerId": "r1"}, claims=racer_claims("r1"))[0] == 200
    return race["raceId"]


@pytest.fixture
def requests():
    from .faults import Writes
    recorded = Writes(operations=None)
    yield recorded.calls
    recorded.close()


def post(api, race_id, samples, key=None):
    headers = {"Idempotency-Key": key} if key else None
    return api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=racer_claims("r1"), headers=headers)


def output(cadence, resistance) -> Decimal:
    """The contract's output of one second, to four places."""
    return ((Decimal(cadence) + 35) * (Decimal(resistance) + 65) / 100).quantize(Decimal("0.0001"), ROUND_HALF_UP)


def operations(calls) -> list[str]:
    return [operation for operation, _ in calls]


def writes(calls) -> int:
    return sum(operation in WRITE_OPERATIONS for operation, _ in calls)


# A racer's 1,000 seconds spread over the whole hour (every 3.6 s): the batch the review sent
SPREAD = [sample("r1", round(i * 3.6), cadence=60 + i % 7) for i in range(1000)]


def test_a_racers_batch_over_the_whole_race_writes_at_most_once_per_30_seconds_of_it(api, hour_race, requests):
    assert len({s["second"] for s in SPREAD}) == 1000
    # When the racer posts their 1,000 seconds spread over the hour
    status, body = post(api, hour_race, SPREAD)
    # Then every second counts, with at most one write per 30 s of the race (3,600 / 30 = 120)
    assert (status, body) == (200, {"accepted": 1000, "duplicates": 0, "rejected": []})
    assert writes(requests) <= HOUR // 30
    # in one read of the gate, the entry and its chunks (122 keys: two BatchGetItems of up to 100)
    assert [op for op in operations(requests) if op not in WRITE_OPERATIONS] == ["BatchGetItem", "BatchGetItem"]
    assert stored_points(hour_race, "r1") == sum(output(s["cadence"], s["resistance"]) for s in SPREAD)


def test_the_same_batch_sent_again_is_all_duplicates_and_makes_no_write_request(api, hour_race, requests):
    # Given the racer's spread batch, counted
    assert post(api, hour_race, SPREAD)[1]["accepted"] == 1000
    points = stored_points(hour_race, "r1")
    requests.clear()
    # When the very same batch is sent again, twice
    for _ in range(2):
        status, body = post(api, hour_race, SPREAD)
        # Then it is all duplicates, as the contract says
        assert (status, body) == (200, {"accepted": 0, "duplicates": 1000, "rejected": []})
    # and cost reads alone: no write request at all, the score untouched
    assert writes(requests) == 0 and set(operations(requests)) == {"BatchGetItem"}
    assert stored_points(hour_race, "r1") == points


def test_a_retry_under_its_idempotency_key_answers_the_first_counts_with_no_write(api, hour_race, requests):
    batch = [sample("r1", s) for s in (5, 6, 40, 41, 900)]
    first = post(api, hour_race, batch, key="tick-1")
    assert first == (200, {"accepted": 5, "duplicates": 0, "rejected": []})
    requests.clear()
    assert post(api, hour_race, batch, key="tick-1") == first
    assert writes(requests) == 0


def test_an_overlapping_batch_writes_only_the_chunks_that_gain_a_second(api, hour_race, requests):
    # Given the race's first minute, counted
    minute = [sample("r1", s) for s in range(60)]
    assert post(api, hour_race, minute)[1]["accepted"] == 60
    requests.clear()
    # When a batch sends that minute again with two new seconds ten minutes in
    status, body = post(api, hour_race, minute + [sample("r1", 600), sample("r1", 601)])
    # Then the minute is duplicates and one write stores the two seconds (both in one 30-s chunk)
    assert (status, body) == (200, {"accepted": 2, "duplicates": 60, "rejected": []})
    assert writes(requests) == 1
    assert stored_points(hour_race, "r1") == 62 * output(80, 50)


def test_a_batch_of_seconds_beyond_any_race_is_400_before_reading_a_chunk_for_them(api, hour_race, requests):
    far = [sample("r1", 10**9 + s) for s in range(0, 30_000, 30)]
    status, body = post(api, hour_race, far)
    assert status == 400 and "second" in body["message"]
    read = [params for operation, params in requests if operation == "BatchGetItem"]
    assert len(read) == 1 and sum(len(wanted["Keys"]) for wanted in read[0]["RequestItems"].values()) == 2
    assert writes(requests) == 0


def test_a_keyed_bikes_second_costs_what_an_unkeyed_one_does_and_its_key_reused_one_refused_write(api, hour_race, requests):
    # The site and the simulator send every second with a key of its own: still the one read of two keys, one write
    assert post(api, hour_race, [sample("r1", 5)], key="s-5") == (200, {"accepted": 1, "duplicates": 0, "rejected": []})
    assert operations(requests) == ["BatchGetItem", "UpdateItem"]
    [read] = [params for operation, params in requests if operation == "BatchGetItem"]
    assert sum(len(wanted["Keys"]) for wanted in read["RequestItems"].values()) == 2
    requests.clear()
    # A client that sends its next second under the same key gets the contract's 422, from the write's condition
    status, body = post(api, hour_race, [sample("r1", 6)], key="s-5")
    assert status == 422 and "Idempotency-Key" in body["message"]
    assert operations(requests) == ["BatchGetItem", "UpdateItem"]
    assert stored_points(hour_race, "r1") == output(80, 50)
