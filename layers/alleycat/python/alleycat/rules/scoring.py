"""A racer's live totals: what their entry must hold, from the totals it holds and the chunks read now.

Values in, a decision out; ``stream.scoring`` reads, asks, and writes. A chunk's totals are
``[points, lastSecond]`` (lastSecond None: no second yet). The entry holds every chunk but the racer's
newest (the one still filling): it is written when a chunk is done, not every second, so its chunks
0..n-1 say that chunk n is the newest.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Mapping

ChunkTotals = list  # [points, lastSecond]


@dataclass(frozen=True, slots=True)
class Sealed:
    """A chunk read is sealed (or packed): the race is being settled, and its settlement owns the entry."""


@dataclass(frozen=True, slots=True)
class ReadEveryChunk:
    """The chunks read do not reach the newest (a batch of late seconds only), or leave a chunk below it
    unknown: the racer's every chunk must be read first, then asked again."""


@dataclass(frozen=True, slots=True)
class LiveTotals:
    """The entry's chunks, every one up to the newest; ``changed``: the done ones the entry does not hold
    yet (to write), the newest never among them."""

    chunks: dict[int, ChunkTotals]
    changed: dict[int, ChunkTotals]


SEALED = Sealed()
READ_EVERY_CHUNK = ReadEveryChunk()


def live_totals(stored: Mapping[int, ChunkTotals], read: Mapping[int, ChunkTotals | None],
                every: Mapping[int, ChunkTotals | None] | None = None) -> LiveTotals | ReadEveryChunk | Sealed:
    """The entry's live totals from those it ``stored`` and the chunks ``read`` now (chunk number -> totals,
    None for a chunk sealed by the race's settlement); ``every``: the racer's every chunk, once asked for."""
    if any(totals is None for totals in read.values()):
        return SEALED
    known = {**stored, **read}
    newest = max(max(stored, default=-1) + 1, max(read, default=0))
    if newest not in known or any(chunk not in known for chunk in range(newest)):
        if every is None:
            return READ_EVERY_CHUNK
        if any(totals is None for totals in every.values()):
            return SEALED
        known.update(every)
        newest = max(known)
    done = {chunk: known.get(chunk, [Decimal(0), None]) for chunk in range(newest)}
    changed = {chunk: totals for chunk, totals in done.items() if stored.get(chunk, [None, None]) != totals}
    return LiveTotals({**done, newest: known.get(newest, [Decimal(0), None])}, changed)
