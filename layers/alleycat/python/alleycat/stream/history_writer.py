"""The history writer (docs/fan-in.md): the second blocks' new first values, written into their racers' history
chunks, off the hot path.

A second mapping of the table's stream, filtered to ``SecondBlock`` records and batched over a window
(``stacks.settings.HISTORY_BATCHING_WINDOW_SECONDS``), hands each batch here. A record's new values are its
``NewImage`` less its ``OldImage`` (``rules.fanin.gained``: a first value never changes); a slice's tags are read
once a batch (``storage.blocks.tags_in``), and each (racer, 30-s chunk) the batch gained on is one write, the
chunk path's own (``storage.racers.add_samples``: only absent seconds, none into a sealed chunk), so a batch sent
again writes nothing twice. The stream processor then scores those chunks as on the chunk path: the entry's
totals, live reviews, the history route. A finished race takes nothing (its settlement reads the blocks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from alleycat.observability import logger
from alleycat.rules import fanin
from alleycat.rules.samples import Sample
from alleycat.storage import blocks, parallel, racers, races
from alleycat.storage import entities as e

Slice = tuple[str, int]  # (raceId, slice)


@dataclass
class Gains:
    """A batch's new first values by slice: tag -> second -> value, and the first record behind each slice."""

    seconds: dict[Slice, dict[str, dict[int, Sample]]] = field(default_factory=dict)
    first: dict[Slice, str] = field(default_factory=dict)

    def add(self, record: dict) -> None:
        change = record["dynamodb"]
        new = e.from_item(change["NewImage"])
        if not isinstance(new, e.SecondBlock):
            return
        old = e.from_item(change["OldImage"]) if change.get("OldImage") else None
        gained = fanin.gained(new.racers, old.racers if isinstance(old, e.SecondBlock) else {})
        if not gained:
            return
        key = (new.raceId, new.slice)
        slice_ = self.seconds.setdefault(key, {})
        for tag, sample in gained.items():
            slice_.setdefault(tag, {})[new.second] = sample
        self.first.setdefault(key, change["SequenceNumber"])


def write(records: list[dict]) -> list[str]:
    """Writes the batch's new first values into their racers' chunks; the sequence numbers of the first records
    behind work that failed (the event source mapping retries from the lowest)."""
    gains, failed = Gains(), []
    for record in records:
        try:
            gains.add(record)
        except Exception:  # noqa: BLE001 - reported alone: retried from it
            logger.exception("second block record could not be read")
            failed.append(record["dynamodb"]["SequenceNumber"])
    by_race: dict[str, list[int]] = {}
    for race_id, slice_ in gains.seconds:
        by_race.setdefault(race_id, []).append(slice_)
    for race_id, slices in by_race.items():
        work = {(race_id, slice_): gains.seconds[(race_id, slice_)] for slice_ in slices}
        try:
            race = races.get(race_id)
        except Exception:  # noqa: BLE001 - the race's records are retried
            logger.exception("reading the race failed")
            failed += [gains.first[key] for key in work]
            continue
        if race is None or race.status == e.FINISHED:  # its settlement reads the blocks
            continue
        def write_slice(key: Slice, seconds: dict[str, dict[int, Sample]], race: e.Race = race) -> int:
            return _write_slice(race, key[1], seconds)

        for key, outcome in parallel.outcomes(write_slice, work).items():
            if parallel.failed(outcome):
                logger.error("history write failed", exc_info=outcome, extra={"raceId": race_id, "slice": key[1]})
                failed.append(gains.first[key])
    return failed


def _write_slice(race: e.Race, slice_: int, seconds: dict[str, dict[int, Sample]]) -> int:
    """One slice's gains written, one write a (racer, chunk); the seconds newly written."""
    chunks = fanin.history_chunks(seconds, blocks.tags_in(race.raceId, slice_), e.Chunk.SECONDS)

    def write_chunk(item) -> int:
        (racer_id, number), samples = item
        points = {second: sample.score(race.metric) for second, sample in samples.items()}
        chunk = e.Chunk(race.raceId, racer_id, number, race.classId, samples=samples)
        return racers.add_samples(chunk, points).accepted

    return sum(parallel.map_all(write_chunk, chunks.items()))
