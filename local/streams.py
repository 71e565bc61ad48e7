"""The local event source mappings: the embedded table's stream -> the stream handler, and (``history_poller``)
the same stream's second blocks -> the history writer (``HISTORY_WRITER``).

Reads DynamoDB Local's stream as Lambda's DynamoDB event source mapping does: every shard
the stream lists, records in order within a shard, a child shard only once its parent is
read to its end, the mapping's filter, batch size and batching window, and the same event
shape to the same handler. A reported batch item failure is retried from that record (up
to ``STREAM_RETRIES`` times, then the record goes to ``dead_letters``, as the SQS on-failure
destination would take it); a function error (the handler raised, or its worker died:
``local.runtime.WorkerDied``) halves the batch first, as the stack's mappings bisect.

DynamoDB Local's stream has one shard; a table's stream in AWS has several (about one per
partition), each item's records in the shard of its partition key, and the mapping invokes
the function for each shard separately and concurrently, one batch in flight per shard.
``ALLEYCAT_STREAM_SHARDS=S`` (default 1) splits the records read into S virtual shards by a
stable hash of the partition key, each with its own batch, batching window and retries,
delivered by a thread of its own. A shard's records are acknowledged (its checkpoint moves
past them) only once every virtual shard has handled them and all records before them.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import time
import zlib
from collections import deque
from typing import Self
from urllib.parse import urlsplit

from alleycat.storage.schema import HISTORY_WRITER_TYPES, PARTITION_KEY, STREAM_PROCESSOR_TYPES
from stacks.settings import (
    HISTORY_BATCH_SIZE,
    HISTORY_BATCHING_WINDOW_SECONDS,
    HISTORY_RETRIES,
    STREAM_BATCH_SIZE,
    STREAM_BATCHING_WINDOW_SECONDS,
    STREAM_PROCESSOR,
    STREAM_RETRIES,
)

from . import handlers

# Between reads, unless a read filled its page: Lambda "polls shards in your DynamoDB stream for records at a
# base rate of 4 times per second" (Lambda developer guide, "Using AWS Lambda with Amazon DynamoDB").
POLL_SECONDS = 0.25
LIST_SHARDS_SECONDS = 1.0   # how often the stream's shards are listed again
READ_LIMIT = 1000           # records a GetRecords asks for
BUFFERED_BATCHES = 10       # reading pauses while a virtual shard holds this many batches
SHARDS_VARIABLE = "ALLEYCAT_STREAM_SHARDS"


def stream_shards(environ=os.environ) -> int:
    """The number of virtual shards the local stack's poller reads the stream as."""
    raw = environ.get(SHARDS_VARIABLE, "1")
    shards = int(raw) if raw.strip().isdigit() else 0
    if shards < 1:
        raise ValueError(f"{SHARDS_VARIABLE} must be a whole number of shards, 1 or more, not {raw!r}")
    return shards


def shard_of(record: dict, shards: int) -> int:
    """The virtual shard of a raw record: a stable hash of its item's partition key."""
    if shards == 1:
        return 0
    key = next(iter(record["dynamodb"]["Keys"][PARTITION_KEY].values()))
    return zlib.crc32(str(key).encode()) % shards


def lambda_record(record: dict, stream_arn: str) -> dict:
    """A record of GetRecords' wire JSON as Lambda delivers it (epoch seconds, the stream's ARN).

    The wire already carries binaries in base64 and times as epoch numbers, as Lambda does.
    """
    change = record["dynamodb"]
    created = change.get("ApproximateCreationDateTime")
    if isinstance(created, float):
        change = {**change, "ApproximateCreationDateTime": int(created)}
    return {"eventID": record["eventID"], "eventName": record["eventName"], "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": record.get("awsRegion", "us-east-1"),
            "dynamodb": change, "eventSourceARN": stream_arn}


def passes_filter(record: dict, types: tuple[str, ...] = STREAM_PROCESSOR_TYPES) -> bool:
    """An event source mapping's filter: only records of the item types its function acts on (the processor's,
    or the history writer's ``HISTORY_WRITER_TYPES``)."""
    return record["dynamodb"].get("NewImage", {}).get("type", {}).get("S") in types


