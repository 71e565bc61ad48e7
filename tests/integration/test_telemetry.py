"""POST /races/{raceId}/telemetry against DynamoDB Local: validation and exactly-once counting."""

import json
import os
from collections import Counter
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alleycat.clock import epoch
from alleycat.edge import mqtt
from alleycat.rules import scores
from alleycat.rules.telemetry import REUSED_KEY
from alleycat.storage import entities as e
from alleycat.storage import racers
from local import handlers
from local.kinesis import lambda_record

from .conftest import ADMIN, racer_claims
from .faults import throttled

RACERS = ("r1", "r2", "r3")


@pytest.fixture
def race_with_racers(api, race):
    for racer_id in RACERS:
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id.upper()}, claims=ADMIN)
        api("join_race", {"raceId": race["raceId"], "racerId": racer_id}, claims=ADMIN)
    return race


def post(api, race_id, samples, claims=ADMIN):
    return api("post_telemetry", {"raceId": race_id}, body={"samples": samples}, claims=claims)


def sample(racer_id, second, cadence=80, resistance=50, heart_rate=None):
    sent = {"racerId": racer_id, "second": second, "cadence": cadence, "resistance": resistance}
    return sent if heart_rate is None else {**sent, "heartRate": heart_rate}


def stored_points(race_id, racer_id):
    return sum((chunk.points for chunk in racers.chunks_of(race_id, racer_id) if isinstance(chunk, e.Chunk)),
               Decimal(0))


@pytest.mark.parametrize("samples, fragment", [
    ([], "samples"),
    ([sample("r1", 300)], "second"),
    ([sample("r1", -1)], "second"),
    ([sample("r1", 1.5)], "second"),
    ([sample("r1", 1, cadence=300.5)], "cadence"),
    ([sample("r1", 1, resistance=-0.1)], "resistance"),
    ([{"racerId": "r1", "second": 1, "cadence": 80}], "resistance"),
    # contract v1.2: heartRate, when sent, is bpm from 30 to 250
    ([sample("r1", 1, heart_rate=29)], "heartRate must be bigger than or equal to 30"),
    ([sample("r1", 1, heart_rate=250.5)], "heartRate must be smaller than or equal to 250"),
    ([sample("r1", 1, heart_rate="72")], "heartRate must be number"),
    ([sample("r1", 1, heart_rate=True)], "heartRate must be number"),
    ([sample("bad id", 1)], "racerId"),
    ([sample("r1", s % 300) for s in range(1001)], "samples"),
])
def test_invalid_batches_are_400_and_write_nothing(api, race_with_racers, samples, fragment):
    race_id = race_with_racers["raceId"]
    status, body = post(api, race_id, [sample("r2", 0)] + samples if samples else samples)
    assert status == 400 and fragment in body["message"]
    assert stored_points(race_id, "r2") == 0


def test_samples_of_another_racer_are_403_and_write_nothing(api, race_with_racers):
    race_id = race_with_racers["raceId"]
    status, _ = post(api, race_id, [sample("r1", 0), sample("r2", 0)], claims=racer_claims("r1"))
    assert status == 403 and stored_points(race_id, "r1") == 0
    assert post(api, race_id, [sample("r1", 0)], claims=racer_claims("r1"))[1]["accepted"] == 1


def test_unknown_race_is_404_and_anonymous_is_401(api, race_with_racers):
    assert post(api, "01JD5Z6Q8X000000000000000Z", [sample("r1", 0)])[0] == 404
    assert post(api, race_with_racers["raceId"], [sample("r1", 0)], claims=None)[0] == 401


def test_racers_not_joined_are_rejected_and_the_rest_applied(api, race_with_racers):
    status, body = post(api, race_with_racers["raceId"], [sample("r1", 0), sample("ghost", 3)])
    assert status == 200
    assert body == {"accepted": 1, "duplicates": 0,
                    "rejected": [{"racerId": "ghost", "second": 3, "reason": "racer has not joined this race"}]}


def test_finished_race_takes_no_telemetry(api, race_with_racers):
    race_id = race_with_racers["raceId"]
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN) == (200, {"raceId": race_id, "status": "finished"})
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    assert post(api, race_id, [sample("r1", 0)])[0] == 409
    assert api("finish_race", {"raceId": race_id}, claims=racer_claims("r1"))[0] == 403


