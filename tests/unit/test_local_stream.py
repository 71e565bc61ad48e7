"""The local event source mapping (local/streams.py) over a stream with several shards, read as
several virtual shards (ALLEYCAT_STREAM_SHARDS)."""

import threading
from collections import Counter, defaultdict

import pytest

from local.streams import ShardReader, StreamPoller, StreamTail, history_poller, shard_of, stream_shards
from stacks.settings import HISTORY_BATCHING_WINDOW_SECONDS

ARN = "arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/1"


def record(seq: int, kind: str = "Chunk", key: str = "k") -> dict:
    return {"eventID": f"e{seq}", "eventName": "MODIFY", "awsRegion": "us-east-1",
            "dynamodb": {"SequenceNumber": f"{seq:021d}", "Keys": {"PK": {"S": key}, "SK": {"S": "s"}},
                         "NewImage": {"type": {"S": kind}}}}


class FakeStreams:
    """DynamoDB Streams with fixed shards: {shard: (parent, records, closed)}; ``page`` records per GetRecords."""

    def __init__(self, shards: dict, page: int = 2):
        self.shards, self.page = shards, page
        self.reads: list[str] = []
        self.listings = 0  # DescribeStream calls that started a listing

    def describe_stream(self, StreamArn, ExclusiveStartShardId=None):
        self.listings += not ExclusiveStartShardId
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
        out = records[int(position):int(position) + self.page]
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


def test_a_closed_shard_read_to_its_end_makes_one_listing_not_one_every_read():
    # Given a stream whose first shard closed, listed again only on request (never due by time)
    streams = FakeStreams({"old": (None, [record(1), record(2)], True), "new": ("old", [record(3)], False)})
    tail = StreamTail(streams, ARN, list_every=3600)
    # When it is read until the closed shard is done, then many times more
    for _ in range(3):
        for reader in tail.readable():
            tail.fetch(reader)
    listed_once_done = streams.listings
    for _ in range(20):
        for reader in tail.readable():
            tail.fetch(reader)
    # Then the shard's end caused one listing (its children), and later reads list nothing
    assert listed_once_done == 2
    assert streams.listings == 2


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


def test_a_function_error_halves_the_batch_until_the_record_that_errs_is_alone_then_dead_letters_it_alone():
    # Given a function that raises on any batch holding record 3 (a poison record), as the stack's mapping bisects
    streams = FakeStreams({"only": (None, [record(n) for n in range(1, 7)], False)}, page=6)
    seen = []

    def invoke(event):
        numbers = [int(r["dynamodb"]["SequenceNumber"]) for r in event["Records"]]
        seen.append(numbers)
        if 3 in numbers:
            raise RuntimeError("poison")

    polling = poller(streams, invoke, retries=2)
    polling._stop.wait = lambda seconds: False
    drain(polling)
    # Then the batch was halved (not counted as retries) down to record 3 alone, tried 1 + 2 times, and only it
    # went to dead letters; every other record was handled once
    assert seen[:3] == [[1, 2, 3, 4, 5, 6], [1, 2, 3], [1]]
    assert seen.count([3]) == 3
    assert [int(r["dynamodb"]["SequenceNumber"]) for r in polling.dead_letters] == [3]
    assert sorted(n for batch in seen if 3 not in batch for n in batch) == [1, 2, 4, 5, 6]


def test_a_batch_whose_worker_died_is_delivered_again_and_nothing_goes_to_dead_letters():
    # Given a function whose first invocation dies (a worker killed: the runtime raises WorkerDied)
    from local.runtime import WorkerDied

    streams = FakeStreams({"only": (None, [record(n) for n in range(1, 5)], False)}, page=4)
    handled: list[int] = []
    crashed = []

    def invoke(event):
        if not crashed:
            crashed.append(True)
            raise WorkerDied("worker exited")
        handled.extend(int(r["dynamodb"]["SequenceNumber"]) for r in event["Records"])

    polling = poller(streams, invoke, retries=1)
    polling._stop.wait = lambda seconds: False
    drain(polling)
    # Then every record was handled once after the crash, none given up
    assert sorted(handled) == [1, 2, 3, 4] and not polling.dead_letters


