"""The local event source mapping (local/streams.py) over a stream with several shards."""

import pytest

from local.streams import StreamPoller, StreamTail

ARN = "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/1"


def record(seq: int, kind: str = "Chunk") -> dict:
    return {"eventID": f"e{seq}", "eventName": "MODIFY", "awsRegion": "us-east-1",
            "dynamodb": {"SequenceNumber": f"{seq:021d}", "Keys": {"PK": {"S": "k"}},
                         "NewImage": {"type": {"S": kind}}}}


class FakeStreams:
    """DynamoDB Streams with fixed shards: {shard: (parent, records, closed)}; 2 records per GetRecords."""

    def __init__(self, shards: dict):
        self.shards = shards
        self.reads: list[str] = []

    def describe_stream(self, StreamArn, ExclusiveStartShardId=None):
        ids = list(self.shards)
        start = ids.index(ExclusiveStartShardId) + 1 if ExclusiveStartShardId else 0
        page = ids[start:start + 2]  # paginated, as a long-lived stream's listing is
        shards = [{"ShardId": s, **({"ParentShardId": self.shards[s][0]} if self.shards[s][0] else {})} for s in page]
        more = {"LastEvaluatedShardId": page[-1]} if start + 2 < len(ids) else {}
        return {"StreamDescription": {"Shards": shards, **more}}

    def get_shard_iterator(self, StreamArn, ShardId, ShardIteratorType, SequenceNumber=None):
        records = self.shards[ShardId][1]
        position = 0 if ShardIteratorType == "TRIM_HORIZON" else next(
            i + 1 for i, r in enumerate(records) if r["dynamodb"]["SequenceNumber"] == SequenceNumber)
        return {"ShardIterator": f"{ShardId}:{position}"}

    def get_records(self, ShardIterator, Limit):
        shard, position = ShardIterator.rsplit(":", 1)
        self.reads.append(shard)
        _, records, closed = self.shards[shard]
        out = records[int(position):int(position) + 2]
        following = int(position) + len(out)
        done = closed and following >= len(records)
        return {"Records": out, **({} if done else {"NextShardIterator": f"{shard}:{following}"})}


def poller(streams, invoke, batch_size=1000, retries=5):
    """A poller driven by hand (``poll_once``), delivering without a batching window."""
    return StreamPoller(StreamTail(streams, ARN), batch_size=batch_size, window_seconds=0, max_retries=retries,
                        invoke=invoke)


def drain(polling, passes=30):
    for _ in range(passes):
        polling.poll_once()


def test_every_shard_is_read_and_a_child_only_after_its_parent_is_read_to_its_end():
    # Given a closed parent shard, its child, and an unrelated open shard
    streams = FakeStreams({
        "parent": (None, [record(1), record(2), record(3)], True),
        "child": ("parent", [record(4), record(5)], False),
        "other": (None, [record(10), record(11)], False),
    })
    delivered = []
    polling = poller(streams, lambda event: delivered.append([r["dynamodb"]["SequenceNumber"] for r in event["Records"]]))
    # When the poller runs
    drain(polling)
    # Then every record arrives once, in order within its shard, the child after the whole parent
    flat = [int(s) for batch in delivered for s in batch]
    assert sorted(flat) == [1, 2, 3, 4, 5, 10, 11]
    assert [s for s in flat if s < 10] == [1, 2, 3, 4, 5]
    assert streams.reads.index("child") > max(i for i, s in enumerate(streams.reads) if s == "parent")


def test_records_outside_the_filter_never_reach_the_function():
    streams = FakeStreams({"only": (None, [record(1, "Entry"), record(2), record(3, "RaceBoard")], False)})
    delivered = []
    polling = poller(streams, lambda event: delivered.extend(event["Records"]))
    drain(polling)
    assert [r["dynamodb"]["SequenceNumber"] for r in delivered] == [f"{2:021d}"]


def test_a_reported_failure_is_retried_from_that_record_then_dead_lettered():
    # Given a function that always fails record 2 of a shard
    streams = FakeStreams({"only": (None, [record(1), record(2), record(3)], False)})
    seen = []

    def invoke(event):
        seen.append([int(r["dynamodb"]["SequenceNumber"]) for r in event["Records"]])
        return {"batchItemFailures": [{"itemIdentifier": r["dynamodb"]["SequenceNumber"]}
                                      for r in event["Records"] if int(r["dynamodb"]["SequenceNumber"]) == 2]}

    polling = poller(streams, invoke, retries=2)
    polling._stop.wait = lambda seconds: False  # no backoff sleeps in a unit test
    drain(polling)
    # Then record 1 is done once, record 2 is tried 1 + 2 times, then set aside, and record 3 still arrives
    assert [int(r["dynamodb"]["SequenceNumber"]) for r in polling.dead_letters] == [2]
    assert sum(batch.count(2) for batch in seen) == 3
    assert sum(batch.count(1) for batch in seen) == 1 and any(3 in batch for batch in seen)


@pytest.mark.parametrize("batch_size", [1, 2])
def test_batches_never_exceed_the_mapping_batch_size(batch_size):
    streams = FakeStreams({"only": (None, [record(n) for n in range(1, 8)], False)})
    sizes = []
    polling = poller(streams, lambda event: sizes.append(len(event["Records"])), batch_size=batch_size)
    drain(polling)
    assert sum(sizes) == 7 and max(sizes) <= batch_size