samples_strategy = st.builds(
    sample,
    st.sampled_from(RACERS),
    st.integers(min_value=0, max_value=130),  # crosses chunk boundaries, collides often
    st.integers(min_value=0, max_value=300) | st.decimals(min_value=0, max_value=300, places=2),
    st.integers(min_value=0, max_value=100) | st.decimals(min_value=0, max_value=100, places=3),
    st.none() | st.integers(min_value=30, max_value=250),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=st.lists(st.lists(samples_strategy, min_size=1, max_size=60), min_size=1, max_size=5))
def test_every_sample_counts_exactly_once(api, race_with_racers, batches, chunk_path):
    # Given a fresh race and random batches with repeats, conflicting re-sends and gaps
    status, race = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)
    race_id = race["raceId"]
    for racer_id in RACERS:
        api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=ADMIN)
    batches = [[{**s, "cadence": float(s["cadence"]) if isinstance(s["cadence"], Decimal) else s["cadence"],
                 "resistance": float(s["resistance"]) if isinstance(s["resistance"], Decimal) else s["resistance"]}
                for s in batch] for batch in batches]
    # When each batch is posted, twice over for the first (a retried request)
    first_value = {}
    for batch in [batches[0]] + batches:
        status, body = post(api, race_id, batch)
        counts = Counter()
        for s in batch:
            key = (s["racerId"], s["second"])
            counts["duplicates" if key in first_value else "accepted"] += 1
            first_value.setdefault(key, (s["cadence"], s["resistance"], s.get("heartRate")))
        # Then each response counts as an independent first-value-wins ledger does
        assert (status, body) == (200, {"accepted": counts["accepted"], "duplicates": counts["duplicates"],
                                        "rejected": []})
    expected = {r: sum((scores.output(Decimal(str(c)), Decimal(str(res))) for (who, _), (c, res, _) in first_value.items()
                        if who == r), Decimal(0)) for r in RACERS}
    for racer_id in RACERS:
        assert stored_points(race_id, racer_id) == expected[racer_id]
        history = api("get_racer_history", {"racerId": racer_id}, query={"raceId": race_id})[1]["races"][0]["samples"]
        mine = sorted((sec, v) for (who, sec), v in first_value.items() if who == racer_id)
        assert [row[0] for row in history] == [sec for sec, _ in mine]
        assert [(Decimal(str(row[1])), Decimal(str(row[2])), row[4]) for row in history] == \
            [(Decimal(str(c)), Decimal(str(res)), heart_rate) for _, (c, res, heart_rate) in mine]


def test_response_counts_follow_the_ledger(api, race_with_racers, chunk_path):
    race_id = race_with_racers["raceId"]
    first = post(api, race_id, [sample("r1", 5), sample("r1", 6), sample("r1", 5, cadence=1)])[1]
    second = post(api, race_id, [sample("r1", 6, cadence=2), sample("r1", 7)])[1]
    assert (first["accepted"], first["duplicates"]) == (2, 1)
    assert (second["accepted"], second["duplicates"]) == (1, 1)
    assert stored_points(race_id, "r1") == 3 * scores.output(80, 50)


def test_telemetry_right_after_finish_is_409_while_eventual_reads_still_say_open(api, race_with_racers, faults):
    # Given an open race as an eventually consistent read may still show it for a moment after finish
    from alleycat.storage import dynamo, keys
    race_id = race_with_racers["raceId"]
    partition = keys.RACE.pk.build({"raceId": race_id})
    stale = dynamo.client().query(TableName=dynamo.table_name(), KeyConditionExpression="PK = :p AND begins_with(SK, :c)",
                                  ExpressionAttributeValues={":p": {"S": partition}, ":c": {"S": "CLASS#"}})
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    faults.answer("Query", lambda _: stale, when=lambda params: not params.get("ConsistentRead")
                  and params["ExpressionAttributeValues"][":partition"]["S"] == partition)
    assert api("get_race", {"raceId": race_id})[1]["status"] == "open"  # the lag is in place
    # When a racer sends a sample right after the finish
    status, body = post(api, race_id, [sample("r1", 3)])
    # Then it is refused and nothing is stored
    assert status == 409 and "finished" in body["message"]
    assert stored_points(race_id, "r1") == 0


