"""Entities as the contract's JSON shapes (``../shared/spec/api.md``), converted in one place."""

from __future__ import annotations

from typing import Any

from alleycat.rules import board
from alleycat.rules.samples import Sample
from alleycat.rules.scores import number
from alleycat.storage import entities as e


def racer(r: e.Racer) -> dict:
    return {"racerId": r.racerId, "name": r.name}


def klass(c: e.ClassFacts) -> dict:
    return {"classId": c.classId, "name": c.name, "description": c.description, "metric": c.metric}


def race(r: e.RaceFacts) -> dict:
    return {"raceId": r.raceId, "classId": r.classId, "startsAt": r.startsAt,
            "durationSeconds": r.durationSeconds, "status": r.status, "racerCount": r.racerCount}


def race_card(card: e.RaceCard) -> dict:
    return {**race(card), "className": card.className}


def race_created(r: e.Race) -> dict:
    body = race(r)
    del body["racerCount"]
    return body


def race_in_class(r: e.Race) -> dict:
    body = race(r)
    del body["classId"]
    return body


def result(entry: e.Entry) -> dict:
    """A racer's result; a reviewed ride says why too (``rules`` it broke, the admin's ``note``)."""
    body: dict[str, Any] = {"raceId": entry.raceId, "classId": entry.classId, "status": entry.raceStatus,
            "startsAt": entry.startsAt, "score": number(entry.score),
            "lastSecond": entry.lastSecond, "rank": entry.rank, "equipment": entry.equipment, "review": entry.review}
    if entry.review:
        body.update(rules=list(entry.rules), note=entry.note)
    return body


def joined(entry: e.Entry) -> dict:
    return {"raceId": entry.raceId, "racerId": entry.racerId, "name": entry.name,
            "score": number(entry.score), "lastSecond": entry.lastSecond, "equipment": entry.equipment}


def race_leaderboard(r: e.Race, boards: list[e.RaceBoard], limit: int, real_only: bool = False) -> dict:
    standings = board.Board.from_shards(boards)
    if real_only:
        standings = standings.real_only()
    items = [{"rank": rank, "racerId": row.racer_id, "name": row.name, "score": number(row.score),
              "lastSecond": row.last_second, "equipment": row.equipment, "review": row.review}
             for rank, row in standings.page(limit)]
    return {"raceId": r.raceId, "classId": r.classId, "status": r.status, "items": items}


def replay(r: e.Race, boards: list[e.RaceBoard], parts: list[e.ReplayPart]) -> dict:
    """The race second by second: its racers in board order (names, equipment and ranks as the board has them
    now), ``scores[i]`` racer i's cumulative score after each step, to 1 decimal (stored in tenths)."""
    rows = {racer_id: row for part in parts for racer_id, row in part.rows.items()}
    standings = board.Board.from_shards(boards)
    placed = standings.page(len(standings))
    return {"raceId": r.raceId, "classId": r.classId, "startsAt": r.startsAt, "durationSeconds": r.durationSeconds,
            "racers": [{"racerId": row.racer_id, "name": row.name, "equipment": row.equipment, "rank": rank}
                       for rank, row in placed],
            "step": parts[0].step, "scores": [[tenths / 10 for tenths in rows[row.racer_id]] for _, row in placed]}


def review(item: e.Review) -> dict:
    return {"raceId": item.raceId, "classId": item.classId, "racerId": item.racerId, "name": item.name,
            "score": number(item.score), "equipment": item.equipment, "rules": list(item.rules),
            "state": item.state, "note": item.note}


def class_leaderboard(c: e.Class, stored: e.ClassBoard | None, limit: int) -> dict:
    items = [{"rank": rank, "racerId": row.racer_id, "name": row.name, "bestScore": number(row.best),
              "raceId": row.race_id} for rank, row in board.ClassBoard.from_item(stored).page(limit)]
    return {"classId": c.classId, "name": c.name, "metric": c.metric, "items": items}


def history(chunks: list[e.Chunk | e.PackedChunk]) -> list[dict]:
    """Chunks (newest race first, packed parts before live chunks) as races of sorted samples.

    A second found twice (a race being compacted) keeps its first, packed, value.
    """
    races: dict[str, dict] = {}
    for chunk in chunks:
        race = races.setdefault(chunk.raceId, {"raceId": chunk.raceId, "classId": chunk.classId, "samples": {}})
        for second, sample in chunk.samples.items():
            race["samples"].setdefault(second, sample)
    return [{**race, "samples": [history_row(second, sample) for second, sample in sorted(race["samples"].items())]}
            for race in races.values()]


def history_row(second: int, sample: Sample) -> list:
    """A second of ``GET /racers/{racerId}/history``: ``[second, cadence, resistance, output, heartRate, power]``
    (``heartRate`` and ``power`` null where none was sent)."""
    heart_rate = None if sample.heart_rate is None else number(sample.heart_rate)
    power = None if sample.power is None else number(sample.power)
    return [second, number(sample.cadence), number(sample.resistance), number(sample.output), heart_rate, power]
