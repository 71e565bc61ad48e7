"""The telemetry log's consumer (functions/ingest_telemetry) against DynamoDB Local: Kinesis records as the
topic rule puts them, counted on the rules engine's clock, dropped when they count nothing, failed (and
retried by Lambda) on a throttle."""

import json

from alleycat.clock import epoch
from alleycat.edge import mqtt
from alleycat.storage import racers
from local import handlers
from local.kinesis import lambda_record

from .conftest import racer_claims
from .faults import throttled

START = epoch("2026-11-22T10:00:00Z")


def topic(race_id, racer_id="racer-1"):
    return mqtt.TOPIC.format(raceId=race_id, racerId=racer_id)


def records(*messages):
    """(topic, body, arrival) -> Lambda's Kinesis records, sequence numbers 1, 2, ..."""
    made = []
    for number, (published, body, arrival) in enumerate(messages, 1):
        payload = body if isinstance(body, bytes) else json.dumps(body).encode()
        data, key = mqtt.rule_record(published, payload, arrival)
        made.append(lambda_record("shardId-000000000000", f"4959{number:056d}", key, data, arrival + 0.05))
    return made


def consume(batch):
    return handlers.invoke("ingest_telemetry", {"Records": batch})["batchItemFailures"]


def stored(race_id):
    return sorted(second for chunk in racers.chunks_of(race_id, "racer-1") for second in chunk.samples)


def samples(*seconds):
    return {"samples": [{"second": second, "cadence": 80, "resistance": 50} for second in seconds]}


def test_records_count_on_their_arrival_and_what_counts_nothing_is_dropped_not_failed(api, race):
    race_id = race["raceId"]
    assert api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 200
    batch = records((topic(race_id), samples(0, 1), START + 2), (topic(race_id), b"\xffnot json", START + 2),
                    (topic(race_id), samples(9), START + 3),       # second 9 had not happened at +3 s
                    (topic("nope"), samples(2), START + 3), (topic(race_id, "racer-2"), samples(2), START + 3))
    batch.append({**batch[0], "kinesis": {**batch[0]["kinesis"], "data": "bm90IGEgcmVjb3Jk"}})  # not the rule's
    assert consume(batch) == []
    assert stored(race_id) == [0, 1]
    # Read again an hour later (a retried batch): judged as when it arrived, counted once.
    assert consume(batch) == []
    assert stored(race_id) == [0, 1]


def test_a_throttled_record_fails_and_counts_once_retried(api, race, faults):
    race_id = race["raceId"]
    assert api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=racer_claims("racer-1"))[0] == 200
    batch = records((topic(race_id), samples(0), START + 1), (topic(race_id), samples(30), START + 40))
    faults.fail("UpdateItem", throttled("UpdateItem"), when=lambda request: request["Key"]["SK"]["S"].endswith("#001"))
    failures = consume(batch)
    assert failures == [{"itemIdentifier": batch[1]["kinesis"]["sequenceNumber"]}]
    assert stored(race_id) == [0]
    faults.clear()
    assert consume(batch[1:]) == []
    assert stored(race_id) == [0, 30]
