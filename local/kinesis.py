"""The local telemetry log: a Kinesis-compatible engine and the event source mapping that reads it into
``functions/ingest_telemetry`` as Lambda's Kinesis mapping does.

The engine is kinesalite (npm, MIT; pinned in package.json, installed by ``npm ci``), on LevelDB in memory
(memdown), run by the machine's Node on a free loopback port as DynamoDB Local is run (``dynamodb_local``):
started by ``start()``, which returns once it answers, stopped by ``stop()``, at exit or when this process
dies. boto3's Kinesis client speaks to it as to AWS.

The mapping (``KinesisMapping``) reads every shard of the stream, in order within a shard, and splits each
shard's records into ``parallelization`` lanes by a hash of their partition key, as Lambda's
ParallelizationFactor does (one racer's messages stay in order, in one lane); each lane delivers one batch at
a time: up to ``batch_size`` records, once ``window`` seconds have passed since its first was read (0: as soon
as it is read). The function's ``batchItemFailures`` checkpoint the lane at the first failed sequence number:
the records before it are done, the rest is delivered again from it. A function error (it raised) with
``bisect`` halves the next batch instead, which is not counted as a retry (Lambda's "splitting a batch does not
count towards the retry quota"); a batch of one that errs, or a record that fails, is retried up to
``max_retries`` times, then goes to ``dead_letters`` (the on-failure destination) and the lane goes on.
"""

from __future__ import annotations

import atexit
import base64
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from stacks.settings import (
    INGEST_BATCH_SIZE,
    INGEST_BATCHING_WINDOW_SECONDS,
    INGEST_CONSUMER,
    INGEST_PARALLELIZATION,
    INGEST_RETRIES,
    INGEST_SHARDS,
)

from . import handlers
from .dynamodb_local import START_TIMEOUT_SECONDS, EngineUnavailable, _die_with_parent, end, free_port
from .streams import Threads

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "node_modules" / "kinesalite"
REGION = "us-east-1"
ACCOUNT = "000000000000"
STREAM_NAME = "alleycat-telemetry"
STREAM_ARN = f"arn:aws:kinesis:{REGION}:{ACCOUNT}:stream/{STREAM_NAME}"
CONSUMER_ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/alleycat-ingest-telemetry"
# kinesalite on loopback only (its CLI listens on every address), no delay in creating a stream.
SERVE = ("const port = Number(process.argv[1]);"
         "require('kinesalite')({createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0, shardLimit: 50})"
         ".listen(port, '127.0.0.1', () => console.log('ready'));")
# Between reads of a shard that had nothing new, as Lambda reads a Kinesis shard: about once a second. The
# local broker pokes the mapping after each put (``poke``), so a message is read at once: the boards stay quick
# while an idle stack spends nothing polling (reading 4 times a second slowed the API's process measurably).
POLL_SECONDS = 1.0
READ_LIMIT = 1000
# Set to 1: no reads at once after a put, only once a second on the mapping's own phase, as Lambda polls a standard
# iterator in AWS: what the bench's freshness (bench/push.py) measures, a second's wait on the way included.
POLLED_VARIABLE = "ALLEYCAT_KINESIS_POLLED"


def node() -> str:
    """The Node the Makefile chose (tools/node-path), else the machine's."""
    chosen = subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True, text=True).stdout.strip()
    found = shutil.which("node", path=chosen or None) or shutil.which("node")
    if not found:
        raise EngineUnavailable("kinesalite needs Node and `node` is not on PATH: `make install` installs one")
    return found