@pytest.mark.parametrize("batch_size", [1, 2])
def test_batches_never_exceed_the_mapping_batch_size(batch_size):
    streams = FakeStreams({"only": (None, [record(n) for n in range(1, 8)], False)})
    sizes = []
    polling = poller(streams, lambda event: sizes.append(len(event["Records"])), batch_size=batch_size)
    drain(polling)
    assert sum(sizes) == 7 and max(sizes) <= batch_size


# Virtual shards: ALLEYCAT_STREAM_SHARDS

WAIT = 5  # seconds: the longest a test waits for a condition, never the time it takes


@pytest.mark.parametrize("value, shards", [(None, 1), ("1", 1), ("4", 4)])
def test_the_number_of_shards_comes_from_the_environment(value, shards):
    assert stream_shards({} if value is None else {"ALLEYCAT_STREAM_SHARDS": value}) == shards


@pytest.mark.parametrize("value", ["0", "-1", "x", "", "2.5"])
def test_a_bad_number_of_shards_says_what_is_wrong(value):
    with pytest.raises(ValueError, match="ALLEYCAT_STREAM_SHARDS must be a whole number"):
        stream_shards({"ALLEYCAT_STREAM_SHARDS": value})


def keys_of_shard(shard: int, shards: int, count: int) -> list[str]:
    keys = (f"RACE#{n}" for n in range(10_000))
    return [key for key in keys if shard_of(record(0, key=key), shards) == shard][:count]


def keyed_records(keys: list[str], per_key: int) -> list[dict]:
    """``per_key`` records of each key, the keys interleaved: sequence numbers 1, 2, ..."""
    return [record(1 + n * len(keys) + i, key=key) for n in range(per_key) for i, key in enumerate(keys)]


def number(lambda_record: dict) -> int:
    return int(lambda_record["dynamodb"]["SequenceNumber"])


def key(lambda_record: dict) -> str:
    return lambda_record["dynamodb"]["Keys"]["PK"]["S"]


class Recorder:
    """A stream function that notes every batch (its thread, its records) and how many run at once;
    ``fail(batch, attempt)`` makes a batch fail, ``hold(batch)`` keeps it running until a condition
    on the recorder holds."""

    def __init__(self, shards: int, fail=None, hold=None):
        self.shards, self.fail, self.hold = shards, fail, hold
        self.changed = threading.Condition()
        self.batches: list[tuple[str, list[dict]]] = []
        self.handled: list[dict] = []  # the records of batches that succeeded
        self.running: Counter = Counter()  # batches running, by the shard of their keys
        self.most_running = 0
        self.most_running_per_shard = 0
        self.held_too_long = False

    def __call__(self, event):
        batch = event["Records"]
        (shard,) = {shard_of(r, self.shards) for r in batch}  # a batch holds the keys of one shard
        with self.changed:
            self.batches.append((threading.current_thread().name, batch))
            attempt = sum(b is not batch and b[0] == batch[0] for _, b in self.batches)
            self.running[shard] += 1
            self.most_running = max(self.most_running, sum(self.running.values()))
            self.most_running_per_shard = max(self.most_running_per_shard, self.running[shard])
            self.changed.notify_all()
            if self.hold and not self.changed.wait_for(lambda: self.hold(self, batch), WAIT):
                self.held_too_long = True
            self.running[shard] -= 1
            if self.fail and self.fail(batch, attempt):
                raise RuntimeError("this batch fails")
            self.handled += batch
            self.changed.notify_all()

    def wait_for_handled(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.handled) >= count, WAIT), len(self.handled)
        assert not self.held_too_long


def started(records, recorder, shards, **options):
    streams = FakeStreams({"only": (None, records, False)}, page=50)
    options = {"batch_size": 10, "window_seconds": 0, "poll_seconds": 0.005, **options}
    return StreamPoller(StreamTail(streams, ARN), shards=shards, invoke=recorder, **options).start()


