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
        dynamo.client().meta.events.unregister("before-call.dynamodb", counted)
        fan_in(race_id)


FAN_IN_RACERS, FAN_IN_SECONDS, CHUNK_EVERY = 1_000, 5, 30


def fan_in(race_id: str) -> None:
    """The fan-in's writes (docs/fan-in.md) at ``FAN_IN_RACERS`` racers, each one's second a second, on DynamoDB
    Local (which reports the capacity units DynamoDB would charge): the second blocks as ``storage.blocks``
    writes them (one update a slice a second: a consumer's batch carries its slices whole), each slice's board
    as ``blocks.add_to_board`` reads and writes it (once a slice a second), and a racer's 30-second history
    chunk, as today's chunks, once a racer every ``CHUNK_EVERY`` seconds."""
    from decimal import Decimal

    from alleycat.rules import fanin
    from alleycat.rules.samples import OUTPUT, Sample
    from alleycat.storage import blocks
    from alleycat.storage import entities as e

    units: dict[str, float] = {}

    def ask_units(params, **_):
        params["ReturnConsumedCapacity"] = "TOTAL"

    def add_units(parsed, model, **_):
        units[model.name] = units.get(model.name, 0.0) + parsed.get("ConsumedCapacity", {}).get("CapacityUnits", 0.0)

    events = dynamo.client().meta.events
    events.register("provide-client-params.dynamodb", ask_units)
    events.register("after-call.dynamodb", add_units)
    racers = [f"racer-{n:04d}-0000-0000-0000-000000000000" for n in range(FAN_IN_RACERS)]
    by_slice: dict[int, dict[str, str]] = {}  # slice -> tag -> racer, each racer's first free candidate (as joins claim)
    for racer in racers:
        taken = by_slice.setdefault(fanin.slice_of(racer, fanin.SLICES), {})
        taken[next(tag for tag in fanin.tags_of(racer) if tag not in taken)] = racer
    sample = Sample(Decimal("84.5"), 47, 131)
    for second in range(FAN_IN_SECONDS):
        for slice_, members in by_slice.items():
            mark = f"{49_000_000 + second * 100 + slice_:056d}"  # the record's sequence number
            origin = fanin.origin_of(f"shardId-000000000001:{mark}")
            counted = blocks.count(race_id, slice_, second, {tag: fanin.Counted(sample, origin) for tag in members})
            assert len(counted.counted) == len(members)
    block_units = units.pop("UpdateItem", 0.0)
    for second in range(FAN_IN_SECONDS):
        for slice_, members in by_slice.items():
            mark = f"{49_000_000 + second * 100 + slice_:056d}"
            gains = [fanin.Gain(tag, second, sample.score(OUTPUT), mark) for tag in members]
            assert blocks.add_to_board(race_id, slice_, gains, "shardId-000000000001")
    board_units, board_reads = units.pop("UpdateItem", 0.0), units.pop("GetItem", 0.0)
    chunk = e.Chunk(race_id, racers[0], 1, "hill", Decimal("3900.1234"), {s: sample for s in range(30, 60)})
    dynamo.send("put_item", Item=chunk.to_item())
    chunk_units = units.pop("PutItem", 0.0)
    events.unregister("provide-client-params.dynamodb", ask_units)
    events.unregister("after-call.dynamodb", add_units)
    racer_seconds = FAN_IN_RACERS * FAN_IN_SECONDS
    sizes = sorted(len(members) for members in by_slice.values())
    updates = len(by_slice) * FAN_IN_SECONDS
    per_block, per_board, per_chunk = block_units / racer_seconds, board_units / racer_seconds, chunk_units / CHUNK_EVERY
    say(f"fan-in, {FAN_IN_RACERS:,} racers in {fanin.SLICES} slices ({sizes[0]}-{sizes[-1]} racers each), {FAN_IN_SECONDS} s, "
        f"36-character ids, {fanin.TAG_CHARS}-character tags, packed values, capacity units as DynamoDB Local reports them:")
    say(f"  second blocks: {block_units / updates:.2f} WCU an update, {per_block:.3f} a racer-second")
    say(f"  slice boards, one write a slice a second: {board_units / updates:.2f} WCU a write, {per_board:.3f} a "
        f"racer-second; their strongly consistent reads {board_reads / updates:.2f} RCU each, {board_reads / racer_seconds:.4f} "
        f"a racer-second (a read unit is a fifth of a write unit's price)")
    say(f"  a racer's 30-s chunk once every {CHUNK_EVERY} s: {chunk_units:.0f} WCU, {per_chunk:.3f} a racer-second")
    say(f"  hot path (blocks + boards): {per_block + per_board:.3f} WCU a racer-second (goal 0.1); in all, chunks too: "
        f"{per_block + per_board + per_chunk:.3f} (today's path: one chunk update a racer-second, 1.0 and more)")


if __name__ == "__main__":
    main()