def sequence(record: dict) -> int:
    return int(record["dynamodb"]["SequenceNumber"])


class ShardReader:
    """One shard: its iterator, where reading resumes, and its records read and not yet handled."""

    def __init__(self, shard_id: str, parent_id: str | None, position: str | None = None):
        self.shard_id, self.parent_id = shard_id, parent_id
        self.iterator: str | None = None
        self.closed = False          # GetRecords gave no next iterator: nothing more will come
        self.position = position     # the last record read: reading resumes after it
        self.unhandled: deque[tuple[str, str | None]] = deque()  # (record, the record read before it)
        self.handled: set[str] = set()  # records of ``unhandled`` handled before an earlier one

    @property
    def checkpoint(self) -> str | None:
        """The last record that, with every record before it, has been handled: a new poller
        starts after it."""
        return self.unhandled[0][1] if self.unhandled else self.position

    @property
    def finished(self) -> bool:
        return self.closed and not self.unhandled

    def handle(self, number: str) -> None:
        self.handled.add(number)
        while self.unhandled and self.unhandled[0][0] in self.handled:
            self.handled.discard(self.unhandled.popleft()[0])

    def reset(self) -> None:
        """After an error: a new iterator, after the last record read (the poller holds the rest)."""
        if not self.closed:
            self.iterator = None


class WireRecords:
    """A DynamoDB Streams client whose GetRecords skips botocore's response parser.

    GetRecords' wire JSON already has the shape Lambda delivers (epoch times, base64
    binaries); parsing it into Python types and back cost the local stack more CPU than
    any function did. The request is signed as botocore would sign it.
    """

    TARGET = "DynamoDBStreams_20120810.GetRecords"

    def __init__(self, client, access_key: str, secret_key: str):
        from botocore.auth import SigV4Auth
        from botocore.credentials import Credentials

        self.client = client
        self.url = client.meta.endpoint_url
        self._signer = SigV4Auth(Credentials(access_key, secret_key), "dynamodb", client.meta.region_name)
        self._local = threading.local()

    def __getattr__(self, name: str):  # describe_stream, get_shard_iterator: as boto3 does them
        return getattr(self.client, name)

    def get_records(self, ShardIterator: str, Limit: int = 1000) -> dict:
        from botocore.awsrequest import AWSRequest

        body = json.dumps({"ShardIterator": ShardIterator, "Limit": Limit})
        request = AWSRequest("POST", self.url + "/", data=body, headers={
            "X-Amz-Target": self.TARGET, "Content-Type": "application/x-amz-json-1.0"})
        self._signer.add_auth(request)
        for attempt in (1, 2):
            connection = self._connection()
            try:
                connection.request("POST", "/", body=body, headers=dict(request.headers.items()))
                response = connection.getresponse()
                payload = json.loads(response.read())
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the engine closed while idle: once more on a new one (a
                # read: the same iterator gives the same records).
                self._local.connection = None
                if attempt == 2:
                    raise
            except (OSError, http.client.HTTPException):
                self._local.connection = None
                raise
        if response.status != 200:
            from botocore.exceptions import ClientError

            code = payload.get("__type", "").rsplit("#", 1)[-1]
            raise ClientError({"Error": {"Code": code, "Message": payload.get("message", "")}}, "GetRecords")
        return payload

    def _connection(self) -> http.client.HTTPConnection:
        if getattr(self._local, "connection", None) is None:
            parts = urlsplit(self.url)
            self._local.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        return self._local.connection


class StreamTail:
    """A stream's shards and readers: every shard listed, a child readable once its parent is done."""

    def __init__(self, client, stream_arn: str, list_every: float = 0.0):
        self.client, self.stream_arn, self.list_every = client, stream_arn, list_every
        self.shards: dict[str, ShardReader] = {}
        self._listed_at = float("-inf")
        self._finished_when_listed: set[str] = set()

    @classmethod
    def of_table(cls, engine, table: str, list_every: float = 0.0) -> StreamTail:
        """The stream of ``table`` in ``engine`` (an ``EmbeddedDynamoDB``), from its first record."""
        arn = engine.client().describe_table(TableName=table)["Table"]["LatestStreamArn"]
        return cls(WireRecords(engine.client("dynamodbstreams"), *engine.CREDENTIALS), arn, list_every)

    def readable(self) -> list[ShardReader]:
        """The shards to read now (parents before children), listing the stream again when due or once a shard has
        been read to its end (its children may be listed by now)."""
        due = time.monotonic() - self._listed_at >= self.list_every
        finished = {shard for shard, reader in self.shards.items() if reader.finished}
        if due or finished - self._finished_when_listed or not self.shards:
            self._list()
            self._finished_when_listed = finished
        return [reader for reader in self.shards.values() if not reader.finished and self._parent_done(reader)]

    def _list(self) -> None:
        self._listed_at = time.monotonic()
        request = {"StreamArn": self.stream_arn}
        while True:
            description = self.client.describe_stream(**request)["StreamDescription"]
            for shard in description["Shards"]:
                if shard["ShardId"] not in self.shards:
                    self.shards[shard["ShardId"]] = ShardReader(shard["ShardId"], shard.get("ParentShardId"))
            if "LastEvaluatedShardId" not in description:
                return
            request["ExclusiveStartShardId"] = description["LastEvaluatedShardId"]

    def _parent_done(self, reader: ShardReader) -> bool:
        parent = self.shards.get(reader.parent_id) if reader.parent_id else None
        return parent is None or parent.finished  # a parent no longer listed has been trimmed

    def fetch(self, reader: ShardReader) -> list[dict]:
        """The shard's next records (raw), after its position when it has no iterator yet."""
        if reader.iterator is None:
            start = ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": reader.position}
                     if reader.position else {"ShardIteratorType": "TRIM_HORIZON"})
            reader.iterator = self.client.get_shard_iterator(
                StreamArn=self.stream_arn, ShardId=reader.shard_id, **start)["ShardIterator"]
        response = self.client.get_records(ShardIterator=reader.iterator, Limit=READ_LIMIT)
        reader.iterator = response.get("NextShardIterator")
        reader.closed = reader.iterator is None
        return response["Records"]

    def read(self) -> list[dict]:
        """Every record written since the last read, as Lambda records, in order within each shard."""
        out = []
        while True:
            fetched = [(reader, self.fetch(reader)) for reader in self.readable()]
            for reader, records in fetched:
                if records:
                    reader.position = records[-1]["dynamodb"]["SequenceNumber"]
                out += [lambda_record(r, self.stream_arn) for r in records]
            if not any(records for _, records in fetched):
                return out