def test_a_retry_of_a_batch_with_its_idempotency_key_answers_what_the_first_attempt_did(api, race_with_racers, chunk_path):
    from local import handlers
    from local.events import sample_event, with_header
    race_id = race_with_racers["raceId"]
    post(api, race_id, [sample("r2", 1)])
    batch = [sample("r1", 5), sample("r1", 6), sample("r1", 5, cadence=1), sample("r2", 1), sample("r2", 70)]

    def post_with_key(key):
        event = sample_event("post_telemetry", {"raceId": race_id}, {"samples": batch}, claims=ADMIN)
        with_header(event, "Idempotency-Key", key)
        response = handlers.invoke("post_telemetry", event)
        return response["statusCode"], json.loads(response["body"])

    # Given a batch whose answer the client never got
    first = post_with_key("tick-42")
    assert first == (200, {"accepted": 3, "duplicates": 2, "rejected": []})
    # When the client retries it with the same Idempotency-Key
    # Then it gets the same answer, and nothing is stored twice
    assert post_with_key("tick-42") == first
    assert stored_points(race_id, "r1") == 2 * scores.output(80, 50)
    # while the same samples sent as another request (or without a key) are duplicates, as the contract says
    assert post_with_key("tick-43")[1] == {"accepted": 0, "duplicates": 5, "rejected": []}
    assert post(api, race_id, batch)[1] == {"accepted": 0, "duplicates": 5, "rejected": []}


def post_keyed(api, race_id, samples, key, claims=ADMIN, device=None):
    body = {"samples": samples, **({"device": device} if device else {})}
    return api("post_telemetry", {"raceId": race_id}, body=body, claims=claims, headers={"Idempotency-Key": key})


def stored_seconds(race_id, racer_id):
    return sorted(second for chunk in racers.chunks_of(race_id, racer_id) if isinstance(chunk, e.Chunk)
                  for second in chunk.samples)


REUSED = {  # the first request's samples, then another body sent under its key (what makes two bodies the
    # same or not, sample by sample: tests/unit/test_telemetry_rules.py)
    "a bike's next second": ([sample("r1", 5)], [sample("r1", 6)]),
    "the same second, another cadence": ([sample("r1", 5)], [sample("r1", 5, cadence=99)]),
    "fewer seconds": ([sample("r1", 5), sample("r1", 6)], [sample("r1", 5)]),
    "over two chunks, one shared": ([sample("r1", 5), sample("r1", 35)], [sample("r1", 35), sample("r1", 65)]),
    "another racer beside": ([sample("r1", 5)], [sample("r1", 5), sample("r2", 5)]),
    "the same samples in another order": ([sample("r1", 5), sample("r1", 6)], [sample("r1", 6), sample("r1", 5)]),
}


@pytest.mark.parametrize("first, again", REUSED.values(), ids=REUSED)
def test_an_idempotency_key_reused_with_another_body_is_422_and_writes_nothing(api, race_with_racers, first, again):
    race_id = race_with_racers["raceId"]
    # Given a request answered under a key
    answer = post_keyed(api, race_id, first, "tick-7")
    assert answer == (200, {"accepted": len(first), "duplicates": 0, "rejected": []})
    stored = {racer_id: stored_seconds(race_id, racer_id) for racer_id in RACERS}
    # When another body is sent under that key (contract: 422, and the first request's effect stands)
    status, body = post_keyed(api, race_id, again, "tick-7")
    assert (status, body["message"]) == (422, "this Idempotency-Key was sent before with another body: its first "
                                              "request's samples stand; send new samples under a new key")
    assert {racer_id: stored_seconds(race_id, racer_id) for racer_id in RACERS} == stored
    # while the first body again still answers what it answered first, and a new key takes the new body
    assert post_keyed(api, race_id, first, "tick-7") == answer
    new = {(s["racerId"], s["second"]) for s in again} - {(s["racerId"], s["second"]) for s in first}
    assert post_keyed(api, race_id, again, "tick-8")[1]["accepted"] == len(new)


