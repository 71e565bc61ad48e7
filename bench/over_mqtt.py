"""The MQTT path of race day (contract v1.3): what a bike's connection and its messages cost through the real
handlers, as AWS would run them.

- **connect**: IoT Core calls the custom authorizer (``functions/authorize_ingest``) once a connection with the
  racer's access token as the password, signed by a key this module serves as the user pool's JWKS on loopback.
- **publish**: each message becomes the topic rule's record (``alleycat.edge.mqtt.rule_record``, on the rule's time
  of arrival), put on the Kinesis shard its partition key hashes to (MD5, the shards splitting the hash range
  evenly), and reaches ``functions/ingest_telemetry`` as the event source mapping delivers it: each shard's records
  in ``INGEST_PARALLELIZATION`` lanes (a hash of the partition key), each lane's second in batches of at most
  ``INGEST_BATCH_SIZE`` (no batching window: a lane's batch is what arrived since its last read, a second).
- **tick**: the race's ticker (``alleycat.flows.ticking.tick``) on a clock the bench moves, from the race's first
  second until it is settled (the finish at ``ticks_after_end``), publishing to a recorder.
"""

from __future__ import annotations

import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

from alleycat import settings
from alleycat.edge import mqtt
from alleycat.edge.ingest_auth import client_arn, topic_arn
from local.auth import SigningKey
from local.kinesis import lambda_record, lane_of
from stacks.settings import API_SCOPES, INGEST_BATCH_SIZE, INGEST_PARALLELIZATION, INGEST_SHARDS

from .capacity_fanin import shard_of as key_shard

ARN_PREFIX, CLIENT_ID = "arn:aws:iot:us-east-1:000000000000:", "bench-client"


def shard_of(partition_key: str, shards: int = INGEST_SHARDS) -> int:
    return key_shard(partition_key, shards)


def batches(records: list[tuple[str, bytes]], arrival: float, sequence: int, shards: int = INGEST_SHARDS,
            lanes: int = INGEST_PARALLELIZATION, size: int = INGEST_BATCH_SIZE) -> list[list[dict]]:
    """A second's ``(partition key, data)`` records as the mapping's events: by shard, by lane, ``size`` at most."""
    return [batch for lane in lane_batches(records, arrival, sequence, shards, lanes, size) for batch in lane]


def lane_batches(records: list[tuple[str, bytes]], arrival: float, sequence: int, shards: int = INGEST_SHARDS,
                 lanes: int = INGEST_PARALLELIZATION, size: int = INGEST_BATCH_SIZE) -> list[list[list[dict]]]:
    """``batches``, each lane's in its order: a lane delivers its next batch only once its last one succeeded."""
    by_lane: dict[tuple[int, int], list[dict]] = {}
    for n, (key, data) in enumerate(records):
        shard = shard_of(key, shards)
        record = lambda_record(f"shardId-{shard:012d}", f"{sequence + n:056d}", key, data, arrival)
        by_lane.setdefault((shard, lane_of(key, lanes)), []).append(record)
    return [[lane[start:start + size] for start in range(0, len(lane), size)] for _, lane in sorted(by_lane.items())]


def rounds(lanes: list[list[list[dict]]]) -> list[list[list[dict]]]:
    """The lanes' batches as rounds that may run at once: every lane's first batch, then every lane's second…"""
    return [[lane[n] for lane in lanes if n < len(lane)] for n in range(max(map(len, lanes), default=0))]


