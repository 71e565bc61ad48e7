"""The work that belongs after a write, planned per stream record and applied per batch.

- Chunks that gained samples give the racer's score on the race's board, from the chunks as
  they are stored now (a record says which chunk changed, never what it holds: a batch may
  carry an old chunk's record, or an old batch come again); the entry keeps the chunks that
  are done, written once a chunk. Board writes are coalesced, one per board shard per batch,
  so a race's partition sees a few writes a second, not one per racer.
- A race that became finished is frozen (``finish``); a chunk record that arrives for a
  ranked entry (a late record, or a sample that landed after the freeze) amends only
  that racer (``finish.amend``).
- A race created has its finisher started (``ending``): it finishes the race at its end.
- A race whose count of racers, class name or status changed gives them to its catalog card
  (``catalog``), read now.
- A class renamed passes its name to its races (found in the index), and a race created
  checks its class's name (a rename racing the creation); a racer renamed passes the
  name to their entries, race boards, bests and class boards. The names are read now.

Every write sets absolute values read now, so a redelivered or old record changes nothing.
"""

from __future__ import annotations

from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal

from . import entities as e
from . import finish as finishing
from . import catalog, derived, ending, push, store
from .board import Standing
from .observability import count, logger
from .schema import STREAM_PROCESSOR_TYPES

PARALLEL_WRITES = 16
WATCHED = set(STREAM_PROCESSOR_TYPES)