def test_a_retry_of_a_request_that_partly_applied_answers_as_the_first_would_have(api, race_with_racers, faults, chunk_path):
    from .faults import throttled

    race_id = race_with_racers["raceId"]
    batch = [sample("r1", 5), sample("r1", 35), sample("r1", 36), sample("r2", 5)]
    # Given a request over three chunks whose write of r1's second chunk failed (after the others' went through)
    faults.fail("UpdateItem", throttled("UpdateItem", "InternalServerError"),
                when=lambda params: params["Key"]["SK"]["S"].endswith("#r1#001"))
    status, _ = post_keyed(api, race_id, batch, "tick-9")
    assert status >= 500 and stored_seconds(race_id, "r2") == [5]
    faults.clear()
    # When the client retries it under its key / Then it answers what the first attempt would have
    assert post_keyed(api, race_id, batch, "tick-9") == (200, {"accepted": 4, "duplicates": 0, "rejected": []})
    assert post_keyed(api, race_id, batch, "tick-9") == (200, {"accepted": 4, "duplicates": 0, "rejected": []})
    assert stored_seconds(race_id, "r1") == [5, 35, 36]
    # and another body under that key is still refused
    assert post_keyed(api, race_id, batch[:2], "tick-9")[0] == 422


def test_a_bikes_sample_is_one_read_outside_the_race_partition_and_one_write(api, race_with_racers, chunk_path):
    # Given a racer in an open race
    from alleycat.storage import keys

    from .faults import Writes
    race_id = race_with_racers["raceId"]
    requests = Writes(operations=None)
    try:
        # When their bike posts one sample
        status, body = post(api, race_id, [sample("r1", 0)], claims=racer_claims("r1"))
    finally:
        requests.close()
    # Then it is accepted with one BatchGetItem (a gate copy and the entry) and one UpdateItem
    assert (status, body["accepted"]) == (200, 1)
    assert [operation for operation, _ in requests.calls] == ["BatchGetItem", "UpdateItem"]
    read = requests.calls[0][1]["RequestItems"]
    partitions = {key["PK"]["S"] for wanted in read.values() for key in wanted["Keys"]}
    assert all(wanted["ConsistentRead"] for wanted in read.values())
    # and no request touched the race's partition, which serves the leaderboard's viewers
    assert keys.RACE.pk.build({"raceId": race_id}) not in partitions
    assert partitions == {keys.RACE_GATE.pk.build({"raceId": race_id, "copy": e.RaceGate.copy_for("r1")}),
                          keys.RACER.pk.build({"racerId": "r1"})}


def test_after_finish_every_gate_copy_refuses_telemetry(api, race_with_racers):
    # Given a finished race
    race_id = race_with_racers["raceId"]
    assert api("finish_race", {"raceId": race_id}, claims=ADMIN)[0] == 200
    # When each racer (reading different gate copies) posts a sample
    answers = {post(api, race_id, [sample(racer_id, 1)], claims=racer_claims(racer_id))[0] for racer_id in RACERS}
    # Then each gets 409
    assert answers == {409}
    assert len({e.RaceGate.copy_for(racer_id) for racer_id in RACERS}) > 1


# --- the telemetry log's consumer (functions/ingest_telemetry): Kinesis records as the topic rule puts them,
# counted on the rules engine's clock, dropped when they count nothing, failed (and retried by Lambda) on a throttle

START = epoch("2026-11-22T10:00:00Z")


def mqtt_topic(race_id, racer_id="racer-1"):
    return mqtt.TOPIC.format(raceId=race_id, racerId=racer_id)


def log_records(*messages):
    """(topic, body, arrival) -> Lambda's Kinesis records, sequence numbers 1, 2, ..."""
    made = []
    for number, (published, body, arrival) in enumerate(messages, 1):
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        data, key = mqtt.rule_record(published, payload, arrival)
        made.append(lambda_record("shardId-000000000000", f"4959{number:056d}", key, data, arrival + 0.05))
    return made


def consume(batch):
    return handlers.invoke("ingest_telemetry", {"Records": batch})["batchItemFailures"]


def logged_seconds(race_id):
    return sorted(second for chunk in racers.chunks_of(race_id, "racer-1") for second in chunk.samples)


def message(*seconds):
    return {"samples": [{"second": second, "cadence": 80, "resistance": 50} for second in seconds]}


