"""The local event source mapping: the embedded table's stream -> the stream handler.

Reads the stream as Lambda's DynamoDB event source mapping does and calls the same
handler with the same event shape. A reported batch item failure is retried from
that record (up to ``max_retries`` times, then the record goes to ``dead_letters``,
as the SQS on-failure destination would take it).
"""

from __future__ import annotations

import base64
import sys
import threading

from . import handlers  # noqa: I001 - puts the layer on sys.path first
from alleycat.routes import STREAM_PROCESSOR_TYPES

FUNCTION = "stream_processor"


def lambda_record(record: dict, stream_arn: str) -> dict:
    """A boto3 GetRecords record as Lambda delivers it (epoch times, base64 binaries)."""
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if hasattr(created, "timestamp"):
        change["ApproximateCreationDateTime"] = int(created.timestamp())
    for image in ("Keys", "NewImage", "OldImage"):
        if image in change:
            change[image] = _base64_binaries(change[image])
    return {"eventID": record["eventID"], "eventName": record["eventName"], "eventVersion": "1.1",
            "eventSource": "aws:dynamodb", "awsRegion": record.get("awsRegion", "us-east-1"),
            "dynamodb": change, "eventSourceARN": stream_arn}


def _passes_filter(record: dict) -> bool:
    """The event source mapping's filter: only records of the item types the processor acts on."""
    return record["dynamodb"].get("NewImage", {}).get("type", {}).get("S") in STREAM_PROCESSOR_TYPES


def _base64_binaries(value):
    if isinstance(value, dict):
        if set(value) == {"B"} and isinstance(value["B"], (bytes, bytearray)):
            return {"B": base64.b64encode(value["B"]).decode()}
        return {k: _base64_binaries(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_base64_binaries(v) for v in value]
    return value


class StreamPoller:
    def __init__(self, endpoint_url: str, table_name: str, batch_size: int = 1000,
                 window_seconds: float = 0.25, max_retries: int = 5, invoke=None):
        import boto3

        self._streams = boto3.client("dynamodbstreams", endpoint_url=endpoint_url)
        self._table = boto3.client("dynamodb", endpoint_url=endpoint_url).describe_table(TableName=table_name)["Table"]
        self.stream_arn = self._table["LatestStreamArn"]
        self.batch_size, self.window, self.max_retries = batch_size, window_seconds, max_retries
        self._invoke = invoke or (lambda event: handlers.invoke(FUNCTION, event))
        self.dead_letters: list[dict] = []
        self.delivered = 0
        self._checkpoint: str | None = None  # the last record handled: a restart resumes after it
        self._stop = threading.Event()
        self._idle = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stream", daemon=True)

    def start(self) -> "StreamPoller":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def wait_idle(self, timeout: float = 30) -> bool:
        """True once everything written so far has been handled (for tests)."""
        self._idle.clear()
        return self._idle.wait(timeout)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._poll()
            except Exception as error:  # keep the local stack alive; say what happened
                sys.stderr.write(f"stream poller restarting after: {error!r}\n")
                self._stop.wait(1)

    def _poll(self) -> None:
        shard = self._streams.describe_stream(StreamArn=self.stream_arn)["StreamDescription"]["Shards"][0]["ShardId"]
        start = ({"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": self._checkpoint}
                 if self._checkpoint else {"ShardIteratorType": "TRIM_HORIZON"})
        iterator = self._streams.get_shard_iterator(StreamArn=self.stream_arn, ShardId=shard, **start)["ShardIterator"]
        pending: list[dict] = []
        attempts = 0
        while not self._stop.is_set():
            response = self._streams.get_records(ShardIterator=iterator, Limit=1000)
            iterator = response["NextShardIterator"]
            pending += [lambda_record(r, self.stream_arn) for r in response["Records"] if _passes_filter(r)]
            if not pending:
                self._idle.set()
                self._stop.wait(self.window)
                continue
            batch = pending[: self.batch_size]
            failed = self._deliver(batch)
            done = batch if failed is None else [r for r in batch if int(r["dynamodb"]["SequenceNumber"]) < failed]
            pending = pending[len(done):]
            self.delivered += len(done)
            if done:
                self._checkpoint = done[-1]["dynamodb"]["SequenceNumber"]
            if failed is None:
                attempts = 0
                continue
            attempts = 1 if done else attempts + 1
            if attempts > self.max_retries:
                self.dead_letters.append(pending.pop(0))
                self._checkpoint = self.dead_letters[-1]["dynamodb"]["SequenceNumber"]
                sys.stderr.write(f"stream record sent to dead letters after {self.max_retries} retries\n")
                attempts = 0
            else:
                self._stop.wait(min(0.05 * 2 ** attempts, 2))

    def _deliver(self, batch: list[dict]) -> int | None:
        """Calls the handler; the lowest failed sequence number, or None when all succeeded."""
        try:
            response = self._invoke({"Records": batch}) or {}
        except Exception as error:  # the whole batch failed, as a Lambda error would
            sys.stderr.write(f"stream handler failed: {error!r}\n")
            return int(batch[0]["dynamodb"]["SequenceNumber"])
        failures = [int(f["itemIdentifier"]) for f in response.get("batchItemFailures", [])]
        return min(failures) if failures else None
