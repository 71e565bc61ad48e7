"""A finished racer's history packed: live chunks replaced by gzip-packed parts, totals made exact."""

from __future__ import annotations

from decimal import Decimal
from typing import Callable

from alleycat.storage import entities as e
from alleycat.storage import racers
from alleycat.rules.scores import output

COMPACTION_ATTEMPTS = 5


def compact(race: e.Race, entry: e.Entry, check: Callable[[e.Entry, dict], object] | None = None) -> bool:
    """Replaces the racer's live chunks by packed ones (sealing the live ones), and makes the entry's chunk
    totals those of the stored samples; True when the totals had to change. ``check`` sees the whole
    ride's samples (second -> [cadence, resistance]) before its live chunks are sealed, so a run that
    fails after it still finds them live and checks again.

    A live chunk is deleted only if no sample reached it since it was read; if one did,
    the racer is compacted again from what is stored now.
    """
    changed = False
    for _ in range(COMPACTION_ATTEMPTS):
        stored = racers.chunks_of(race.raceId, entry.racerId)
        live = [c for c in stored if isinstance(c, e.Chunk) and c.live]
        if not live:
            return changed
        samples: dict[int, list] = {}
        for chunk in stored:  # ascending: live chunks before packed parts, so a packed (earlier) value wins
            samples.update(chunk.samples)
        parts: dict[int, dict] = {0: {}}  # a racer without samples keeps an (empty) history
        totals: dict[int, list] = {}
        for second, pair in sorted(samples.items()):
            parts.setdefault(second // e.PackedChunk.SECONDS, {})[second] = pair
            points, _ = totals.get(second // e.Chunk.SECONDS, [Decimal(0), second])
            totals[second // e.Chunk.SECONDS] = [points + output(*pair), second]
        packed = [e.PackedChunk(race.raceId, entry.racerId, part, race.classId, seconds)
                  for part, seconds in parts.items()]
        if {int(k): [Decimal(p), int(s)] for k, (p, s) in entry.chunks.items() if s is not None} != totals:
            changed = True
            racers.set_entry_chunks(race.raceId, entry.racerId, totals, ranked_too=True)
            entry.chunks = {str(k): v for k, v in totals.items()}
        if check is not None:
            check(entry, samples)
        if racers.replace_chunks(packed, live):
            return changed
    raise RuntimeError(f"racer {entry.racerId} kept receiving samples while race {race.raceId} was compacted")
