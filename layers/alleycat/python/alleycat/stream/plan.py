"""A batch's stream records read into the work they ask for, each piece with the first record asking for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from alleycat.observability import logger
from alleycat.rules.fairplay import PENDING
from alleycat.storage import entities as e
from alleycat.storage.schema import STREAM_PROCESSOR_TYPES

WATCHED = set(STREAM_PROCESSOR_TYPES)


@dataclass
class Plan:
    chunks: dict = field(default_factory=dict)          # (raceId, racerId) -> {chunk numbers changed}
    first_seen: dict = field(default_factory=dict)      # (raceId, racerId) -> sequence number
    finished: dict = field(default_factory=dict)        # raceId -> sequence number: to settle
    created: dict = field(default_factory=dict)         # raceId -> (Race, sequence number)
    carded: dict = field(default_factory=dict)          # raceId -> sequence number: its catalog card to sync
    renamed_classes: dict = field(default_factory=dict)  # classId -> sequence number
    renamed_racers: dict = field(default_factory=dict)  # racerId -> sequence number
    decided: dict = field(default_factory=dict)         # raceId -> {racerId: sequence number}: a review decided
    joined: dict = field(default_factory=dict)          # raceId -> {racerId: sequence number}: a racer joined

    @classmethod
    def of(cls, records: list[dict]) -> tuple[Plan, list[str]]:
        """The plan of ``records``, and the sequence numbers of those that could not be read."""
        plan, unreadable = cls(), []
        for record in records:
            try:
                plan.add(record)
            except Exception:  # noqa: BLE001 - reported alone: the event source mapping retries from it
                logger.exception("stream record could not be read")
                unreadable.append(record["dynamodb"]["SequenceNumber"])
        return plan, unreadable

    def add(self, record: dict) -> None:
        change = record["dynamodb"]
        sequence = change["SequenceNumber"]
        new_image, old_image = change.get("NewImage"), change.get("OldImage")
        if not new_image or new_image.get(e.TYPE, {}).get("S") not in WATCHED:
            return
        new = e.from_item(new_image)
        old = e.from_item(old_image) if old_image else None
        if isinstance(new, e.Race) and isinstance(old, e.Race) and e.RaceCard.of(new) != e.RaceCard.of(old):
            self.carded.setdefault(new.raceId, sequence)
        if isinstance(new, e.Chunk) and old is None and new.chunk == 0 and record.get("eventName") == "INSERT":
            self.joined.setdefault(new.raceId, {}).setdefault(new.racerId, sequence)  # a join writes chunk 0
        if isinstance(new, e.Chunk) and new.samples:
            key = (new.raceId, new.racerId)
            self.chunks.setdefault(key, set()).add(new.chunk)
            self.first_seen.setdefault(key, sequence)
        elif isinstance(new, e.Race) and old is None:
            self.created.setdefault(new.raceId, (new, sequence))
        elif isinstance(new, e.Race) and new.status == e.FINISHED and not new.settled and (
                getattr(old, "status", None) != e.FINISHED or new.finishRequests != getattr(old, "finishRequests", None)):
            self.finished.setdefault(new.raceId, sequence)
        elif isinstance(new, e.Class) and isinstance(old, e.Class) and new.name != old.name:
            self.renamed_classes.setdefault(new.classId, sequence)
        elif isinstance(new, e.Racer) and isinstance(old, e.Racer) and new.name != old.name:
            self.renamed_racers.setdefault(new.racerId, sequence)
        elif isinstance(new, e.Review) and old is None and new.state != PENDING:
            self.decided.setdefault(new.raceId, {}).setdefault(new.racerId, sequence)