class EmbeddedKinesis:
    """kinesalite in memory on a loopback port; ``create_stream`` makes a stream and waits until it is active."""

    CREDENTIALS = ("local", "local")  # kinesalite checks none

    def __init__(self, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - the engine's output while it runs, read back when it fails

    def start(self) -> EmbeddedKinesis:
        if not (PACKAGE / "package.json").is_file():
            raise EngineUnavailable(f"kinesalite is not installed (no {PACKAGE}): run `npm ci` (or `make install`)")
        self.process = subprocess.Popen(
            [node(), "-e", SERVE, str(self.port)], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=self._log, start_new_session=True,
            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        atexit.register(self.stop)
        ready = threading.Timer(START_TIMEOUT_SECONDS, self.process.kill)
        ready.start()
        try:
            line = self.process.stdout.readline() if self.process.stdout else b""
        finally:
            ready.cancel()
        if line.strip() != b"ready":
            self.stop()
            self._log.seek(0)
            raise EngineUnavailable(f"kinesalite did not start on {self.url}:\n{self._log.read().decode(errors='replace')[-4000:]}")
        return self

    def client(self):
        import boto3

        access_key, secret_key = self.CREDENTIALS
        return boto3.client("kinesis", endpoint_url=self.url, region_name=REGION,
                            aws_access_key_id=access_key, aws_secret_access_key=secret_key)

    def create_stream(self, name: str = STREAM_NAME, shards: int = INGEST_SHARDS) -> None:
        client = self.client()
        client.create_stream(StreamName=name, ShardCount=shards)
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while client.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]["StreamStatus"] != "ACTIVE":
            if time.monotonic() > deadline:
                raise EngineUnavailable(f"kinesalite's stream {name} did not become active")
            time.sleep(0.01)

    def stop(self) -> None:
        process, self.process = self.process, None
        end(process)


def lambda_record(shard_id: str, sequence: str, partition_key: str, data: bytes, arrival: float,
                  stream_arn: str = STREAM_ARN) -> dict:
    """A Kinesis record as Lambda's event source mapping delivers it (``Records[]`` of the event)."""
    return {"kinesis": {"kinesisSchemaVersion": "1.0", "partitionKey": partition_key, "sequenceNumber": sequence,
                        "data": base64.b64encode(data).decode(), "approximateArrivalTimestamp": arrival},
            "eventSource": "aws:kinesis", "eventVersion": "1.0", "eventID": f"{shard_id}:{sequence}",
            "eventName": "aws:kinesis:record", "invokeIdentityArn": CONSUMER_ROLE_ARN, "awsRegion": REGION,
            "eventSourceARN": stream_arn}


def lane_of(partition_key: str, lanes: int) -> int:
    """The lane of a shard a record is delivered in (a stable hash of its partition key)."""
    return zlib.crc32(partition_key.encode()) % lanes


@dataclass
class Lane:
    """One shard's records of some partition keys, in order, delivered one batch at a time."""

    shard_id: str
    number: int
    pending: list[tuple[dict, float]] = field(default_factory=list)  # (Lambda record, when read)
    busy: bool = False     # a batch of it is with the function
    attempts: int = 0      # retries of its first record so far
    limit: int | None = None  # the next batch's size after a bisection


def sequence(record: dict) -> int:
    return int(record["kinesis"]["sequenceNumber"])


class KinesisMapping(Threads):
    """The event source mapping: ``client``'s stream ``stream_name`` to ``invoke(event) -> response`` (the
    consumer in the stack's workers). ``start()`` reads and delivers in threads of its own; ``poll_once()``
    drives it by hand (a test's)."""

    def __init__(self, client, invoke=None, stream_name: str = STREAM_NAME, batch_size: int = INGEST_BATCH_SIZE,
                 window_seconds: float = INGEST_BATCHING_WINDOW_SECONDS, parallelization: int = INGEST_PARALLELIZATION,
                 max_retries: int = INGEST_RETRIES, bisect: bool = True, poll_seconds: float = POLL_SECONDS,
                 clock=time.monotonic, polled: bool = False):
        self.client, self.stream_name = client, stream_name
        self.stream_arn = client.describe_stream_summary(StreamName=stream_name)["StreamDescriptionSummary"]["StreamARN"]
        self._invoke = invoke or (lambda event: handlers.invoke(INGEST_CONSUMER, event))
        self.batch_size, self.window, self.parallelization = batch_size, window_seconds, parallelization
        self.max_retries, self.bisect, self.poll_seconds, self.clock = max_retries, bisect, poll_seconds, clock
        self.polled = polled
        shards = [shard["ShardId"] for shard in client.list_shards(StreamName=stream_name)["Shards"]]
        self.iterators = {shard: client.get_shard_iterator(StreamName=stream_name, ShardId=shard,
                                                            ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                          for shard in shards}
        self.lanes = {(shard, n): Lane(shard, n) for shard in shards for n in range(parallelization)}
        self.dead_letters: list[dict] = []
        self.delivered = 0
        self._stop, self._wake = threading.Event(), threading.Event()
        self._changed = threading.Condition()  # guards the lanes
        self._threads = [threading.Thread(target=self._read_all, name="kinesis", daemon=True)] + [
            threading.Thread(target=self._deliver_all, args=(lane,), name=f"kinesis-{lane.shard_id[-3:]}-{lane.number}",
                             daemon=True) for lane in self.lanes.values()]

    def poke(self) -> None:
        """Something was put: read now (polled: at the next of its reads a second)."""
        if not self.polled:
            self._wake.set()

    def _idle(self) -> None:
        self._wake.wait(self.poll_seconds)
        self._wake.clear()

    def stop(self) -> None:
        self._wake.set()
        super().stop()

    def poll_once(self) -> bool:
        """One read of every shard, then each lane's due batch delivered in this thread, retries without waiting;
        True when a batch was handed to the function."""
        self.read_once()
        delivered = False
        for lane in self.lanes.values():
            batch = self._take(lane, wait=False)
            if batch:
                self._run(lane, batch, wait=False)
                delivered = True
        return delivered

    def read_once(self) -> bool:
        """Reads every shard once into its lanes; True when a read filled its page."""
        more = False
        for shard, iterator in self.iterators.items():
            response = self.client.get_records(ShardIterator=iterator, Limit=READ_LIMIT)
            self.iterators[shard] = response["NextShardIterator"]
            self._hold(shard, response["Records"])
            more |= len(response["Records"]) >= READ_LIMIT
        return more

    def _hold(self, shard: str, records: list[dict]) -> None:
        if not records:
            return
        now = self.clock()
        with self._changed:
            for raw in records:
                lane = self.lanes[shard, lane_of(raw["PartitionKey"], self.parallelization)]
                lane.pending.append((lambda_record(shard, raw["SequenceNumber"], raw["PartitionKey"], raw["Data"],
                                                   raw["ApproximateArrivalTimestamp"].timestamp(), self.stream_arn), now))
            self._changed.notify_all()

    def _deliver_all(self, lane: Lane) -> None:
        while not self._stop.is_set():
            try:
                batch = self._take(lane, wait=True)
                if batch:
                    self._run(lane, batch, wait=True)
            except Exception as error:  # noqa: BLE001 - the lane goes on; say what happened
                sys.stderr.write(f"telemetry log lane {lane.shard_id}/{lane.number} restarting after: {error!r}\n")
                lane.busy = False
                self._stop.wait(1)

    def _due(self, lane: Lane) -> float | None:
        """Seconds until the lane's next batch is due (0: now); None when it has none to deliver."""
        if lane.busy or not lane.pending:
            return None
        if len(lane.pending) >= (lane.limit or self.batch_size):
            return 0
        return max(0.0, lane.pending[0][1] + self.window - self.clock())

    def _take(self, lane: Lane, wait: bool) -> list[dict] | None:
        with self._changed:
            while not self._stop.is_set():
                due = self._due(lane)
                if due == 0:
                    lane.busy = True
                    return [record for record, _ in lane.pending[: lane.limit or self.batch_size]]
                if not wait:
                    return None
                self._changed.wait(due)
        return None

    def _run(self, lane: Lane, batch: list[dict], wait: bool) -> None:
        try:
            response = self._invoke({"Records": batch}) or {}
            failed = [int(failure["itemIdentifier"]) for failure in response.get("batchItemFailures", [])]
            outcome: int | None = min(failed) if failed else None
            erred = False
        except Exception as error:  # noqa: BLE001 - the whole batch failed, as a function error does in Lambda
            sys.stderr.write(f"telemetry log consumer failed: {error!r}\n")
            outcome, erred = sequence(batch[0]), True
        with self._changed:
            backoff = self._settle(lane, batch, outcome, erred)
            self._changed.notify_all()
        if backoff and wait:
            self._stop.wait(backoff)

    def _settle(self, lane: Lane, batch: list[dict], failed: int | None, erred: bool) -> float:
        """Checkpoints the lane after a batch; the seconds to wait before it is delivered again."""
        done = [record for record in batch if failed is None or sequence(record) < failed]
        del lane.pending[: len(done)]
        self.delivered += len(done)
        lane.busy = False
        if failed is None:
            lane.attempts, lane.limit = 0, None
            return 0
        if erred and self.bisect and len(batch) > 1:
            lane.limit = max(1, len(batch) // 2)  # not a retry: the halves are tried in turn
            return 0
        lane.attempts = 1 if done else lane.attempts + 1
        if lane.attempts <= self.max_retries:
            return min(0.05 * 2 ** lane.attempts, 2)
        given_up = len(batch) - len(done) if erred else 1  # a function error: the (bisected) batch; else the record
        self.dead_letters += [record for record, _ in lane.pending[:given_up]]
        del lane.pending[:given_up]
        sys.stderr.write(f"telemetry log: {given_up} record(s) sent to dead letters after {self.max_retries} retries\n")
        lane.attempts, lane.limit = 0, None
        return 0
