"""`make bench-ingest-log`: the telemetry log's record and its consumer, measured on DynamoDB Local.

A race of ``RACERS`` joined riders; each second, every rider's one-sample message as the topic rule puts it into
Kinesis (``alleycat.edge.mqtt.rule_record``), ``BATCH`` records an invocation of ``functions/ingest_telemetry``
(``stacks/settings.py``'s batch size). Prints a record's bytes (what a shard's 1 MB/s counts, with its partition
key), the DynamoDB requests a record costs, and the consumer's time per record on this machine (a
loopback DynamoDB Local: AWS's round trips are longer, about 5 ms each)."""

from __future__ import annotations

import json
import statistics
import time

from alleycat.edge import mqtt
from alleycat.storage import dynamo
from local.kinesis import lambda_record
from stacks.settings import INGEST_BATCH_SIZE as BATCH

from . import env
from .env import say

RACERS, SECONDS = BATCH, 5
ADMIN = {"sub": "ops", "cognito:groups": "[admin]"}


def main() -> None:
    with env.Dynamo() as dynamo_local:
        dynamo_local.create(f"ingest-{time.time_ns()}")
        assert env.invoke("put_class", env.event("put_class", body={"name": "Hill climb"}, claims=ADMIN))["statusCode"] == 200
        created = env.invoke("create_race", env.event("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN))
        race_id = json.loads(created["body"])["raceId"]
        racers = [f"racer-{n:04d}-0000-0000-0000-000000000000" for n in range(RACERS)]  # Cognito subs' 36 characters
        for racer in racers:
            env.invoke("put_racer", env.event("put_racer", {"racerId": racer}, body={"name": racer[:10]}, claims=ADMIN))
            env.invoke("join_race", env.event("join_race", {"raceId": race_id, "racerId": racer}, claims=ADMIN))
        arrival = env.event("post_telemetry")["requestContext"]["timeEpoch"] / 1000
        requests: list[str] = []

        def counted(event_name, **_):
            requests.append(event_name.rsplit(".", 1)[-1])

        dynamo.client().meta.events.register("before-call.dynamodb", counted)
        sizes, per_record_ms, cpu_ms, sequence = [], [], [], 0
        for second in range(SECONDS):
            records = []
            for racer in racers:
                body = {"samples": [{"second": second, "cadence": 84.5, "resistance": 47, "heartRate": 131}]}
                data, key = mqtt.rule_record(mqtt.TOPIC.format(raceId=race_id, racerId=racer), json.dumps(body).encode(), arrival)
                sizes.append(len(data) + len(key))
                sequence += 1
                records.append(lambda_record("shardId-000000000000", f"{sequence:056d}", key, data, arrival))
            started, used = time.perf_counter(), time.process_time()
            answer = env.invoke("ingest_telemetry", {"Records": records})
            per_record_ms.append((time.perf_counter() - started) * 1000 / len(records))
            cpu_ms.append((time.process_time() - used) * 1000 / len(records))
            assert answer == {"batchItemFailures": []}, answer
        messages = RACERS * SECONDS
        say(f"record: {statistics.mean(sizes):.0f} bytes with its partition key (a one-sample message, 36-character ids): "
            f"a shard's 1,000 records/s binds before its 1 MB/s ({1_000_000 / statistics.mean(sizes):,.0f} records)")
        kinds = sorted(set(requests))
        say(f"consumer: {len(requests) / messages:.2f} DynamoDB requests a record "
            f"({', '.join(f'{requests.count(kind) / messages:.2f} {kind}' for kind in kinds)})")
        say(f"consumer: {statistics.median(per_record_ms):.1f} ms a record, {statistics.median(cpu_ms):.1f} ms of it the "
            f"function's CPU, median of {SECONDS} batches of {BATCH} (DynamoDB Local on loopback, this machine)")


if __name__ == "__main__":
    main()
