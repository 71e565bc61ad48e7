"""Freezing a finished race: final ranks, class records, class board and compact history.

``finish(race_id)`` is a pure function of what is stored, so it is safe to run again:
on a redelivered stream record, when a sample lands after the race was finished, or
when a POST finish of a race not yet settled asks again (a settlement that failed past
the stream's retries is lost otherwise). Its last write marks the race settled.
The history is packed first (it makes every total exact), then the class board is written
before ranks and bests, so the class leaderboard shows the race soonest.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

from . import entities as e
from . import board, derived, sizing, store
from .views import output

CLASS_BOARD_MAX_BYTES = 350 * 1024  # under DynamoDB's 400 KB item limit
PARALLEL_WRITES = 16
# Best items of one class share one inverted-index partition (BEST#classId): keep their
# writes, over all invocations, well under its 1,000 WCU/s (ClassPacer).
BEST_WRITES_PER_SECOND = 400


class ClassPacer:
    """Spaces one class's Best writes so that, over every invocation settling races of the
    class at once, no more than ``rate`` start in any second (thread-safe).

    Slots are reserved ``BLOCK`` at a time on the class's BestPace item (one read and one
    conditional write per block); a reservation that loses a race to another is redone.
    """

    BLOCK = 50

    def __init__(self, class_id: str, total: int, rate: float = BEST_WRITES_PER_SECOND,
                 clock=time.time, sleep=time.sleep):
        self._class_id, self._left, self._rate = class_id, total, rate
        self._clock, self._sleep = clock, sleep
        self._slots: list[float] = []
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            if not self._slots:
                self._reserve()
            start = self._slots.pop(0)
        delay = start - self._clock()
        if delay > 0:
            self._sleep(delay)

    def _reserve(self) -> None:
        count = max(1, min(self.BLOCK, self._left))
        while True:
            pace = derived.get_pace(self._class_id)
            start = max(Decimal(str(round(self._clock(), 3))), Decimal(pace.nextFree))
            until = start + Decimal(count) / Decimal(self._rate)
            if derived.reserve_pace(pace, until.quantize(Decimal("0.001"))):
                break
        self._left -= count
        self._slots = [float(start) + n / self._rate for n in range(count)]


def finish(race_id: str) -> None:
    race, boards = store.race_with_boards(race_id, consistent=True)
    if race is None or race.status != e.FINISHED:
        return
    roster = [racer_id for shard in boards for racer_id in shard.standings]
    entries = store.get_entries(race_id, roster)
    # Entries hold only the chunks that were done: packing the history first makes every
    # total exact (from the stored samples) before anything is ranked or published.
    with ThreadPoolExecutor(max_workers=PARALLEL_WRITES) as pool:
        list(pool.map(lambda entry: compact(race, entry), entries))
    publish(race, entries)
    derived.mark_settled(race)


def amend(race_id: str, racer_ids: list[str]) -> None:
    """Late chunk records of a settled race, done exactly and cheaply.

    The racers are compacted again (their totals come from the stored samples, so a stale
    record can never lower them); for those whose totals changed, the board, their best
    and the class board are raised, and only entries whose place moved are re-ranked.
    Before the race is settled the whole settlement runs again (it may be the one in flight).
    """
    race, boards = store.race_with_boards(race_id, consistent=True)
    if race is None or race.status != e.FINISHED:
        return
    if not race.settled:
        finish(race_id)
        return
    changed = [entry for entry in store.get_entries(race_id, racer_ids) if compact(race, entry)]
    if not changed:
        return
    stored = board.Board.from_shards(boards)
    before = stored.places()
    after = stored.updated(board.Standing.of_entry(entry) for entry in changed).places()
    merge_into_class_board(race, changed)
    for shard, moved in _final_standings(changed).items():
        derived.set_standings(race.raceId, shard, moved)
    for racer_id, place in after.items():
        if before.get(racer_id) != place:
            derived.rank_entry(race.raceId, racer_id, place)
    pacer = ClassPacer(race.classId, len(changed))
    for entry in changed:
        pacer.wait()
        derived.raise_best(e.Best(entry.racerId, race.classId, entry.score, race.raceId, entry.name))


def publish(race: e.Race, entries: list[e.Entry]) -> list[e.Entry]:
    """Class board first (the class leaderboard shows the race soonest), then ranks, bests, board."""
    entries = board.in_order(entries)
    merge_into_class_board(race, entries)
    pacer = ClassPacer(race.classId, len(entries))

    def settle(ranked):
        rank, entry = ranked
        derived.rank_entry(race.raceId, entry.racerId, rank)
        pacer.wait()
        derived.raise_best(e.Best(entry.racerId, race.classId, entry.score, race.raceId, entry.name))

    with ThreadPoolExecutor(max_workers=PARALLEL_WRITES) as pool:
        list(pool.map(settle, enumerate(entries, start=1)))
    for shard, standings in _final_standings(entries).items():
        derived.set_standings(race.raceId, shard, standings)
    return entries


def merge_into_class_board(race: e.Race, entries: list[e.Entry]) -> None:
    """Raises racers' bests on the class board (``board.ClassBoard.merged``); retried on a concurrent write."""
    def fits(standings: dict) -> bool:  # long names: keep the board an item DynamoDB accepts
        return sizing.item_size(e.ClassBoard(race.classId, standings).to_item()) <= CLASS_BOARD_MAX_BYTES

    bests = [board.ClassStanding(entry.racerId, entry.score, race.raceId, entry.name) for entry in entries]
    while True:
        stored = derived.get_class_board(race.classId)
        version = getattr(stored, "version", None) if stored else None
        merged = board.ClassBoard.from_item(stored).merged(bests, fits)
        if derived.put_class_board(e.ClassBoard(race.classId, merged.item()), version):
            return


COMPACTION_ATTEMPTS = 5


def compact(race: e.Race, entry: e.Entry) -> bool:
    """Replaces the racer's live chunks by gzip-packed ones (sealing the live ones), and makes the entry's chunk
    totals those of the stored samples; True when the totals had to change.

    A live chunk is deleted only if no sample reached it since it was read; if one did,
    the racer is compacted again from what is stored now.
    """
    changed = False
    for _ in range(COMPACTION_ATTEMPTS):
        stored = derived.chunks_of(race.raceId, entry.racerId)
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
            derived.set_entry_chunks(race.raceId, entry.racerId, totals, ranked_too=True)
            entry.chunks = {str(k): v for k, v in totals.items()}
        if derived.replace_chunks(packed, live):
            return changed
    raise RuntimeError(f"racer {entry.racerId} kept receiving samples while race {race.raceId} was compacted")


def _final_standings(entries: list[e.Entry]) -> dict[int, dict[str, board.Standing]]:
    return board.shards(map(board.Standing.of_entry, entries), e.RaceBoard.shard_of)