def test_four_shards_each_take_their_keys_in_order_and_run_concurrently():
    # Given 200 records of 40 keys, interleaved, and a function that runs until two batches overlap
    records = keyed_records([f"RACE#{n}" for n in range(40)], per_key=5)
    recorder = Recorder(4, hold=lambda recorder, batch: recorder.most_running >= 2 or len(recorder.batches) > 1)
    # When the poller reads them as 4 shards
    polling = started(records, recorder, shards=4)
    try:
        recorder.wait_for_handled(len(records))
    finally:
        polling.stop()
    # Then each shard's batches come from one thread of its own, one batch at a time, shards at once
    threads_of_shard = defaultdict(set)
    for thread, batch in recorder.batches:
        threads_of_shard[shard_of(batch[0], 4)].add(thread)
    assert len(threads_of_shard) == 4 and all(len(threads) == 1 for threads in threads_of_shard.values())
    assert len(set.union(*threads_of_shard.values())) == 4
    assert recorder.most_running_per_shard == 1 and recorder.most_running >= 2
    # And every record arrives exactly once, each key's records in the order written
    assert sorted(number(r) for r in recorder.handled) == list(range(1, 201))
    assert polling.delivered == 200 and not polling.dead_letters
    by_key = defaultdict(list)
    for r in recorder.handled:
        by_key[key(r)].append(number(r))
    assert all(numbers == sorted(numbers) and len(numbers) == 5 for numbers in by_key.values())


def test_one_shard_delivers_every_key_in_one_sequence():
    records = keyed_records([f"RACE#{n}" for n in range(10)], per_key=5)
    recorder = Recorder(1)
    polling = started(records, recorder, shards=1)
    try:
        recorder.wait_for_handled(len(records))
    finally:
        polling.stop()
    assert [number(r) for r in recorder.handled] == list(range(1, 51))
    assert {thread for thread, _ in recorder.batches} == {"stream-0"} and recorder.most_running == 1
    assert all(len(batch) <= 10 for _, batch in recorder.batches)


def test_each_shard_has_its_own_batching_window():
    # Given a record of a key of shard 0 at t=0 and one of a key of shard 1 at t=0.5, a 1 s window
    (first,), (second,) = keys_of_shard(0, 4, 1), keys_of_shard(1, 4, 1)
    records = [record(1, key=first)]
    now = [0.0]
    delivered = []
    polling = StreamPoller(StreamTail(FakeStreams({"only": (None, records, False)}), ARN), shards=4,
                           window_seconds=1.0, invoke=lambda event: delivered.append(
                               [key(r) for r in event["Records"]]), clock=lambda: now[0])
    polling.poll_once()
    now[0] = 0.5
    records.append(record(2, key=second))
    polling.poll_once()
    assert delivered == []
    # When each window ends, each shard delivers its own record, the other's window still running
    now[0] = 1.0
    polling.poll_once()
    assert delivered == [[first]]
    now[0] = 1.5
    polling.poll_once()
    assert delivered == [[first], [second]]


def test_a_full_batch_of_one_shard_goes_without_waiting_for_its_window():
    (first,), (second,) = keys_of_shard(0, 4, 1), keys_of_shard(1, 4, 1)
    records = [record(1, key=first), record(2, key=second), record(3, key=first)]
    delivered = []
    polling = StreamPoller(StreamTail(FakeStreams({"only": (None, records, False)}, page=3), ARN), shards=4,
                           batch_size=2, window_seconds=1.0, clock=lambda: 0.0,
                           invoke=lambda event: delivered.append([number(r) for r in event["Records"]]))
    polling.poll_once()
    assert delivered == [[1, 3]]


def test_a_failing_shard_retries_its_records_while_the_others_go_on():
    # Given keys of every shard, and a function failing the first two batches of shard 0 and holding
    # its third until every other shard's records are handled
    keys = [key for shard in range(4) for key in keys_of_shard(shard, 4, 3)]
    records = keyed_records(keys, per_key=4)
    others = [r for r in records if shard_of(r, 4) != 0]

    def hold(recorder, batch):
        attempt = sum(b[0] == batch[0] for _, b in recorder.batches)
        return shard_of(batch[0], 4) != 0 or attempt < 3 or len(recorder.handled) >= len(others)

    recorder = Recorder(4, hold=hold, fail=lambda batch, attempt: shard_of(batch[0], 4) == 0 and attempt < 2)
    polling = started(records, recorder, shards=4)
    try:
        recorder.wait_for_handled(len(records))
    finally:
        polling.stop()
    # Then every other shard finished while shard 0 retried, and shard 0's records all arrived in order
    retried = [batch for _, batch in recorder.batches if shard_of(batch[0], 4) == 0]
    assert len(retried) > 2 and retried[0][0] == retried[1][0] == retried[2][0]
    assert sorted(number(r) for r in recorder.handled) == [number(r) for r in records]
    ours = [number(r) for r in recorder.handled if shard_of(r, 4) == 0]
    assert ours == sorted(ours) and not polling.dead_letters


