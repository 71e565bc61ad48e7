"""The MQTT replay delivers a second's records as the event source mapping would: each record once, on the shard
its partition key hashes to, a lane's records in order and together, batches no larger than the mapping's."""

import base64
import hashlib
import json

from bench import memory, over_mqtt
from local.kinesis import lane_of


def test_a_seconds_records_reach_the_consumer_once_each_in_the_mappings_batches():
    keys = [f"race/racer-{n:04d}" for n in range(1000)]
    events = over_mqtt.batches([(key, b"{}") for key in keys], 1795600800.0, 5000, shards=2, lanes=10, size=30)
    delivered = [r for batch in events for r in batch]
    assert sorted(r["kinesis"]["partitionKey"] for r in delivered) == sorted(keys)  # each once
    assert max(map(len, events)) == 30 and len(events) == sum(-(-n // 30) for n in lane_sizes(keys))
    for batch in events:  # one shard and one lane a batch, in the order put
        shard = {r["eventID"].split(":")[0] for r in batch}
        assert len(shard) == 1 and len({lane_of(r["kinesis"]["partitionKey"], 10) for r in batch}) == 1
        sequences = [int(r["kinesis"]["sequenceNumber"]) for r in batch]
        assert sequences == sorted(sequences)
    # the shard is the one whose half of MD5's 128-bit range holds the key's hash
    for r in delivered:
        high = hashlib.md5(r["kinesis"]["partitionKey"].encode()).digest()[0] >= 128
        assert r["eventID"].startswith(f"shardId-00000000000{int(high)}:")
    assert json.loads(base64.b64decode(delivered[0]["kinesis"]["data"])) == {}


def test_a_lanes_next_batch_waits_for_its_last_one():
    """A lane delivers its batches one after another (the fan-in's board guard relies on their order)."""
    keys = [f"race/racer-{n:04d}" for n in range(1000)]
    lanes = over_mqtt.lane_batches([(key, b"{}") for key in keys], 1795600800.0, 5000, shards=2, lanes=10, size=30)
    rounds = over_mqtt.rounds(lanes)
    lane = lambda batch: (batch[0]["eventID"].split(":")[0], lane_of(batch[0]["kinesis"]["partitionKey"], 10))
    assert all(len({lane(b) for b in batches}) == len(batches) for batches in rounds)  # a lane once a round
    assert [b for batches in rounds for b in batches if lane(b) == lane(lanes[0][0])] == lanes[0]  # in its order


def lane_sizes(keys: list[str]) -> list[int]:
    counts: dict = {}
    for key in keys:
        lane = (over_mqtt.shard_of(key, 2), lane_of(key, 10))
        counts[lane] = counts.get(lane, 0) + 1
    return list(counts.values())


def test_memory_is_the_smallest_size_that_meets_the_functions_need_of_cpu_and_holds_its_peak_twice():
    assert memory._smallest(need_ms=5, budget_ms=100, rss_mb=40) == 128  # 5 ms × 13.8 = 69 ms at 128 MB
    assert memory._smallest(need_ms=10, budget_ms=100, rss_mb=40) == 256
    assert memory._smallest(need_ms=5, budget_ms=100, rss_mb=90) == 256  # 180 MB of peak twice over
    assert memory._smallest(need_ms=500, budget_ms=100, rss_mb=40) == 1769  # never enough: the most CPU Lambda gives one
