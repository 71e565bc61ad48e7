"""A racer's live totals: what their entry must hold, from the totals it holds and the chunks read now.

Values in, a decision out; ``stream.scoring`` reads, asks, and writes. A chunk's ``Totals`` are its
points and its highest second (None: no second yet). The entry holds every chunk but the racer's
newest (the one still filling): it is written when a chunk is done, not every second, so its chunks
0..n-1 say that chunk n is the newest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from alleycat.rules.samples import Totals

NOTHING = Totals(Decimal(0), None)  # a chunk without a second


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

    chunks: dict[int, Totals]
    changed: dict[int, Totals]


SEALED = Sealed()
READ_EVERY_CHUNK = ReadEveryChunk()


def live_totals(stored: Mapping[int, Totals], read: Mapping[int, Totals | None],
                every: Mapping[int, Totals | None] | None = None) -> LiveTotals | ReadEveryChunk | Sealed:
    """The entry's live totals from those it ``stored`` and the chunks ``read`` now (chunk number -> totals,
    None for a chunk sealed by the race's settlement); ``every``: the racer's every chunk, once asked for."""
    read_now = _unsealed(read)
    if read_now is None:
        return SEALED
    known = {**stored, **read_now}
    newest = max(max(stored, default=-1) + 1, max(read_now, default=0))
    if newest not in known or any(chunk not in known for chunk in range(newest)):
        if every is None:
            return READ_EVERY_CHUNK
        every_now = _unsealed(every)
        if every_now is None:
            return SEALED
        known.update(every_now)
        newest = max(known)
    done = {chunk: known.get(chunk, NOTHING) for chunk in range(newest)}
    changed = {chunk: totals for chunk, totals in done.items() if stored.get(chunk) != totals}
    return LiveTotals({**done, newest: known.get(newest, NOTHING)}, changed)


def _unsealed(chunks: Mapping[int, Totals | None]) -> dict[int, Totals] | None:
    """The chunks' totals; None when one of them is sealed."""
    unsealed = {number: totals for number, totals in chunks.items() if totals is not None}
    return unsealed if len(unsealed) == len(chunks) else None
