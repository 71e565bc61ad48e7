"""A 3,600-second race: no item near 400 KB, and history identical after compaction.

On the chunk path (``ALLEYCAT_FAN_IN=off``): telemetry writes the racers' chunks itself, so an hour of them is
written in seconds with no stream. With the fan-in on the history writer writes the same chunks through the same
write (``racers.add_samples``), from the second blocks (tests/integration/test_stream_processor.py); read back
from a stream of an hour's blocks, these two took 69 s against 22 s.
"""

import random

import pytest

from alleycat import settings
from alleycat.storage import entities as e
from alleycat.storage import keys, racers, races, sizing
from alleycat.stream import history

from .conftest import ADMIN, TABLE

ITEM_LIMIT = 400 * 1024


@pytest.fixture(autouse=True)
def chunk_path(monkeypatch):
    monkeypatch.setenv(settings.FAN_IN, "off")
    settings.reset()


def partition_items(table, racer_id):
    request = {"TableName": TABLE, "KeyConditionExpression": "PK = :pk",
               "ExpressionAttributeValues": {":pk": {"S": keys.RACER.pk.build({"racerId": racer_id})}}}
    items = []
    while True:
        response = table.query(**request)
        items += response["Items"]
        if "LastEvaluatedKey" not in response:
            return items
        request["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def test_hour_long_race_history_round_trips_in_small_items(api, table):
    # Given a 3,600-second race with one racer sending every second (decimals included)
    api("put_class", body={"name": "Endurance"}, claims=ADMIN)
    api("put_racer", {"racerId": "racer-1"}, body={"name": "One"}, claims=ADMIN)
    race = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 3600}, claims=ADMIN)[1]
    race_id = race["raceId"]
    api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=ADMIN)
    rng = random.Random(3600)
    samples = [{"racerId": "racer-1", "second": s, "cadence": round(rng.uniform(30, 90), 2),
                "resistance": rng.randint(33, 86)} for s in range(3600)]
    # a heart-rate strap for two seconds of every three (contract v1.2: optional, 30-250 bpm)
    heart_rates = {s: rng.randint(90, 190) for s in range(3600) if s % 3}
    samples = [{**sample, "heartRate": heart_rates[sample["second"]]} if sample["second"] in heart_rates else sample
               for sample in samples]
    rng.shuffle(samples)
    for start in range(0, 3600, 1000):
        body = api("post_telemetry", {"raceId": race_id}, body={"samples": samples[start:start + 1000]}, claims=ADMIN)[1]
        assert body["accepted"] == len(samples[start:start + 1000])
    before = api("get_racer_history", {"racerId": "racer-1"}, query={"raceId": race_id})[1]
    assert [row[0] for row in before["races"][0]["samples"]] == list(range(3600))
    assert [row[4] for row in before["races"][0]["samples"]] == [heart_rates.get(s) for s in range(3600)]

    # Then every live chunk stays under 1 KB (each write of it is one write unit), heart rates too
    live = [i for i in partition_items(table, "racer-1") if i["type"]["S"] == "Chunk"]
    assert len(live) == 120
    assert max(sizing.item_size(i) for i in live) <= 1024

    # When the race is compacted
    race_entity = races.get(race_id)
    entry = racers.get_entry(race_id, "racer-1")
    assert history.compact(race_entity, entry).changed is True  # no stream ran here: totals come from the samples
    assert racers.get_entry(race_id, "racer-1").lastSecond == 3599

    # Then history is identical, from six packed parts far under the item limit
    after = api("get_racer_history", {"racerId": "racer-1"}, query={"raceId": race_id})[1]
    assert after == before
    items = partition_items(table, "racer-1")
    packed = [i for i in items if i["type"]["S"] == "PackedChunk"]
    sealed = [i for i in items if i["type"]["S"] == "Chunk"]
    assert len(packed) == 6 and len(sealed) == 120
    # and the live chunks are sealed: no samples left, a bit per packed second kept, a small item each
    assert not [name for i in sealed for name in i if name.startswith("s") and name[1:].isdigit()]
    assert all(int(i["sealed"]["N"]) == 2 ** e.Chunk.SECONDS - 1 for i in sealed)
    assert max(sizing.item_size(i) for i in sealed) < 200
    assert max(sizing.item_size(i) for i in items) < ITEM_LIMIT / 20


def test_history_pages_hold_whole_races(api):
    api("put_class", body={"name": "Sprint"}, claims=ADMIN)
    api("put_racer", {"racerId": "racer-1"}, body={"name": "One"}, claims=ADMIN)
    race_ids = []
    for _ in range(3):
        race_id = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z", "durationSeconds": 1800},
                      claims=ADMIN)[1]["raceId"]
        api("join_race", {"raceId": race_id, "racerId": "racer-1"}, claims=ADMIN)
        samples = [{"racerId": "racer-1", "second": s, "cadence": 60, "resistance": 50} for s in range(0, 1800, 1)]
        for start in range(0, 1800, 1000):
            api("post_telemetry", {"raceId": race_id}, body={"samples": samples[start:start + 1000]}, claims=ADMIN)
        race_ids.append(race_id)
    seen, token = [], None
    while True:
        body = api("get_racer_history", {"racerId": "racer-1"}, query={"nextToken": token} if token else {})[1]
        for race in body["races"]:
            assert len(race["samples"]) == 1800
            seen.append(race["raceId"])
        token = body["nextToken"]
        if not token:
            break
    assert seen == sorted(race_ids, reverse=True)
