"""Requests and capacity units per route on a small and a ten times larger table; handler overhead."""

from __future__ import annotations

import time
from collections import Counter
from decimal import Decimal

from alleycat import entities as e
from alleycat import ids, store
from alleycat.board import ClassBoard, ClassStanding, Standing

from . import env
from .bikes import percentile
from .env import say
from .ledger import Ledger, busy_seconds, size

ROUTE_ORDER = ("put_racer", "put_class", "create_race", "join_race", "post_telemetry", "get_race",
               "get_race_leaderboard", "get_racer_results", "get_racer_history", "get_class_races",
               "get_class_leaderboard", "finish_race")
RACE_ID, CLASS_ID, RACER_ID = "01JD5Z6Q8X0000000000000000", "hill-climb", "racer-1"  # what the events/ files name


def seed_event_fixtures(dynamo: env.Dynamo, table: str) -> None:
    """The class, racer and race the events/ files name, so every first request finds its data."""
    dynamo.create(table)
    store.put_class(e.Class(CLASS_ID, "Hill climb"))
    store.put_racer(e.Racer(RACER_ID, "Racer One"))
    race = store.create_race(e.Race(RACE_ID, CLASS_ID, "Hill climb", "2026-11-22T10:00:00Z", 300))
    store.join_race(race, e.Racer(RACER_ID, "Racer One"))
    env.invoke("post_telemetry", env.event("post_telemetry"))


def _race_items(race_id: str, class_id: str, racer_ids: list[str]) -> list[dict]:
    race = e.Race(race_id, class_id, "Hill climb" if class_id == CLASS_ID else class_id, "2026-11-22T10:00:00Z", 300,
                  racerCount=len(racer_ids))
    created = e.new_race_items(race)
    boards = [item for item in created if isinstance(item, e.RaceBoard)]
    for n, racer_id in enumerate(racer_ids):
        boards[e.RaceBoard.shard_of(racer_id)].standings[racer_id] = \
            Standing(racer_id, Decimal(n * 311) / 7, 59, f"Racer {n}").item()
    entries = [e.Entry(race_id, r, f"Racer {n}", class_id, race.startsAt, chunks={"0": [Decimal("5200.1234"), 59]})
               for n, r in enumerate(racer_ids)]
    return [x.to_item() for x in (*created, *entries)]


def seed(dynamo: env.Dynamo, table: str, scale: int) -> dict:
    """A table whose partitions the events read hold `scale` x 12 races, results and chunks: items, bytes."""
    dynamo.create(table)
    field = [f"racer-{n}" for n in range(2, 12)]
    items = [e.Racer(f"racer-{n}", f"Racer {n}").to_item() for n in range(1, 10 * scale + 12)]
    items += [e.Class(CLASS_ID, "Hill climb").to_item()] + [e.Class(f"class-{n}", f"Class {n}").to_item() for n in range(2 * scale)]
    items += _race_items(RACE_ID, CLASS_ID, field)
    for n in range(12 * scale):
        race_id = ids.new_race_id()
        items += _race_items(race_id, CLASS_ID, field)
        items.append(e.Entry(race_id, RACER_ID, "Racer One", CLASS_ID, "2026-11-22T10:00:00Z", chunks={"0": [Decimal(900 + n), 59]}).to_item())
        items.append(e.Chunk(race_id, RACER_ID, 0, CLASS_ID, Decimal("5200.1234"),
                             {s: [Decimal("84.25"), 47] for s in range(60)}).to_item())
    for n in range(2 * scale):
        for _ in range(4):
            items += _race_items(ids.new_race_id(), f"class-{n}", field)
    board = e.ClassBoard(CLASS_ID, ClassBoard(ClassStanding(f"racer-{n}", Decimal(n * 97) / 3, RACE_ID, f"Racer {n}")
                                               for n in range(2, 10 * scale + 12)).item())
    items.append({**board.to_item(), "version": {"N": "1"}})
    dynamo.put_all(items)
    pages = store.client().get_paginator("scan").paginate(TableName=table)
    stored = [item for page in pages for item in page["Items"]]
    return {"items": len(stored), "bytes": sum(map(size, stored))}


def per_route(ledger: Ledger) -> dict:
    """One invocation of each route's events/ request: status, requests by operation, units."""
    figures = {}
    for route in ROUTE_ORDER:
        ledger.take()
        response = env.invoke(route, env.event(route))
        calls = ledger.take()
        figures[route] = {
            "status": response["statusCode"], "requests": len(calls),
            "operations": dict(Counter(c.operation for c in calls)),
            "rcu": sum(c.read_units for c in calls), "read_bytes": sum(c.read_bytes for c in calls),
            "wcu": sum(c.write_units for c in calls), "index_wcu": sum(c.index_units for c in calls),
        }
    return figures


def overhead(ledger: Ledger, route: str, payload: dict, runs: int) -> dict:
    """p50/p99 of a warm invocation's time outside DynamoDB (requests' time subtracted)."""
    env.invoke(route, payload)
    outside, total = [], []
    for _ in range(runs):
        ledger.take()
        start = time.perf_counter()
        env.invoke(route, payload)
        elapsed = time.perf_counter() - start
        outside.append((elapsed - busy_seconds([(c.start, c.stop) for c in ledger.take()])) * 1000)
        total.append(elapsed * 1000)
    return {"runs": runs, "p50_ms": percentile(outside, 50), "p99_ms": percentile(outside, 99),
            "total_p50_ms": percentile(total, 50)}


def overheads(ledger: Ledger, runs: int) -> dict:
    out = {}
    for route in ROUTE_ORDER:
        out[route] = overhead(ledger, route, env.event(route), runs)
        say(f"overhead {route:24s} p50 {out[route]['p50_ms']:6.2f} ms  p99 {out[route]['p99_ms']:6.2f} ms outside DynamoDB")
    return out