def test_records_count_on_their_arrival_and_what_counts_nothing_is_dropped_not_failed(api, race, chunk_path):
    race_id = race["raceId"]
    assert api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 200
    batch = log_records((mqtt_topic(race_id), message(0, 1), START + 2), (mqtt_topic(race_id), b"\xffnot json", START + 2),
                    (mqtt_topic(race_id), message(9), START + 3),       # second 9 had not happened at +3 s
                    (mqtt_topic("nope"), message(2), START + 3), (mqtt_topic(race_id, "racer-2"), message(2), START + 3))
    batch.append({**batch[0], "kinesis": {**batch[0]["kinesis"], "data": "bm90IGEgcmVjb3Jk"}})  # not the rule's
    assert consume(batch) == []
    assert logged_seconds(race_id) == [0, 1]
    # Read again an hour later (a retried batch): judged as when it arrived, counted once.
    assert consume(batch) == []
    assert logged_seconds(race_id) == [0, 1]


def test_a_throttled_record_fails_and_counts_once_retried(api, race, faults, chunk_path):
    race_id = race["raceId"]
    assert api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 200
    batch = log_records((mqtt_topic(race_id), message(0), START + 1), (mqtt_topic(race_id), message(30), START + 40))
    faults.fail("UpdateItem", throttled("UpdateItem"), when=lambda request: request["Key"]["SK"]["S"].endswith("#001"))
    failures = consume(batch)
    assert failures == [{"itemIdentifier": batch[1]["kinesis"]["sequenceNumber"]}]
    assert logged_seconds(race_id) == [0]
    faults.clear()
    assert consume(batch[1:]) == []
    assert logged_seconds(race_id) == [0, 30]


# --- the fan-in's second blocks (storage.blocks): built, not yet on the telemetry path (docs/fan-in.md) ----

def test_a_new_races_slice_count_is_on_the_race_and_every_gate_copy(api, race):
    from alleycat.rules import fanin
    from alleycat.storage import dynamo

    stored = dynamo.get(e.Race, True, raceId=race["raceId"], classId=race["classId"])
    gates = [dynamo.get(e.RaceGate, True, raceId=race["raceId"], copy=copy) for copy in range(e.GATE_COPIES)]
    assert stored.slices == fanin.SLICES
    assert {gate.slices for gate in gates} == {fanin.SLICES}


def test_a_second_block_counts_each_racers_first_value_once_whatever_origin_or_retry(table):
    from alleycat.rules.fanin import Counted, origin_of
    from alleycat.rules.samples import Sample
    from alleycat.storage import blocks, dynamo

    first, later = Sample(80, 50), Sample(Decimal("99.5"), 60, 140, 300)
    record, request = origin_of("shardId-1:4907"), origin_of("req-1")
    tags = [f"{n:03d}" for n in range(150)]  # past one update's racers: two updates
    # Given the log's record counts the first 100 racers' second 12 (its update's answer lost: retried)
    counted = blocks.count("R1", 3, 12, {tag: Counted(first, record) for tag in tags[:100]})
    assert len(counted.counted) == 100 and not counted.retried and not counted.duplicates
    again = blocks.count("R1", 3, 12, {tag: Counted(first, record) for tag in tags[:100]})
    # When an HTTP request then sends every racer's second 12 with other values
    posted = blocks.count("R1", 3, 12, {tag: Counted(later, request) for tag in tags})
    # Then the retry answers what the first attempt counted, and the request counts only the 50 new ones
    assert again.retried == counted.counted and not again.counted and again.accepted == 100
    assert set(posted.counted) == set(tags[100:]) and set(posted.duplicates) == set(tags[:100])
    assert posted.duplicates[tags[0]] == (first, record)
    # And the block holds each racer's first value, with the origin that counted it
    block = dynamo.get(e.SecondBlock, True, raceId="R1", slice=3, second=12)
    assert block.racers[tags[0]] == (first, record) and block.racers[tags[149]] == (later, request)
    assert len(block.racers) == 150