class VirtualShard:
    """The records of some partition keys, in order, delivered one batch at a time."""

    def __init__(self, number: int):
        self.number = number
        self.pending: list[tuple[dict, ShardReader, float]] = []  # (record, its shard, when read)
        self.busy = False  # a batch of it is with the function
        self.attempts = 0
        self.limit: int | None = None  # the next batch's size after a bisection


class Threads:
    """A mapping's threads: ``start()`` starts them, ``stop()`` wakes and ends them (``_stop``, ``_changed``)."""

    _threads: list[threading.Thread]
    _stop: threading.Event
    _changed: threading.Condition
    poll_seconds: float

    def start(self) -> Self:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(timeout=10)

    def read_once(self) -> bool:
        """Reads what is new into the mapping; True when a read filled its page (read again at once)."""
        raise NotImplementedError

    def _after_read_error(self) -> None:
        """What reading again after an error needs (new iterators)."""

    def _idle(self) -> None:
        """Between reads that found nothing more."""
        self._stop.wait(self.poll_seconds)

    def _read_all(self) -> None:
        while not self._stop.is_set():
            try:
                if not self.read_once():
                    self._idle()
            except Exception as error:  # noqa: BLE001 - keep the local stack alive; say what happened
                sys.stderr.write(f"{type(self).__name__} reading again after: {error!r}\n")
                self._after_read_error()
                self._stop.wait(1)


