"""`make bench-replay`: a settled 1,000-racer, 300-second race's replay as stored and as served.

Rows from the simulator's riders (``simulator.profiles``: each racer's own range, trending, jittered) and,
for the worst case, from riders whose every second is drawn at random over the contract's whole range.
Prints each part's item size, the write and read units, the time to compute the rows, then puts the race,
its board and its replay into DynamoDB Local and reads it through the route's handler: requests, time,
answer bytes, gzipped (what CloudFront sends a browser that accepts it)."""

from __future__ import annotations

import gzip
import json
import math
import random
import statistics
import time
from decimal import Decimal

from alleycat.rules import replay
from alleycat.rules.board import Standing
from alleycat.rules.samples import Sample
from alleycat.storage import dynamo
from alleycat.storage import entities as e
from alleycat.storage.sizing import item_size
from simulator.profiles import RacerProfile

from . import env
from .env import say

RACERS, SECONDS, READS = 1000, 300, 20
RACE_ID, CLASS_ID = "01JD5Z6Q8X0000000000000REP", "hill-climb"


def simulated(racer_id: str) -> dict[int, Sample]:
    effort = RacerProfile.for_racer(racer_id).in_race(RACE_ID, SECONDS)
    return {second: Sample(sent["cadence"], sent["resistance"])
            for second, sent in ((second, effort.sample(second)) for second in range(SECONDS))}


def at_random(racer_id: str) -> dict[int, Sample]:
    rng = random.Random(racer_id)
    return {second: Sample(rng.randint(0, 300), rng.randint(0, 100)) for second in range(SECONDS)}


def stored(kind: str, rides) -> list[e.ReplayPart]:
    racer_ids = [f"racer-{n:04d}" for n in range(RACERS)]
    samples = {racer_id: rides(racer_id) for racer_id in racer_ids}
    started = time.perf_counter()
    rows = {racer_id: replay.cumulative_tenths(ride, SECONDS) for racer_id, ride in samples.items()}
    parts = e.ReplayPart.split(RACE_ID, replay.step_of(SECONDS), rows)
    computed_ms = (time.perf_counter() - started) * 1000
    sizes = [item_size(part.to_item()) for part in parts]
    say(f"{kind}: {len(parts)} parts of {', '.join(f'{size:,}' for size in sizes)} bytes ({sum(sizes):,} in all, "
        f"{sum(sizes) / RACERS / SECONDS:.2f} bytes a racer-second); rows computed in {computed_ms:.0f} ms")
    say(f"{kind}: written once: {sum(math.ceil(size / 1024) for size in sizes):,} write units; read: "
        f"{math.ceil(sum(sizes) / 4096) / 2:,.1f} read units (eventually consistent)")
    return parts


def served(dynamo_local: env.Dynamo, parts: list[e.ReplayPart]) -> None:
    dynamo_local.create(f"replay-{time.time_ns()}")
    race = e.Race(RACE_ID, CLASS_ID, "Hill climb", "2026-11-22T10:00:00Z", SECONDS, e.FINISHED, RACERS, settled=True)
    boards = [item for item in e.new_race_items(race) if isinstance(item, e.RaceBoard)]
    for part in parts:
        for racer_id, row in part.rows.items():
            boards[e.RaceBoard.shard_of(racer_id)].standings[racer_id] = \
                Standing(racer_id, Decimal(row[-1]) / 10, SECONDS - 1, f"Racer {racer_id[-4:]}").item()
    dynamo_local.put_all([item.to_item() for item in (race, *boards, *parts)])
    requests: list[str] = []
    dynamo.client().meta.events.register("before-call.dynamodb", lambda event_name, **_: requests.append(event_name))
    timings, cpu, body = [], [], ""
    for _ in range(READS):
        started, used = time.perf_counter(), time.process_time()
        answer = env.invoke("get_race_replay", env.event("get_race_replay", {"raceId": RACE_ID}))
        timings.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
        assert answer["statusCode"] == 200, answer
        body = answer["body"]
    zipped = len(gzip.compress(body.encode(), 6))
    say(f"served: {len(requests) / READS:.0f} Query a read; handler {statistics.median(timings):.0f} ms median of "
        f"{READS}, {statistics.median(cpu):.0f} ms of CPU (DynamoDB Local, this machine); answer {len(body):,} bytes, "
        f"{zipped:,} gzipped")
    assert len(json.loads(body)["scores"]) == RACERS


def main() -> None:
    say(f"replay of {RACERS:,} racers x {SECONDS} s")
    simulated_parts = stored("simulated riders", simulated)
    stored("random riders (worst case)", at_random)
    with env.Dynamo() as dynamo_local:
        served(dynamo_local, simulated_parts)


if __name__ == "__main__":
    main()