def test_a_slice_board_adds_each_gain_once_across_retries_and_writers(table, faults):
    from alleycat.rules.fanin import Gain, SliceStanding
    from alleycat.storage import blocks, dynamo

    batch = [Gain("b0b", 4, Decimal("1.5"), "101"), Gain("amy", 4, Decimal(2), "102")]
    assert blocks.add_to_board("R1", 3, batch, "shard-1")
    # A retried batch counts nothing twice, an HTTP request's gain counts once
    assert not blocks.add_to_board("R1", 3, batch, "shard-1")
    assert blocks.add_to_board("R1", 3, [Gain("b0b", 5, Decimal(1), "orig")], None)
    assert not blocks.add_to_board("R1", 3, [Gain("b0b", 5, Decimal(1), "orig")], None)
    # When another writer moves the board between this one's read and its write
    moved = []

    def another_writer_first(params):
        if not moved:
            moved.append("cat")
            assert blocks.add_to_board("R1", 3, [Gain("cat", 2, Decimal(7), "9")], "shard-2")
        return False

    faults.fail("UpdateItem", None, when=another_writer_first)
    assert blocks.add_to_board("R1", 3, [Gain("amy", 6, Decimal(1), "103")], "shard-1")
    # Then the write is refused, read again and done: neither writer's seconds are lost
    board = dynamo.get(e.SliceBoard, True, raceId="R1", slice=3)
    assert board.standings == {"b0b": SliceStanding(Decimal("2.5"), 5), "amy": SliceStanding(Decimal(3), 6),
                               "cat": SliceStanding(Decimal(7), 2)}
    assert board.applied == {"shard-1": "103", "shard-2": "9"} and board.recent == ["orig"] and board.version == 4


def test_a_join_claims_a_tag_in_the_racers_slice_and_a_taken_one_moves_to_the_next(api, race):
    from alleycat.rules import fanin
    from alleycat.storage import dynamo

    race_id = race["raceId"]
    racer = "racer-1"
    slice_ = fanin.slice_of(racer, fanin.SLICES)
    first, second = list(fanin.tags_of(racer))[:2]
    # Given another racer of the slice holds the racer's first candidate
    dynamo.send("put_item", Item=e.SliceTag(race_id, slice_, first, "someone-else").to_item())
    # When the racer joins, twice
    assert api("join_race", {"raceId": race_id, "racerId": racer}, claims=ADMIN)[0] == 200
    assert api("join_race", {"raceId": race_id, "racerId": racer}, claims=ADMIN)[0] == 200
    # Then their entry keeps the second candidate, claimed for them alone
    assert racers.get_entry(race_id, racer, consistent=True).tag == second
    assert dynamo.get(e.SliceTag, True, raceId=race_id, slice=slice_, tag=second).racerId == racer
    assert dynamo.get(e.SliceTag, True, raceId=race_id, slice=slice_, tag=first).racerId == "someone-else"


# --- the fan-in on (settings.FAN_IN): both transports count through the blocks and the slice boards -------

@pytest.fixture
def fan_in(monkeypatch):
    from alleycat import settings

    monkeypatch.setenv(settings.FAN_IN, "on")
    settings.reset()
    yield
    settings.reset()


def slice_standing(race_id, racer_id):
    """The racer's row on their slice's board (None: none), found by their entry's tag."""
    from alleycat.rules import fanin
    from alleycat.storage import dynamo

    tag = racers.get_entry(race_id, racer_id, consistent=True).tag
    board = dynamo.get(e.SliceBoard, True, raceId=race_id, slice=fanin.slice_of(racer_id, fanin.SLICES))
    return None if board is None else board.standings.get(tag)


def answers_of_the_telemetry_route(api, race_id):
    """The route's answers to batches that meet each of its checks, the same samples sent again, and a key."""
    batch = [sample("r1", 0), sample("r1", 0), sample("r2", 1, heart_rate=140), sample("nobody", 1)]
    return [post(api, race_id, batch), post(api, race_id, batch),
            api("post_telemetry", {"raceId": race_id}, body={"samples": [sample("r1", 9)]}, claims=ADMIN,
                at="2026-11-22T10:00:03Z"),
            post_keyed(api, race_id, [sample("r3", 5), sample("r3", 6), sample("r1", 0)], "tick-1"),
            post_keyed(api, race_id, [sample("r3", 5), sample("r3", 6), sample("r1", 0)], "tick-1"),
            post_keyed(api, race_id, [sample("r3", 5, cadence=99)], "tick-1"),
            post(api, race_id, [sample("r1", 300)])]