@dataclass
class Batch:
    """What the records of one invocation ask for, and the first record asking for each."""

    chunks: dict = field(default_factory=dict)        # (raceId, racerId) -> {chunk numbers changed}
    finished: dict = field(default_factory=dict)      # raceId -> sequence number
    renamed: dict = field(default_factory=dict)       # classId -> sequence number
    created: dict = field(default_factory=dict)       # raceId -> (Race, sequence number)
    renamed_racers: dict = field(default_factory=dict)  # racerId -> sequence number
    carded: dict = field(default_factory=dict)        # raceId -> sequence number: its catalog card to sync
    first_seen: dict = field(default_factory=dict)    # work key -> sequence number

    def add_all(self, records: list[dict]) -> list[str]:
        """Plans every record; returns the sequence numbers of those that could not be read."""
        unreadable = []
        for record in records:
            try:
                self.add(record)
            except Exception:  # reported alone: the event source mapping retries from it
                logger.exception("stream record could not be read")
                unreadable.append(record["dynamodb"]["SequenceNumber"])
        return unreadable

    def add(self, record: dict) -> None:
        change = record["dynamodb"]
        sequence = change["SequenceNumber"]
        new_image, old_image = change.get("NewImage"), change.get("OldImage")
        if not new_image or new_image.get(e.TYPE, {}).get("S") not in WATCHED:
            return
        new = e.from_item(new_image)
        old = e.from_item(old_image) if old_image else None
        if isinstance(new, e.Race) and old is not None and e.RaceCard.of(new) != e.RaceCard.of(old):
            self.carded.setdefault(new.raceId, sequence)
        if isinstance(new, e.Chunk) and new.samples:
            key = (new.raceId, new.racerId)
            self.chunks.setdefault(key, set()).add(new.chunk)
            self.first_seen.setdefault(key, sequence)
        elif isinstance(new, e.Race) and old is None:
            self.created.setdefault(new.raceId, (new, sequence))
        elif isinstance(new, e.Race) and new.status == e.FINISHED and not new.settled and (
                getattr(old, "status", None) != e.FINISHED or new.finishRequests != old.finishRequests):
            self.finished.setdefault(new.raceId, sequence)
        elif isinstance(new, e.Class) and isinstance(old, e.Class) and new.name != old.name:
            self.renamed.setdefault(new.classId, sequence)
        elif isinstance(new, e.Racer) and isinstance(old, e.Racer) and new.name != old.name:
            self.renamed_racers.setdefault(new.racerId, sequence)

    def apply(self) -> list[str]:
        """Does the planned writes; returns the sequence numbers of records whose work failed."""
        failed: list[str] = []
        standings: dict[tuple[str, int], dict] = defaultdict(dict)
        feeders: dict[tuple[str, int], list[str]] = defaultdict(list)

        late: dict[str, dict[str, str]] = defaultdict(dict)  # raceId -> {racerId: sequence number}

        stored: dict[tuple[str, str], tuple[e.Entry, dict[int, e.Chunk]]] = {}
        for race_id, wanted in _by_race(self.chunks).items():
            try:
                stored.update({(race_id, entry.racerId): (entry, chunks)
                               for entry, chunks in store.entries_and_chunks(race_id, wanted)})
            except Exception:  # noqa: BLE001 - every record of the race is retried
                logger.exception("reading entries and chunks failed")
                failed += [self.first_seen[(race_id, racer_id)] for racer_id in wanted]

        def live_totals(item):
            entry, chunks = item[1]
            return entry if entry.raceStatus == e.FINISHED else standing(entry, chunks)

        for key, outcome in _parallel(live_totals, stored.items()):
            if isinstance(outcome, Exception):
                failed.append(self.first_seen[key])
                continue
            entry = outcome
            if entry is None:  # gone, or its race being settled (finish owns it)
                continue
            if entry.raceStatus == e.FINISHED:  # ranked: a late record, amended from what is stored
                late[entry.raceId].setdefault(entry.racerId, self.first_seen[key])
                continue
            board = (entry.raceId, e.RaceBoard.shard_of(entry.racerId))
            standings[board][entry.racerId] = Standing.of_entry(entry)
            feeders[board].append(self.first_seen[key])

        written: dict[str, set[str]] = defaultdict(set)  # raceId -> racers whose standing was written
        for board, outcome in _parallel(lambda item: derived.set_standings(item[0][0], item[0][1], item[1]),
                                        standings.items()):
            if isinstance(outcome, Exception):
                failed.append(min(feeders[board], key=int))
            else:
                written[board[0]].update(standings[board])
        publish(written)
        for race_id, sequence in self.finished.items():
            if _failed(lambda: finishing.finish(race_id)):
                failed.append(sequence)
            else:
                publish_finished(race_id)
        for race_id, racers in late.items():
            if race_id not in self.finished and _failed(lambda: finishing.amend(race_id, sorted(racers))):
                failed.append(min(racers.values(), key=int))
        for class_id, sequence in self.renamed.items():
            if _failed(lambda: rename_class(class_id)):
                failed.append(sequence)
        for race_id, outcome in _parallel(lambda item: created(item[1][0]), self.created.items()):
            if isinstance(outcome, Exception):
                logger.error("new race's work failed", exc_info=outcome, extra={"raceId": race_id})
                failed.append(self.created[race_id][1])
        for race_id, outcome in _parallel(lambda item: sync_card(item[0]), self.carded.items()):
            if isinstance(outcome, Exception):
                logger.error("race card sync failed", exc_info=outcome, extra={"raceId": race_id})
                failed.append(self.carded[race_id])
        for racer_id, sequence in self.renamed_racers.items():
            if _failed(lambda: rename_racer(racer_id)):
                failed.append(sequence)
        return failed


def publish(written: dict[str, set[str]]) -> None:
    """One message per race whose board this invocation wrote (``alleycat.push``). A failure is
    logged and counted, never a failed record: the board in the table is the truth."""
    if not written or not push.enabled():
        return
    for race_id, outcome in _parallel(lambda item: push.publish_board(*item), written.items()):
        if isinstance(outcome, Exception):
            logger.warning("board push failed", extra={"raceId": race_id, "error": repr(outcome)})
            count("BoardPushFailed", 1)


def publish_finished(race_id: str) -> None:
    if not push.enabled():
        return
    try:
        push.publish_finished(race_id)
    except Exception as error:  # noqa: BLE001 - viewers read the final board over HTTP anyway
        logger.warning("finish push failed", extra={"raceId": race_id, "error": repr(error)})
        count("BoardPushFailed", 1)


