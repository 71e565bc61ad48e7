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


# Two history chunks a racer (the first one done: its entry written), after the seconds main's consumer counted.
FAN_IN_RACERS, FAN_IN_SECONDS, FIRST = 1_000, 60, 60


def fan_in(race_id: str) -> None:
    """The fan-in's writes (docs/fan-in.md) at ``FAN_IN_RACERS`` racers, each one's second a second, on DynamoDB
    Local (which reports the capacity units DynamoDB would charge). On the hot path: the second blocks as
    ``storage.blocks`` writes them (one update a slice a second: a consumer's batch carries its slices whole) and
    each slice's board as ``blocks.add_to_board`` reads and writes it (once a slice a second). Off it: the history
    writer (``stream.history_writer``) given every block's record of the ``FAN_IN_SECONDS`` in one batch, as its
    mapping's window gathers them (one chunk write a racer a 30-s chunk), and the stream processor's scoring of
    those chunks (``stream.scoring``: the entry's totals once a chunk is done) for the racers the race has entries
    of (``main``'s ``RACERS``)."""
    import os
    from decimal import Decimal

    from alleycat import settings
    from alleycat.rules import fanin
    from alleycat.rules.samples import OUTPUT, Sample
    from alleycat.storage import blocks, racers
    from alleycat.storage import entities as e
    from alleycat.stream import history_writer, scoring

    units: dict[str, float] = {}
    calls: dict[str, int] = {}

    def ask_units(params, **_):
        params["ReturnConsumedCapacity"] = "TOTAL"

    def add_units(parsed, model, **_):
        consumed = parsed.get("ConsumedCapacity", {})  # a list for a batch request: a table each
        total = sum(c.get("CapacityUnits", 0.0) for c in (consumed if isinstance(consumed, list) else [consumed]))
        units[model.name] = units.get(model.name, 0.0) + total
        calls[model.name] = calls.get(model.name, 0) + 1

    os.environ[settings.FAN_IN] = "on"  # the stream processor's scoring as it is with the fan-in
    settings.reset()
    events = dynamo.client().meta.events
    riders = [f"racer-{n:04d}-0000-0000-0000-000000000000" for n in range(FAN_IN_RACERS)]
    tags = {entry.racerId: entry.tag for entry in racers.get_entries(race_id, riders[:RACERS])}  # main's joins
    by_slice: dict[int, dict[str, str]] = {}  # slice -> tag -> racer, each racer's first free candidate (as joins claim)
    for racer in riders:
        taken = by_slice.setdefault(fanin.slice_of(racer, fanin.SLICES), {})
        tag = tags.get(racer) or next(tag for tag in fanin.tags_of(racer) if tag not in taken)
        taken[tag] = racer
        if racer not in tags:  # the join's claim, for the racers main did not join
            dynamo.send("put_item", Item=e.SliceTag(race_id, fanin.slice_of(racer, fanin.SLICES), tag, racer).to_item())
    events.register("provide-client-params.dynamodb", ask_units)
    events.register("after-call.dynamodb", add_units)
    sample = Sample(Decimal("84.5"), 47, 131)
    records: list[dict] = []
    for second in range(FIRST, FIRST + FAN_IN_SECONDS):
        for slice_, members in by_slice.items():
            mark = f"{49_000_000 + second * 100 + slice_:056d}"  # the record's sequence number
            origin = fanin.origin_of(f"shardId-000000000001:{mark}")
            sent = {tag: fanin.Counted(sample, origin) for tag in members}
            counted = blocks.count(race_id, slice_, second, sent)
            assert len(counted.counted) == len(members)
            records.append({"dynamodb": {  # the block's stream record, as the history writer's mapping delivers it
                "SequenceNumber": str(len(records) + 1),
                "NewImage": e.SecondBlock(race_id, slice_, second, dict(sent)).to_item(),
                "OldImage": e.SecondBlock(race_id, slice_, second).to_item()}})
    block_units = units.pop("UpdateItem", 0.0)
    for second in range(FIRST, FIRST + FAN_IN_SECONDS):
        for slice_, members in by_slice.items():
            mark = f"{49_000_000 + second * 100 + slice_:056d}"
            gains = [fanin.Gain(tag, second, sample.score(OUTPUT), mark) for tag in members]
            assert blocks.add_to_board(race_id, slice_, gains, "shardId-000000000001")
    board_units, board_reads = units.pop("UpdateItem", 0.0), units.pop("GetItem", 0.0)
    units.clear()
    calls.clear()
    assert history_writer.write(records) == []
    writer_units, writer_reads, writes = units.pop("UpdateItem", 0.0), units.pop("Query", 0.0), calls["UpdateItem"]
    units.clear()
    entered = riders[:RACERS]
    chunks = {(race_id, racer): {FIRST // e.Chunk.SECONDS, FIRST // e.Chunk.SECONDS + 1} for racer in entered}
    scored = scoring.score(chunks, dict.fromkeys(chunks, "1"))
    assert not scored.failed and not scored.boards, (scored.failed, scored.boards)  # the slice boards hold the scores
    entry_units, entry_reads = units.pop("UpdateItem", 0.0), units.pop("BatchGetItem", 0.0)
    events.unregister("provide-client-params.dynamodb", ask_units)
    events.unregister("after-call.dynamodb", add_units)
    racer_seconds = FAN_IN_RACERS * FAN_IN_SECONDS
    sizes = sorted(len(members) for members in by_slice.values())
    updates = len(by_slice) * FAN_IN_SECONDS
    per_block, per_board = block_units / racer_seconds, board_units / racer_seconds
    per_chunk, per_entry = writer_units / racer_seconds, entry_units / (len(entered) * FAN_IN_SECONDS)
    say(f"fan-in, {FAN_IN_RACERS:,} racers in {fanin.SLICES} slices ({sizes[0]}-{sizes[-1]} racers each), {FAN_IN_SECONDS} s, "
        f"36-character ids, {fanin.TAG_CHARS}-character tags, packed values, capacity units as DynamoDB Local reports them:")
    say(f"  second blocks: {block_units / updates:.2f} WCU an update, {per_block:.3f} a racer-second")
    say(f"  slice boards, one write a slice a second: {board_units / updates:.2f} WCU a write, {per_board:.3f} a "
        f"racer-second; their strongly consistent reads {board_reads / updates:.2f} RCU each, {board_reads / racer_seconds:.4f} "
        f"a racer-second (a read unit is a fifth of a write unit's price)")
    say(f"  hot path (blocks + boards): {per_block + per_board:.3f} WCU a racer-second (goal 0.1)")
    say(f"  off it, the history writer ({len(records)} block records, one batch): {writes:,} chunk writes "
        f"({writes / FAN_IN_RACERS:.1f} a racer), {writer_units / writes:.2f} WCU each, {per_chunk:.3f} a racer-second; its reads (the race, each slice's tags) {writer_reads:.1f} RCU the batch")
    say(f"  off it, the stream processor's entry updates (a chunk done, {len(entered)} racers): {per_entry:.4f} WCU a "
        f"racer-second; its reads (entries and chunks) {entry_reads / (len(entered) * FAN_IN_SECONDS):.3f} RCU a racer-second")
    say(f"  in all: {per_block + per_board + per_chunk + per_entry:.3f} WCU a racer-second (the chunk path: one chunk "
        f"update a racer-second, 1.0 and more)")


if __name__ == "__main__":
    main()
