"""The local telemetry log (local/kinesis.py): kinesalite spoken to with boto3's Kinesis client, and the event
source mapping's semantics as AWS documents them for Kinesis: per shard and partition key in order, batch
size, ``batchItemFailures`` checkpointing at the first failed record, bisection on a function error (not a
retry), the on-failure destination after the retries."""

import base64
import hashlib
import itertools
import json

import pytest

from alleycat.edge import mqtt
from local.kinesis import EmbeddedKinesis, KinesisMapping

names = itertools.count()


@pytest.fixture(scope="module")
def engine():
    started = EmbeddedKinesis().start()
    yield started
    started.stop()


@pytest.fixture
def stream(engine):
    name = f"log-{next(names)}"
    engine.create_stream(name, shards=2)
    return engine.client(), name


class Consumer:
    """Stands in for the function: records each batch's messages; fails what ``fail`` says, raises on ``raise_on``."""

    def __init__(self, fail=(), raise_on=()):
        self.batches: list[list[str]] = []
        self.fail, self.raise_on = set(fail), set(raise_on)

    def __call__(self, event):
        messages = [base64.b64decode(record["kinesis"]["data"]).decode() for record in event["Records"]]
        self.batches.append(messages)
        if self.raise_on & set(messages):
            raise RuntimeError("the function failed")
        failed = [record for record, message in zip(event["Records"], messages, strict=True) if message in self.fail]
        self.fail -= set(messages)  # each fails once
        return {"batchItemFailures": [{"itemIdentifier": record["kinesis"]["sequenceNumber"]} for record in failed]}


def put(client, name, key, *messages):
    for message in messages:
        client.put_record(StreamName=name, Data=message.encode(), PartitionKey=key)


def drain(mapping):
    while mapping.poll_once():
        pass


def test_the_brokers_record_is_the_rules_and_one_racers_messages_stay_in_order_on_one_shard(stream):
    client, name = stream
    topic = mqtt.TOPIC.format(raceId="01JD5Z6Q8X0000000000000000", racerId="amy")
    for second in range(6):
        data, key = mqtt.rule_record(topic, json.dumps({"samples": [{"second": second}]}).encode(), 1795345200 + second)
        client.put_record(StreamName=name, Data=data, PartitionKey=key)
    put(client, name, "01JD5Z6Q8X0000000000000000/bob", *"abcdef")
    events = []
    mapping = KinesisMapping(client, lambda event: events.append(event) or {}, name, batch_size=100, window_seconds=0)
    drain(mapping)
    records = [record for event in events for record in event["Records"]]
    assert key == f"01JD5Z6Q8X0000000000000000/{hashlib.md5(b'amy').hexdigest()[0]}"  # the race and amy's group
    amy = [record for record in records if record["kinesis"]["partitionKey"] == key]
    assert len({record["eventID"].split(":")[0] for record in amy}) == 1  # one shard
    decoded = [mqtt.decode(base64.b64decode(record["kinesis"]["data"])) for record in amy]
    assert [arrival for _, _, arrival in decoded] == [1795345200 + second for second in range(6)]
    assert [json.loads(payload)["samples"][0]["second"] for _, payload, _ in decoded] == list(range(6))
    assert {topic for topic, _, _ in decoded} == {"races/01JD5Z6Q8X0000000000000000/racers/amy/telemetry"}
    assert all(record["eventSourceARN"].endswith(f":stream/{name}") and record["eventSource"] == "aws:kinesis"
               for record in records)
    assert mapping.delivered == 12 and not mapping.dead_letters


def test_batches_checkpoint_at_the_first_failed_record_bisect_on_errors_and_give_up_after_the_retries(stream):
    client, name = stream
    put(client, name, "race/amy", "a1", "a2", "a3", "a4", "a5")
    consumer = Consumer(fail={"a3"})
    mapping = KinesisMapping(client, consumer, name, batch_size=4, window_seconds=0, parallelization=1)
    drain(mapping)
    # a1-a4, a3 failed: a1 and a2 are done, the next batch starts at a3
    assert consumer.batches == [["a1", "a2", "a3", "a4"], ["a3", "a4", "a5"]]

    put(client, name, "race/amy", "b1", "b2", "bad", "b4")
    consumer = Consumer(raise_on={"bad"})
    mapping._invoke, mapping.max_retries = consumer, 2
    drain(mapping)
    # an error halves the batch until the bad record is alone, then it is retried twice and given up
    assert consumer.batches == [["b1", "b2", "bad", "b4"], ["b1", "b2"], ["bad", "b4"], ["bad"],
                                ["bad"], ["bad"], ["b4"]]
    assert [base64.b64decode(record["kinesis"]["data"]) for record in mapping.dead_letters] == [b"bad"]


def test_a_shards_partition_keys_go_to_lanes_each_in_order_one_batch_at_a_time(stream):
    client, name = stream
    keys = [f"race/racer-{n}" for n in range(8)]
    for round_ in range(3):
        for key in keys:
            put(client, name, key, f"{key}#{round_}")
    consumer = Consumer()
    mapping = KinesisMapping(client, consumer, name, batch_size=5, window_seconds=0, parallelization=3)
    drain(mapping)
    assert all(len(batch) <= 5 for batch in consumer.batches)
    seen = [message for batch in consumer.batches for message in batch]
    assert sorted(seen) == sorted(f"{key}#{round_}" for key in keys for round_ in range(3))
    for key in keys:
        assert [message for message in seen if message.startswith(f"{key}#")] == [f"{key}#{n}" for n in range(3)]
    assert len(consumer.batches) > 2 * 3  # two shards, three lanes each


def test_a_put_wakes_the_reader_at_once_unless_the_mapping_polls_as_lambda_polls_a_standard_iterator(stream):
    client, name = stream
    poked, polled = KinesisMapping(client, Consumer(), name), KinesisMapping(client, Consumer(), name, polled=True)
    poked.poke()
    polled.poke()  # read at its next read a second, as in AWS (the bench's freshness: bench/push.py)
    assert poked._wake.is_set() and not polled._wake.is_set()
