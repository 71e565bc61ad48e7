"""DynamoDB Local's own cost per write, and whether it grows with the stream: ``python -m bench.engine [rounds]``.

One engine per storage (`make local`'s database file on disk, the same file on a RAM-backed /dev/shm, and
``-inMemory``), each taking rounds of 6,000 UpdateItems of a telemetry-sized item (30 seconds of samples) on a
table with a stream (NEW_AND_OLD_IMAGES, as the stack's), then reading the round's stream records with GetRecords
as the local event source mapping does. Prints the JVM's CPU time (``/proc``) per write and per record read, and
its resident memory, round by round. Not part of ``make bench``: it explains one of its choices (docs/performance.md,
section 7)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from local.dynamodb_local import EmbeddedDynamoDB

WRITES = 6000
SECONDS = 30


def chunk(write: int) -> dict:
    """A chunk's seconds as the stack stores them, different at every write (an update that changes nothing
    writes no stream record)."""
    return {f"s{second}": {"L": [{"N": str(60 + (write + second) % 40)}, {"N": "50"}]} for second in range(SECONDS)}


def jvm_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(storage: str, rounds: int) -> None:
    folder = "/dev/shm" if storage == "RAM file" else None
    previous = tempfile.tempdir
    tempfile.tempdir = folder or previous
    try:
        engine = EmbeddedDynamoDB(in_memory=storage == "memory").start()
    finally:
        tempfile.tempdir = previous
    try:
        table, streams = engine.client(), engine.client("dynamodbstreams")
        table.create_table(TableName="engine", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
                           StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        arn = table.describe_table(TableName="engine")["Table"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        assert engine.process is not None  # started
        pid = engine.process.pid
        for number in range(1, rounds + 1):
            before = jvm_cpu_seconds(pid)
            for write in range(WRITES):
                values = chunk(write)
                table.update_item(TableName="engine", Key={"pk": {"S": f"racer-{write % 100}"}},
                                  UpdateExpression="SET " + ", ".join(f"{name} = :{name}" for name in values),
                                  ExpressionAttributeValues={f":{name}": value for name, value in values.items()})
            written, read = jvm_cpu_seconds(pid), 0
            while records := (page := streams.get_records(ShardIterator=iterator, Limit=1000))["Records"]:
                read += len(records)
                iterator = page["NextShardIterator"]
            iterator = page["NextShardIterator"]
            done = jvm_cpu_seconds(pid)
            print(f"{storage:9s} round {number}: {read:,} stream records read of {number * WRITES:,}, "
                  f"{(written - before) * 1000 / WRITES:.2f} ms JVM CPU a write, "
                  f"{(done - written) * 1000 / max(read, 1):.3f} ms a record read, {engine.rss_bytes() / 2**20:,.0f} MB", flush=True)
    finally:
        engine.stop()


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for storage in ("disk file", "RAM file", "memory"):
        measure(storage, rounds)


if __name__ == "__main__":
    main()
