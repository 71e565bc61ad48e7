"""A finished racer's history packed: live chunks replaced by gzip-packed parts, totals made exact, the whole
ride handed back (the race's replay is made of it).

The rule reads and writes through ``History`` (the racer's partition, ``storage.racers``, unless a test
gives another), so it runs without DynamoDB.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple, Protocol

from alleycat.rules.samples import Seconds, Totals, totals_of
from alleycat.storage import entities as e
from alleycat.storage import racers

COMPACTION_ATTEMPTS = 5


class History(Protocol):
    """Where a racer's history chunks and entry totals are kept (``storage.racers``)."""

    def chunks_of(self, race_id: str, racer_id: str) -> list[e.Chunk | e.PackedChunk]: ...

    def set_entry_chunks(self, race_id: str, racer_id: str, totals: Mapping[int, Totals],
                         ranked_too: bool = ...) -> tuple[e.Entry | None, bool]: ...

    def replace_chunks(self, packed: list[e.PackedChunk], live: list[e.Chunk]) -> bool: ...


class WithBlocks:
    """``storage.racers``' history, with the racer's ``seconds`` from their slice's blocks (the fan-in) read as a
    packed part ahead of the stored ones: compaction writes them into the racer's packed history, once."""

    def __init__(self, seconds: Seconds):
        self.seconds = seconds
        self.set_entry_chunks = racers.set_entry_chunks
        self.replace_chunks = racers.replace_chunks

    def chunks_of(self, race_id: str, racer_id: str) -> list[e.Chunk | e.PackedChunk]:
        return [e.PackedChunk(race_id, racer_id, 0, "", self.seconds), *racers.chunks_of(race_id, racer_id)]


class Compacted(NamedTuple):
    """What ``compact`` found: the whole ride's samples as stored, and whether the entry's totals had to change."""

    samples: Seconds
    changed: bool


def compact(race: e.Race, entry: e.Entry, check: Callable[[e.Entry, Seconds], object] | None = None,
            history: History = racers) -> Compacted:
    """Replaces the racer's live chunks by packed ones (sealing the live ones), and makes the entry's chunk
    totals those of the stored samples; the ride's samples, and whether its totals had to change. ``check``
    sees the whole ride's samples before its live chunks are sealed, so a run that fails after it still
    finds them live and checks again.

    A live chunk is deleted only if no sample reached it since it was read; if one did,
    the racer is compacted again from what is stored now.
    """
    changed = False
    for _ in range(COMPACTION_ATTEMPTS):
        stored = history.chunks_of(race.raceId, entry.racerId)
        samples: Seconds = {}
        for chunk in stored:  # ascending: live chunks before packed parts, so a packed (earlier) value wins
            samples.update(chunk.samples)
        live = [c for c in stored if isinstance(c, e.Chunk) and c.live]
        if not live:
            return Compacted(samples, changed)
        parts: dict[int, Seconds] = {0: {}}  # a racer without samples keeps an (empty) history
        by_chunk: dict[int, Seconds] = {}
        for second, sample in sorted(samples.items()):
            parts.setdefault(second // e.PackedChunk.SECONDS, {})[second] = sample
            by_chunk.setdefault(second // e.Chunk.SECONDS, {})[second] = sample
        totals = {chunk: totals_of(seconds, race.metric) for chunk, seconds in by_chunk.items()}
        packed = [e.PackedChunk(race.raceId, entry.racerId, part, race.classId, seconds)
                  for part, seconds in parts.items()]
        if _known(entry.chunks) != totals:
            changed = True
            history.set_entry_chunks(race.raceId, entry.racerId, totals, ranked_too=True)
            entry.chunks = {str(chunk): chunk_totals for chunk, chunk_totals in totals.items()}
        if check is not None:
            check(entry, samples)
        if history.replace_chunks(packed, live):
            return Compacted(samples, changed)
    raise RuntimeError(f"racer {entry.racerId} kept receiving samples while race {race.raceId} was compacted")


def _known(chunks: dict[str, Totals]) -> dict[int, Totals]:
    """The entry's chunk totals that have a second (a chunk with none adds nothing)."""
    return {int(chunk): Totals(*totals) for chunk, totals in chunks.items() if totals[1] is not None}