class Jwks:
    """The user pool's signing key and its ``<issuer>/.well-known/jwks.json`` on loopback, as Cognito serves it."""

    def __init__(self):
        self.key = SigningKey()
        body = json.dumps({"keys": [self.key.jwk]}).encode()

        class Answer(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}/bench-pool"

    def environment(self) -> dict:
        """The authorizer's settings, as the stack sets them (stacks/ingest_auth.py)."""
        return {settings.INGEST_ISSUER: self.issuer, settings.INGEST_CLIENT_ID: CLIENT_ID,
                settings.INGEST_SCOPES: " ".join(API_SCOPES), settings.INGEST_USERNAME: mqtt.USERNAME,
                settings.INGEST_TOPIC_ARN: topic_arn(ARN_PREFIX, mqtt.TOPIC), settings.INGEST_CLIENT_ARN: client_arn(ARN_PREFIX)}

    def connect_event(self, racer: str) -> dict:
        """IoT Core's event for the racer's MQTT CONNECT: its access token as the password (base64, as IoT sends it)."""
        now = int(time.time())
        token = self.key.sign({"sub": racer, "iss": self.issuer, "client_id": CLIENT_ID, "token_use": "access",
                               "scope": " ".join(API_SCOPES), "iat": now, "exp": now + 3600})
        return {"protocolData": {"mqtt": {"username": f"{mqtt.USERNAME}?x-amz-customauthorizer-name=alleycat",
                                          "clientId": f"bike-{racer[:8]}", "password": base64.b64encode(token.encode()).decode()}},
                "protocols": ["mqtt"], "connectionMetadata": {"id": racer}}

    def stop(self) -> None:
        self.server.shutdown()


def dropped(runs: list[dict]) -> int:
    """Messages the consumer counted nothing of (its ``MessagesDropped`` metric; a counted one writes no metric)."""
    return int(sum(value for run in runs for line in run["emf_lines"] for value in json.loads(line).get("MessagesDropped", [])))


class Recorder:
    """The ticker's publisher: what it sends, as AppSync Events would receive it."""

    def __init__(self):
        self.sent: list[int] = []

    def publish(self, channel: str, events: list[dict]) -> None:
        self.sent.append(len(json.dumps({"channel": channel, "events": [json.dumps(e) for e in events]})))


def ticker(race_id: str, ledger, finish) -> dict:
    """The race's ticker from its first second until settled, on a clock moved by its own sleeps; ``finish()``
    ends the race ``ticks_after_end`` seconds after its end (the finisher, the stream). The ledger records its
    requests as ``tick``; CPU time is this process's outside ``finish``."""
    from alleycat import clock
    from alleycat.flows import ticking
    from alleycat.rules import ticking as rules
    from alleycat.storage import races

    from .pricing import ASSUMED

    race = races.get(race_id, consistent=True)
    assert race is not None
    start = clock.race_start(race.startsAt)
    assert start is not None
    now, finished_at = [rules.tick_at(start, 0) - 0.25], race.durationSeconds + ASSUMED["ticks_after_end"]["value"]
    outside = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds
        current = races.get(race_id)
        if rules.due(start, now[0]) >= finished_at and current is not None and not current.settled:
            used, ledger.label = time.process_time(), "finish"
            finish()
            ledger.label, outside[0] = "tick", outside[0] + time.process_time() - used

    real = SimpleNamespace(now=clock.now, sleep=clock.sleep)
    clock.use(SimpleNamespace(now=lambda: now[0], sleep=sleep))
    recorder, ledger.label, cpu = Recorder(), "tick", time.process_time()
    try:
        outcome = ticking.tick(race_id, recorder, "arn:aws:lambda:us-east-1:000000000000:function:tick_race", "bench")
    finally:
        clock.use(real)
    cpu = time.process_time() - cpu - outside[0]
    calls = [c for c in ledger.calls if c.label == "tick"]
    claims = sum(1 for c in calls if c.operation == "UpdateItem")
    return {"outcome": outcome, "ticks": claims, "messages": len(recorder.sent), "requests_per_tick": len(calls) / claims,
            "wcu_per_tick": sum(c.write_units + c.index_units for c in calls) / claims,
            "rcu_per_tick": sum(c.read_units for c in calls) / claims, "cpu_ms_per_tick": cpu * 1000 / claims,
            "bytes_per_message": sum(recorder.sent) / max(1, len(recorder.sent))}