def test_the_routes_answers_are_the_same_through_the_blocks_and_a_reused_key_writes_nothing(api, race_with_racers, monkeypatch):
    from alleycat import settings

    from .faults import Writes

    race_id = race_with_racers["raceId"]
    through_chunks = answers_of_the_telemetry_route(api, race_id)
    # Given the same racers in another race, the fan-in on
    monkeypatch.setenv(settings.FAN_IN, "on")
    settings.reset()
    try:
        status, other = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)
        for racer_id in RACERS:
            api("join_race", {"raceId": other["raceId"], "racerId": racer_id}, claims=ADMIN)
        # When the same requests are sent / Then each is answered as through the chunks
        assert answers_of_the_telemetry_route(api, other["raceId"]) == through_chunks
        assert [answer[0] for answer in through_chunks] == [200, 200, 200, 200, 200, 422, 400]
        assert stored_seconds(other["raceId"], "r1") == []  # no chunk written
        one = scores.output(80, 50)
        assert slice_standing(other["raceId"], "r1") == (one, 0)
        assert slice_standing(other["raceId"], "r3") == (2 * one, 6)
        assert slice_standing(other["raceId"], "r2") == (scores.output(80, 50), 1)
        # When a key comes again with a body of seconds none counted yet
        writes = Writes()
        try:
            status, body = post_keyed(api, other["raceId"], [sample("r1", 7), sample("r2", 7)], "tick-1")
        finally:
            writes.close()
        # Then it is the contract's 422, and only the key's record was tried (no block, no board)
        assert (status, body) == (422, {"message": REUSED_KEY})
        assert [call[1]["Key"]["PK"]["S"][:5] for call in writes.calls] == ["TREQ#"]
        assert (slice_standing(other["raceId"], "r1"), slice_standing(other["raceId"], "r2")) == ((one, 0), (one, 1))
        # And another caller's key of that name is their own
        assert post_keyed(api, other["raceId"], [sample("r2", 7)], "tick-1", claims=racer_claims("r2"))[0] == 200
    finally:
        settings.reset()


def joined_racers(api, race_id, count):
    """Racers racer-1 … racer-<count>, each named and joined to the race by themselves."""
    racer_ids = [f"racer-{n}" for n in range(1, count + 1)]
    for racer_id in racer_ids:
        api("put_racer", {"racerId": racer_id}, body={"name": racer_id}, claims=ADMIN)
        assert api("join_race", {"raceId": race_id, "racerId": racer_id}, claims=racer_claims(racer_id))[0] == 200
    return racer_ids


def test_a_log_batch_is_one_block_update_a_slice_second_one_board_write_a_slice_and_counts_once(api, race, faults, fan_in):
    from alleycat.rules import fanin

    from .faults import Writes
    race_id = race["raceId"]
    racer_ids = joined_racers(api, race_id, 4)
    batch = log_records(*[(mqtt_topic(race_id, racer_id), message(0, 1), START + 2) for racer_id in racer_ids],
                        (mqtt_topic(race_id), message(1, 9), START + 3),  # second 1 again, second 9 not yet
                        (mqtt_topic(race_id), b"\xffnot json", START + 3))
    slices = {fanin.slice_of(racer_id, fanin.SLICES) for racer_id in racer_ids}
    writes = Writes()
    try:
        # Given one of the batch's board writes fails (a throttle after the blocks were written)
        faults.fail("UpdateItem", throttled("UpdateItem"), times=1,
                    when=lambda params: params["Key"]["SK"]["S"].startswith("BOARD#"))
        assert consume(batch) == [{"itemIdentifier": batch[0]["kinesis"]["sequenceNumber"]}]
        # Then that was one update a (slice, second) and one board write a slice (the refused one the fault's)
        assert len(writes.calls) + len(faults.injected) == 3 * len(slices)
        assert len([call for call in writes.calls if call[1]["Key"]["SK"]["S"].startswith("BOARD#")]) == len(slices) - 1
        # When Lambda sends the batch again, twice (the second time after it was counted)
        assert consume(batch) == []
        writes.calls.clear()
        assert consume(batch) == []
    finally:
        writes.close()
    # Then a batch the boards hold writes them no more, and each second counted once
    assert [call[1]["Key"]["SK"]["S"][:7] for call in writes.calls] == ["SECOND#"] * 2 * len(slices)
    one = scores.output(80, 50)
    assert {racer_id: slice_standing(race_id, racer_id) for racer_id in racer_ids} == {
        racer_id: (2 * one, 1) for racer_id in racer_ids}
    assert stored_seconds(race_id, "racer-1") == []


