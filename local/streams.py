"""The local event source mapping: the embedded table's stream -> the stream handler.

Reads DynamoDB Local's stream as Lambda's DynamoDB event source mapping does: every shard
the stream lists, records in order within a shard, a child shard only once its parent is
read to its end, the mapping's filter, batch size and batching window, and the same event
shape to the same handler. A reported batch item failure is retried from that record (up
to ``STREAM_RETRIES`` times, then the record goes to ``dead_letters``, as the SQS on-failure
destination would take it).
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
from urllib.parse import urlsplit

from alleycat.schema import STREAM_PROCESSOR_TYPES
from stacks.settings import STREAM_BATCH_SIZE, STREAM_BATCHING_WINDOW_SECONDS, STREAM_PROCESSOR, STREAM_RETRIES

from . import handlers

POLL_SECONDS = 0.1          # between reads of a shard that gave nothing to deliver
LIST_SHARDS_SECONDS = 1.0   # how often the stream's shards are listed again


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


def passes_filter(record: dict) -> bool:
    """The event source mapping's filter: only records of the item types the processor acts on."""
    return record["dynamodb"].get("NewImage", {}).get("type", {}).get("S") in STREAM_PROCESSOR_TYPES


def sequence(record: dict) -> int:
    return int(record["dynamodb"]["SequenceNumber"])


class ShardReader:
    """One shard: its iterator, the records read and not yet handled, and where to resume."""

    def __init__(self, shard_id: str, parent_id: str | None):
        self.shard_id, self.parent_id = shard_id, parent_id
        self.iterator: str | None = None
        self.closed = False          # GetRecords gave no next iterator: nothing more will come
        self.pending: list[dict] = []
        self.first_pending_at = 0.0  # when the oldest pending record was read (batching window)
        self.read_while_busy_since: float | None = None  # see StreamPoller._read
        self.checkpoint: str | None = None  # the last record handled: a restart resumes after it
        self.attempts = 0

    @property
    def finished(self) -> bool:
        return self.closed and not self.pending

    def reset(self) -> None:
        """After an error: read again from the checkpoint."""
        if not self.finished:
            self.iterator, self.closed, self.pending, self.attempts = None, False, [], 0


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

    @classmethod
    def of_table(cls, engine, table: str, list_every: float = 0.0) -> "StreamTail":
        """The stream of ``table`` in ``engine`` (an ``EmbeddedDynamoDB``), from its first record."""
        arn = engine.client().describe_table(TableName=table)["Table"]["LatestStreamArn"]
        return cls(WireRecords(engine.client("dynamodbstreams"), *engine.CREDENTIALS), arn, list_every)

    def readable(self) -> list[ShardReader]:
        """The shards to read now (parents before children), listing the stream again when due."""
        due = time.monotonic() - self._listed_at >= self.list_every
        if due or any(reader.finished for reader in self.shards.values()) or not self.shards:
            self._list()
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
        """The shard's next records (raw), from its checkpoint when it has no iterator yet."""
        if reader.iterator is None:
            start = ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": reader.checkpoint}
                     if reader.checkpoint else {"ShardIteratorType": "TRIM_HORIZON"})
            reader.iterator = self.client.get_shard_iterator(
                StreamArn=self.stream_arn, ShardId=reader.shard_id, **start)["ShardIterator"]
        response = self.client.get_records(ShardIterator=reader.iterator, Limit=1000)
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
                    reader.checkpoint = records[-1]["dynamodb"]["SequenceNumber"]
                out += [lambda_record(r, self.stream_arn) for r in records]
            if not any(records for _, records in fetched):
                return out


class StreamPoller:
    """The event source mapping: ``tail``'s records to the stream function, in a thread of its own."""

    def __init__(self, tail: StreamTail, batch_size: int = STREAM_BATCH_SIZE,
                 window_seconds: float = STREAM_BATCHING_WINDOW_SECONDS, max_retries: int = STREAM_RETRIES,
                 invoke=None):
        self.tail, self.stream_arn = tail, tail.stream_arn
        self.batch_size, self.window, self.max_retries = batch_size, window_seconds, max_retries
        self._invoke = invoke or (lambda event: handlers.invoke(STREAM_PROCESSOR, event))
        self.dead_letters: list[dict] = []
        self.delivered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stream", daemon=True)

    def start(self) -> "StreamPoller":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if not self.poll_once():
                    self._stop.wait(POLL_SECONDS)
            except Exception as error:  # keep the local stack alive; say what happened
                sys.stderr.write(f"stream poller restarting after: {error!r}\n")
                for reader in self.tail.shards.values():
                    reader.reset()
                self._stop.wait(1)

    def poll_once(self) -> bool:
        """One pass over the readable shards; True when a batch was handed to the function."""
        delivered = False
        for reader in self.tail.readable():
            self._read(reader)
            delivered |= self._handle(reader)
        return delivered

    def _read(self, reader: ShardReader) -> None:
        if reader.closed or len(reader.pending) >= self.batch_size:
            return
        records = self.tail.fetch(reader)
        wanted = [lambda_record(r, self.stream_arn) for r in records if passes_filter(r)]
        if wanted and not reader.pending:
            # Lambda's poller keeps reading while the function runs; this one reads right after
            # it returns, so records written meanwhile count as read since the invocation began.
            reader.first_pending_at = reader.read_while_busy_since or time.monotonic()
        reader.read_while_busy_since = None
        reader.pending += wanted
        if records and not reader.pending:
            reader.checkpoint = records[-1]["dynamodb"]["SequenceNumber"]

    def _handle(self, reader: ShardReader) -> bool:
        """Delivers a batch when it is full, its window has passed or the shard has ended."""
        if not reader.pending:
            return False
        waited = time.monotonic() - reader.first_pending_at
        if len(reader.pending) < self.batch_size and waited < self.window and not reader.closed:
            return False
        batch = reader.pending[: self.batch_size]
        started = time.monotonic()
        failed = self._deliver(batch)
        done = batch if failed is None else [r for r in batch if sequence(r) < failed]
        reader.pending = reader.pending[len(done):]
        reader.first_pending_at = reader.read_while_busy_since = started
        self.delivered += len(done)
        if done:
            reader.checkpoint = done[-1]["dynamodb"]["SequenceNumber"]
        if failed is None:
            reader.attempts = 0
            return True
        reader.attempts = 1 if done else reader.attempts + 1
        if reader.attempts > self.max_retries:
            self.dead_letters.append(reader.pending.pop(0))
            reader.checkpoint = self.dead_letters[-1]["dynamodb"]["SequenceNumber"]
            sys.stderr.write(f"stream record sent to dead letters after {self.max_retries} retries\n")
            reader.attempts = 0
        else:
            self._stop.wait(min(0.05 * 2 ** reader.attempts, 2))
        return True

    def _deliver(self, batch: list[dict]) -> int | None:
        """Calls the handler; the lowest failed sequence number, or None when all succeeded."""
        try:
            response = self._invoke({"Records": batch}) or {}
        except Exception as error:  # the whole batch failed, as a Lambda error would
            sys.stderr.write(f"stream handler failed: {error!r}\n")
            return sequence(batch[0])
        failures = [int(f["itemIdentifier"]) for f in response.get("batchItemFailures", [])]
        return min(failures) if failures else None