class StreamPoller(Threads):
    """The event source mapping: ``tail``'s records to the stream function, read by a thread of its
    own and delivered by one thread per virtual shard (``shards``)."""

    def __init__(self, tail: StreamTail, batch_size: int = STREAM_BATCH_SIZE,
                 window_seconds: float = STREAM_BATCHING_WINDOW_SECONDS, max_retries: int = STREAM_RETRIES,
                 invoke=None, shards: int = 1, poll_seconds: float = POLL_SECONDS, clock=time.monotonic,
                 types: tuple[str, ...] = STREAM_PROCESSOR_TYPES, bisect: bool = True):
        self.tail, self.stream_arn, self.types = tail, tail.stream_arn, types
        self.batch_size, self.window, self.max_retries, self.bisect = batch_size, window_seconds, max_retries, bisect
        self.poll_seconds, self.clock = poll_seconds, clock
        self._invoke = invoke or (lambda event: handlers.invoke(STREAM_PROCESSOR, event))
        self.virtual_shards = [VirtualShard(n) for n in range(shards)]
        self.dead_letters: list[dict] = []
        self.delivered = 0
        self._stop = threading.Event()
        self._changed = threading.Condition()  # guards the virtual shards and the readers' unhandled records
        self._threads = [threading.Thread(target=self._read_all, name="stream", daemon=True)] + [
            threading.Thread(target=self._deliver_all, args=(shard,), name=f"stream-{shard.number}", daemon=True)
            for shard in self.virtual_shards]

    def seen(self) -> int:
        """The records of its types it has read so far: delivered, or pending in a virtual shard."""
        with self._changed:
            return self.delivered + sum(len(shard.pending) for shard in self.virtual_shards)

    def window_left(self) -> float | None:
        """Seconds of its clock until the first batch that waits only for its window is due; 0 while a batch
        is due or being delivered; None when it holds nothing it has read."""
        with self._changed:
            held = [shard for shard in self.virtual_shards if shard.busy or shard.pending]
            if not held:
                return None
            return min(0.0 if shard.busy else self._due(shard) or 0.0 for shard in held)

    def poll_once(self) -> bool:
        """One read, then every virtual shard's due batch delivered in this thread (a poller driven
        by hand, not started); True when a batch was handed to the function."""
        self.read_once()
        delivered = False
        for shard in self.virtual_shards:
            batch = self._take(shard, wait=False)
            if batch:
                self._run(shard, batch)
                delivered = True
        return delivered

    def _after_read_error(self) -> None:
        for reader in self.tail.shards.values():
            reader.reset()

    def read_once(self) -> bool:
        """Reads every readable shard once into the virtual shards; True when a read filled its page."""
        more = False
        for reader in self.tail.readable():
            if reader.closed or self._full():
                continue
            records = self.tail.fetch(reader)
            self._hold(reader, records)
            more |= len(records) >= READ_LIMIT
        return more

    def _full(self) -> bool:
        return any(len(shard.pending) >= BUFFERED_BATCHES * self.batch_size for shard in self.virtual_shards)

    def _hold(self, reader: ShardReader, records: list[dict]) -> None:
        held, before = [], reader.position
        for raw in records:
            number = raw["dynamodb"]["SequenceNumber"]
            if passes_filter(raw, self.types):
                shard = self.virtual_shards[shard_of(raw, len(self.virtual_shards))]
                held.append((number, before, lambda_record(raw, self.stream_arn), shard))
            before = number
        now = self.clock()
        with self._changed:
            for number, before, record, shard in held:
                reader.unhandled.append((number, before))
                shard.pending.append((record, reader, now))
            if records:
                reader.position = records[-1]["dynamodb"]["SequenceNumber"]
            if held:
                self._changed.notify_all()

    def _deliver_all(self, shard: VirtualShard) -> None:
        while not self._stop.is_set():
            try:
                batch = self._take(shard, wait=True)
                if batch:
                    self._run(shard, batch)
            except Exception as error:  # noqa: BLE001 - the shard's worker goes on; say what happened
                sys.stderr.write(f"stream shard {shard.number} restarting after: {error!r}\n")
                shard.busy = False
                self._stop.wait(1)

    def _due(self, shard: VirtualShard) -> float | None:
        """Seconds until the shard's next batch is due (0: now); None when it has none to deliver.
        A batch is due when it is full, its window has passed or its shard has ended."""
        if shard.busy or not shard.pending:
            return None
        _, reader, read_at = shard.pending[0]
        if len(shard.pending) >= (shard.limit or self.batch_size) or reader.closed:
            return 0
        return max(0.0, read_at + self.window - self.clock())

    def _take(self, shard: VirtualShard, wait: bool) -> list | None:
        with self._changed:
            while not self._stop.is_set():
                due = self._due(shard)
                if due == 0:
                    shard.busy = True
                    return shard.pending[: shard.limit or self.batch_size]
                if not wait:
                    return None
                # a clock the tests move is looked at again each poll: its window may pass at any moment
                self._changed.wait(due if self.clock is time.monotonic or due is None else min(due, self.poll_seconds))
        return None

    def _run(self, shard: VirtualShard, batch: list) -> None:
        failed, erred = self._deliver([record for record, _, _ in batch])
        with self._changed:
            backoff = self._settle(shard, batch, failed, erred)
        if backoff:
            self._stop.wait(backoff)

    def _settle(self, shard: VirtualShard, batch: list, failed: int | None, erred: bool = False) -> float:
        """Acknowledges what the function handled; the seconds to wait before a retry. A function error (it
        raised, or its worker died) with ``bisect`` halves the next batch, not counted as a retry (Lambda's
        BisectBatchOnFunctionError, as the stack's mappings have it); a batch of one that errs, or a reported
        record, is retried up to ``max_retries`` times, then goes to the dead letters."""
        done = batch if failed is None else [item for item in batch if sequence(item[0]) < failed]
        del shard.pending[: len(done)]
        for record, reader, _ in done:
            reader.handle(record["dynamodb"]["SequenceNumber"])
        self.delivered += len(done)
        shard.busy = False
        if failed is None:
            shard.attempts, shard.limit = 0, None
            return 0
        if erred and self.bisect and len(batch) > 1:
            shard.limit = max(1, len(batch) // 2)
            return 0
        shard.attempts = 1 if done else shard.attempts + 1
        if shard.attempts <= self.max_retries:
            return min(0.05 * 2 ** shard.attempts, 2)
        given_up = len(batch) - len(done) if erred else 1  # a function error: the (bisected) batch; else the record
        for record, reader, _ in shard.pending[:given_up]:
            reader.handle(record["dynamodb"]["SequenceNumber"])
            self.dead_letters.append(record)
        del shard.pending[:given_up]
        sys.stderr.write(f"stream: {given_up} record(s) sent to dead letters after {self.max_retries} retries\n")
        shard.attempts, shard.limit = 0, None
        return 0

    def _deliver(self, batch: list[dict]) -> tuple[int | None, bool]:
        """Calls the handler: the lowest failed sequence number (None when all succeeded), and whether the
        function erred (raised, or its worker died) rather than reported failures."""
        try:
            response = self._invoke({"Records": batch}) or {}
        except Exception as error:  # noqa: BLE001 - the whole batch failed, as a Lambda error would
            sys.stderr.write(f"stream handler failed: {error!r}\n")
            return sequence(batch[0]), True
        failures = [int(f["itemIdentifier"]) for f in response.get("batchItemFailures", [])]
        return (min(failures) if failures else None), False


def history_poller(tail: StreamTail, invoke, clock=time.monotonic, window_seconds: float = HISTORY_BATCHING_WINDOW_SECONDS,
                   **options) -> StreamPoller:
    """The history writer's mapping (stacks/stream.py): the same stream read by a tail of its own (a shard's second
    reader), second blocks alone, batched over ``window_seconds`` of ``clock`` (the stack's ``HISTORY_BATCHING_WINDOW_
    SECONDS`` unless a real-clock test's stack shortens it; a test's manual clock moves it, so no test waits it)."""
    return StreamPoller(tail, batch_size=HISTORY_BATCH_SIZE, window_seconds=window_seconds,
                        max_retries=HISTORY_RETRIES, invoke=invoke, clock=clock, types=HISTORY_WRITER_TYPES, **options)