def standing(entry: e.Entry, chunks: dict[int, e.Chunk]) -> e.Entry | None:
    """The racer's live totals from the stored chunks: ``chunks`` (read now) on the entry's.

    The entry stores every chunk but the racer's newest (the one still filling): it is
    written when a chunk is done, not every second, so its chunks 0..n-1 say that chunk n
    is the newest. When the newest is not among ``chunks`` (a batch of late seconds only),
    or a chunk below it is in neither, the racer's chunks are read. Returns the entry with
    every chunk known (its ``raceStatus`` finished when the race was ranked before the
    entry could be written), or None when the race is being settled (finish owns it).
    """
    if any(not chunk.live for chunk in chunks.values()):
        return None  # sealed by the race's finish
    known = {int(chunk): _pair(pair) for chunk, pair in entry.chunks.items()}
    known.update({number: _totals(chunk) for number, chunk in chunks.items()})
    newest = max(max(map(int, entry.chunks), default=-1) + 1, max(chunks, default=0))
    if newest not in known or any(chunk not in known for chunk in range(newest)):
        every = derived.chunks_of(entry.raceId, entry.racerId)
        if any(not isinstance(chunk, e.Chunk) or not chunk.live for chunk in every):
            return None
        known.update({chunk.chunk: _totals(chunk) for chunk in every})
        newest = max(known)
    done = {chunk: known.get(chunk, [Decimal(0), None]) for chunk in range(newest)}
    changed = {chunk: pair for chunk, pair in done.items()
               if _pair(entry.chunks.get(str(chunk), [None, None])) != pair}
    if changed:
        stored, written = derived.set_entry_chunks(entry.raceId, entry.racerId, changed)
        if not written:  # ranked meanwhile (or gone)
            return stored
    entry.chunks = {str(chunk): pair for chunk, pair in {**done, newest: known.get(newest, [Decimal(0), None])}.items()}
    return entry


def _totals(chunk: e.Chunk) -> list:
    return [Decimal(chunk.points), max(chunk.samples, default=None)]


def _pair(pair) -> list:
    points, second = pair
    return [Decimal(points) if points is not None else None, None if second is None else int(second)]


def _by_race(chunks: dict) -> dict[str, dict[str, set[int]]]:
    """raceId -> {racerId: chunk numbers}."""
    races: dict[str, dict[str, set[int]]] = defaultdict(dict)
    for (race_id, racer_id), numbers in chunks.items():
        races[race_id][racer_id] = numbers
    return races


def created(race: e.Race) -> None:
    """A new race takes its class's name as it is now, and its finisher is started (``ending``)."""
    follow_class_name(race)
    if ending.enabled():
        ending.start(race.raceId)


def sync_card(race_id: str) -> None:
    """The race's catalog card takes the race's racer count and class name as they are now."""
    race = store.get_race(race_id, consistent=True)
    if race is not None:
        catalog.sync_race_card(race)


def follow_class_name(race: e.Race) -> None:
    """A new race takes its class's name as it is now: a rename done a moment before or after
    the race was created may not have found it in the (eventually consistent) index."""
    klass = derived.get_class(race.classId)
    if klass is not None and klass.name != race.className:
        derived.set_class_name(race, klass.name, was=race.className)


def rename_class(class_id: str) -> None:
    klass = derived.get_class(class_id)
    for race in derived.races_of_class(class_id) if klass else []:
        derived.set_class_name(race, klass.name)


def rename_racer(racer_id: str) -> None:
    """Passes the racer's name as it is now (not the record's: an old record may come again)."""
    racer = derived.get_racer(racer_id)
    if racer is None:
        return
    name = racer.name
    for entry in derived.entries_of(racer_id):
        derived.set_name(entry, name)
        derived.set_standing_name(e.RaceBoard(entry.raceId, e.RaceBoard.shard_of(racer_id)), racer_id, name)
    for best in derived.bests_of(racer_id):
        derived.set_name(best, name)
        derived.set_standing_name(e.ClassBoard(best.classId), racer_id, name)


def _failed(work) -> bool:
    try:
        work()
        return False
    except Exception:  # reported to the event source mapping, which retries from this record
        logger.exception("stream work failed")
        return True


def _parallel(function, items):
    """(item key, result or exception) for each item, run on a small thread pool."""
    items = list(items)
    if not items:
        return []

    def guarded(item):
        try:
            return item[0], function(item)
        except Exception as error:  # noqa: BLE001 - mapped to the record that asked for it
            return item[0], error

    with ThreadPoolExecutor(max_workers=min(PARALLEL_WRITES, len(items))) as pool:
        return list(pool.map(guarded, items))