def test_the_checkpoint_waits_for_every_shard_and_a_new_poller_resumes_from_it():
    # Given a shard-1 key whose records always fail, among keys of other shards
    (stuck,), others = keys_of_shard(1, 4, 1), keys_of_shard(0, 4, 2) + keys_of_shard(2, 4, 2)
    order = others[:3] + [stuck] + others[3:] + others + [others[0]]
    records = [record(n, key=k) for n, k in enumerate(order, 1)]
    streams = FakeStreams({"only": (None, records, False)})
    seen = []

    def invoke(event):
        seen.extend(number(r) for r in event["Records"])
        if key(event["Records"][0]) == stuck:
            raise RuntimeError("stuck")

    polling = StreamPoller(StreamTail(streams, ARN), shards=4, window_seconds=0, max_retries=1000, invoke=invoke)
    polling._stop.wait = lambda seconds: False  # no backoff sleeps in a unit test
    drain(polling)
    reader = polling.tail.shards["only"]
    # Then every other record is handled, but the shard's checkpoint stays before the stuck record
    assert {number(r) for r in records} - set(seen) == set()
    assert reader.position == records[-1]["dynamodb"]["SequenceNumber"]
    assert reader.checkpoint == records[2]["dynamodb"]["SequenceNumber"]
    # When a new poller starts from the checkpoint (a crash), with a function that no longer fails
    again = []
    tail = StreamTail(streams, ARN)
    tail.shards["only"] = ShardReader("only", None, position=reader.checkpoint)
    resumed = StreamPoller(tail, shards=4, window_seconds=0,
                           invoke=lambda event: again.extend(number(r) for r in event["Records"]))
    drain(resumed)
    # Then it delivers the stuck record and everything after it again: at least once, none skipped
    assert sorted(again) == sorted(number(r) for r in records[3:])
    assert tail.shards["only"].checkpoint == records[-1]["dynamodb"]["SequenceNumber"]


def test_a_read_error_loses_and_repeats_nothing():
    # Given a stream whose second GetRecords fails
    records = keyed_records([f"RACE#{n}" for n in range(8)], per_key=10)
    streams = FakeStreams({"only": (None, records, False)}, page=20)
    reads = streams.get_records

    def get_records(ShardIterator, Limit):
        if len(streams.reads) == 1:
            streams.reads.append("failed")
            raise ConnectionResetError("engine went away")
        return reads(ShardIterator, Limit)

    streams.get_records = get_records
    recorder = Recorder(4)
    polling = StreamPoller(StreamTail(streams, ARN), shards=4, window_seconds=0, poll_seconds=0.005,
                           invoke=recorder).start()
    try:
        recorder.wait_for_handled(len(records))
    finally:
        polling.stop()
    assert sorted(number(r) for r in recorder.handled) == list(range(1, 81))


def test_the_history_writers_mapping_reads_the_same_stream_for_blocks_alone_over_its_window_on_the_stacks_clock():
    # Given a stream of chunk and block records, read by the processor's mapping and the writer's, each its own tail
    records = [record(1), record(2, "SecondBlock"), record(3, "Race"), record(4, "SecondBlock")]
    streams = FakeStreams({"only": (None, records, False)}, page=10)
    now, processed, written = [1000.0], [], []
    processor = poller(streams, lambda event: processed.append(event["Records"]))
    writer = history_poller(StreamTail(streams, ARN), lambda event: written.append(event["Records"]), clock=lambda: now[0])
    # When both are polled / Then the processor takes its types at once; the writer holds the blocks for its window
    drain(processor, 2)
    writer.poll_once()
    assert [[r["eventID"] for r in batch] for batch in processed] == [["e1", "e3"]]
    assert written == []
    now[0] += HISTORY_BATCHING_WINDOW_SECONDS - 1
    assert not writer.poll_once() and written == []
    # and once the stack's clock has moved past the window, it delivers them in one batch, no wall-clock wait
    now[0] += 1
    assert writer.poll_once()
    assert [[r["eventID"] for r in batch] for batch in written] == [["e2", "e4"]]