def test_a_log_batch_reads_its_slices_rosters_not_its_racers_entries_and_a_takeover_refuses_the_old_device(api, race, faults, fan_in):
    from alleycat.rules import fanin
    from alleycat.storage import blocks

    from .faults import Writes
    race_id = race["raceId"]
    racer_ids = joined_racers(api, race_id, 8)
    slices = {fanin.slice_of(racer_id, fanin.SLICES) for racer_id in racer_ids}
    sent = lambda second, device, racer_id: (mqtt_topic(race_id, racer_id), {**message(second), "device": device}, START + 5)
    records = log_records(*[sent(0, "tab-1", racer_id) for racer_id in racer_ids],  # sequence numbers in order
                          sent(1, "tab-1", "racer-1"), sent(1, "tab-1", "racer-2"), sent(2, "phone-2", "racer-1"))
    # Given each racer's first message names a device (the first to send takes the ride), and a claim is cut short
    # before the slice's roster names its device (the batch is sent again)
    faults.fail("UpdateItem", throttled("UpdateItem"), times=1, when=lambda params: params["Key"]["SK"]["S"].startswith("TAG#"))
    assert consume(records[:len(racer_ids)]) == [{"itemIdentifier": records[0]["kinesis"]["sequenceNumber"]}]
    reads = Writes(("GetItem", "BatchGetItem", "Query"))
    try:
        assert consume(records[:len(racer_ids)]) == []
        # Then the batch read the race's gate and each of its slices' rosters once (and boards), no racer's entry
        assert sorted((op, params["Key"]["SK"]["S"][:5] if op == "GetItem" else params["KeyConditionExpression"][:5])
                      for op, params in reads.calls) == sorted(
            [("GetItem", "GATE#")] + [("GetItem", "BOARD")] * len(slices) + [("Query", "PK = ")] * len(slices))
    finally:
        reads.close()
    # When racer-1 joins again from another device (acknowledged), the old device's next second counts nothing
    assert api("join_race", {"raceId": race_id, "racerId": "racer-1"}, body={"equipment": "trainer", "device": "phone-2"},
               claims=racer_claims("racer-1"))[0] == 200
    assert consume(records[len(racer_ids):-1]) == []
    assert consume(records[-1:]) == []
    one = scores.output(80, 50)
    assert slice_standing(race_id, "racer-1") == (2 * one, 2)  # seconds 0 (tab-1's) and 2 (phone-2's)
    assert slice_standing(race_id, "racer-2") == (2 * one, 1)
    assert racers.get_entry(race_id, "racer-1", consistent=True).device == "phone-2"
    rostered = {tag.racerId: tag.device for slice_ in slices for tag in blocks.roster(race_id, slice_)}
    assert rostered == {**dict.fromkeys(racer_ids, "tab-1"), "racer-1": "phone-2"}


def test_the_bench_audiences_table_probe_reads_the_board_the_route_reads(api, race_with_racers, server, dynamodb_local,
                                                                           monkeypatch):
    from simulator.audience import _table_reader

    from .conftest import process

    # Given the racers rostered, and seconds counted through the blocks into the slice boards (the fan-in, the
    # default: no board shard holds them)
    race_id = race_with_racers["raceId"]
    assert process(server.read()) == {"batchItemFailures": []}
    assert post(api, race_id, [sample("r1", 0), sample("r1", 1), sample("r3", 4)])[0] == 200
    # When the bench's probe reads the board straight from the table (it points its process's layer there)
    for name in ("TABLE_NAME", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.setenv(name, os.environ[name])
    read = _table_reader(race_id, f"{dynamodb_local.url} {os.environ['TABLE_NAME']}")
    # Then it shows what the route shows: each racer's last second, from their slice's board
    shown = {row["racerId"]: row["lastSecond"] for row in read()}
    routed = api("get_race_leaderboard", {"raceId": race_id}, query={"limit": "1000"})[1]["items"]
    assert shown == {row["racerId"]: row["lastSecond"] for row in routed} == {"r1": 1, "r2": None, "r3": 4}
