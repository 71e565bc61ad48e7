"""Live scores: chunks that gained samples give their racers' totals, entries and board standings.

With the fan-in on (docs/fan-in.md) a tagged racer's chunks are the history writer's, and their slice's board holds
their score: the board shard is written only when the racer's review changes (a ride flagged), so a batch writes
no standing of the race's partition but those.

A record says which chunk changed, never what it holds (a batch may carry an old chunk's
record, or an old batch come again): the totals are those of the chunks as stored now. The
entry keeps the chunks that are done, written once a chunk; board writes are coalesced, one
per board shard per batch, so a race's partition sees a few writes a second, not one per racer.
A ranked entry (a late record, or a sample that landed after the freeze) is left to
``settlement.amend``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from alleycat import clock, settings
from alleycat.observability import logger
from alleycat.rules import scoring as rule
from alleycat.rules.board import Standing
from alleycat.rules.fairplay import broken_rules_seen
from alleycat.rules.samples import Totals
from alleycat.storage import entities as e
from alleycat.storage import parallel, racers, races, reviews

Racer = tuple[str, str]  # (raceId, racerId)
CHUNKS_PER_PART = e.PackedChunk.SECONDS // e.Chunk.SECONDS


@dataclass
class Scored:
    """What scoring wrote, what it left to settlement, and the records behind work that failed."""

    boards: dict[str, list[e.RaceBoard]] = field(default_factory=lambda: defaultdict(list))  # raceId -> shards as written
    changed: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # raceId -> racers written
    late: dict[str, dict[str, str]] = field(default_factory=lambda: defaultdict(dict))  # raceId -> {racerId: sequence}
    failed: list[str] = field(default_factory=list)


def score(chunks: dict[Racer, set[int]], first_seen: dict[Racer, str]) -> Scored:
    """Writes the live totals of the racers whose ``chunks`` changed; ``first_seen`` names the record behind each."""
    scored = Scored()
    stored: dict[Racer, tuple[e.Entry, dict[int, e.Chunk]]] = {}
    for race_id, wanted in _by_race(chunks).items():
        try:
            stored.update({(race_id, entry.racerId): (entry, found)
                           for entry, found in racers.entries_and_chunks(race_id, wanted)})
        except Exception:  # noqa: BLE001 - every record of the race is retried
            logger.exception("reading entries and chunks failed")
            scored.failed += [first_seen[(race_id, racer_id)] for racer_id in wanted]

    standings: dict[tuple[str, int], dict[str, Standing]] = defaultdict(dict)
    feeders: dict[tuple[str, int], list[str]] = defaultdict(list)
    fan_in = settings.load().fan_in
    reviewed = {key: item[0].review for key, item in stored.items()}
    for key, entry in parallel.outcomes(lambda _, item: checked(live_totals(*item), item[1]), stored).items():
        if parallel.failed(entry):
            scored.failed.append(first_seen[key])
        elif entry is None:  # gone, or its race being settled (settlement owns it)
            continue
        elif entry.raceStatus == e.FINISHED:  # ranked: a late record, amended from what is stored
            scored.late[entry.raceId].setdefault(entry.racerId, first_seen[key])
        elif fan_in and entry.tag is not None and entry.review == reviewed[key]:
            continue  # its slice's board holds its score: the shard holds its review, which did not change
        else:
            board = (entry.raceId, e.RaceBoard.shard_of(entry.racerId))
            standings[board][entry.racerId] = Standing.of_entry(entry)
            feeders[board].append(first_seen[key])

    for (race_id, shard), written in parallel.outcomes(lambda board, rows: races.set_standings(*board, rows),
                                                       standings).items():
        if parallel.failed(written):
            scored.failed.append(min(feeders[(race_id, shard)], key=int))
        else:
            scored.boards[race_id].append(written)
            scored.changed[race_id].update(standings[(race_id, shard)])
    return scored


def live_totals(entry: e.Entry, chunks: dict[int, e.Chunk]) -> e.Entry | None:
    """The racer's live totals (``rules.scoring``): ``chunks`` (read now) on the entry's, the racer's every
    chunk read when those do not say enough, the changed ones written. Returns the entry with every chunk
    known (its ``raceStatus`` finished when the race was ranked before the entry could be written), or None
    when the race is being settled (settlement owns it)."""
    if entry.raceStatus == e.FINISHED:
        return entry
    stored = {int(chunk): _pair(pair) for chunk, pair in entry.chunks.items()}
    read = _by_number(chunks.values())
    decision = rule.live_totals(stored, read)
    if isinstance(decision, rule.ReadEveryChunk):
        decision = rule.live_totals(stored, read, _by_number(racers.chunks_of(entry.raceId, entry.racerId)))
    if not isinstance(decision, rule.LiveTotals):  # sealed: settlement owns the entry
        return None
    if decision.changed:
        before, written = racers.set_entry_chunks(entry.raceId, entry.racerId, decision.changed)
        if not written:  # ranked meanwhile (or gone)
            return before
    entry.chunks = {str(chunk): totals for chunk, totals in decision.chunks.items()}
    return entry


def checked(entry: e.Entry | None, chunks: dict[int, e.Chunk]) -> e.Entry | None:
    """A live ride is put up for review as soon as what the stream sees of it breaks a plausibility rule:
    the changed ``chunks``' samples, and the points of every chunk on the entry (``fairplay.broken_rules_seen``).
    A window across chunks' samples is judged at the finish, which checks the whole ride."""
    if entry is None or entry.review or entry.raceStatus == e.FINISHED:
        return entry
    rules = broken_rules_seen({second: pair for chunk in chunks.values() for second, pair in chunk.samples.items()},
                              {int(chunk): Decimal(totals.points) for chunk, totals in entry.chunks.items()}, e.Chunk.SECONDS,
                              entry.metric)
    if rules:
        reviews.flag(entry, rules, clock.iso_ms(clock.now()))
    return entry


def _by_number(chunks: Iterable[e.Chunk | e.PackedChunk]) -> dict[int, Totals | None]:
    """Chunk number -> its totals as read now; None for a chunk the race's settlement sealed, or packed
    into a part (every chunk the part holds)."""
    by_number: dict[int, Totals | None] = {}
    for chunk in chunks:
        if isinstance(chunk, e.PackedChunk):
            first = chunk.part * CHUNKS_PER_PART
            by_number.update(dict.fromkeys(range(first, first + CHUNKS_PER_PART)))
        else:
            by_number.setdefault(chunk.chunk, _totals(chunk) if chunk.live else None)
    return by_number


def _totals(chunk: e.Chunk) -> Totals:
    return Totals(Decimal(chunk.points), max(chunk.samples, default=None))


def _pair(pair) -> Totals:
    points, second = pair
    return Totals(Decimal(points), None if second is None else int(second))


def _by_race(chunks: dict[Racer, set[int]]) -> dict[str, dict[str, set[int]]]:
    """raceId -> {racerId: chunk numbers}."""
    by_race: dict[str, dict[str, set[int]]] = defaultdict(dict)
    for (race_id, racer_id), numbers in chunks.items():
        by_race[race_id][racer_id] = numbers
    return by_race
