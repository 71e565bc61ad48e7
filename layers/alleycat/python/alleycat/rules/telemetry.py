"""Telemetry's rules: a batch checked, planned per racer chunk, and what each chunk write did with its seconds.

A sample is (raceId, racerId, second). Pure: the race, the roster, the server's clock and what a chunk
holds come in as values (``flows.telemetry`` reads and writes them).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from alleycat import clock
from alleycat.errors import BadRequest, Forbidden
from alleycat.rules.fairplay import ANOTHER_DEVICE, NOT_YET, latest_second
from alleycat.rules.samples import CHUNK_SECONDS, Sample, Seconds

NOT_JOINED = "racer has not joined this race"
TOO_LATE = "the race was finished before this sample arrived"

ChunkId = tuple[str, int]  # (racerId, chunk number)
LONGEST_RACE_SECONDS = 3600  # the contract's longest race: a second beyond it is in no race


@dataclass
class Outcome:
    """A batch's answer: the contract's ``{"accepted", "duplicates", "rejected"}``."""

    accepted: int = 0
    duplicates: int = 0
    rejected: list[dict] = field(default_factory=list)

    def reject(self, racer_id: str, second: int, reason: str) -> None:
        self.rejected.append({"racerId": racer_id, "second": second, "reason": reason})

    def add(self, racer_id: str, written: ChunkWrite) -> None:
        """One chunk write's counts; its seconds too late (a chunk sealed by the finish) are rejected."""
        self.accepted += written.accepted
        self.duplicates += written.duplicates
        for second in written.too_late:
            self.reject(racer_id, second, TOO_LATE)

    def as_body(self) -> dict:
        return {"accepted": self.accepted, "duplicates": self.duplicates, "rejected": self.rejected}


def check(duration_seconds: int, samples: list[dict], caller_sub: str, caller_is_admin: bool) -> None:
    """Raises, before anything is written, when a sample is out of the race or not the caller's."""
    for index, sample in enumerate(samples):
        if not caller_is_admin and sample["racerId"] != caller_sub:
            raise Forbidden(f"samples[{index}] is for racer {sample['racerId']}: you may send only your own")
        if not 0 <= sample["second"] < duration_seconds:
            raise BadRequest(f"samples[{index}].second must be an integer from 0 to {duration_seconds - 1}")


def latest(starts_at: str | None, now: float) -> int | None:
    """The race's latest second that has happened at ``now`` (epoch seconds; None: a gate from before
    v1.2, unchecked); a start no race may have (stored before creation refused it) lets no second happen."""
    if starts_at is None:
        return None
    start = clock.race_start(starts_at)
    return -1 if start is None else latest_second(now, start)


def plan(joined: set[str], samples: list[dict], latest: int | None = None,
         elsewhere: frozenset[str] = frozenset()) -> tuple[dict[ChunkId, Seconds], Outcome]:
    """Chunk writes for a checked batch, ``{(racerId, chunk): {second: Sample}}``, and the batch's outcome so far.

    Samples repeated inside the batch are duplicates; those of racers not joined, for a second later
    than ``latest`` (None: any) or of a racer whose ride another device holds (``elsewhere``) are rejected.
    """
    writes: dict[ChunkId, Seconds] = defaultdict(dict)
    outcome = Outcome()
    for sent in samples:
        racer_id, second = sent["racerId"], int(sent["second"])
        reason = (NOT_JOINED if racer_id not in joined else ANOTHER_DEVICE if racer_id in elsewhere
                  else NOT_YET if latest is not None and second > latest else None)
        if reason:
            outcome.reject(racer_id, second, reason)
            continue
        seconds = writes[(racer_id, second // CHUNK_SECONDS)]
        if second in seconds:
            outcome.duplicates += 1
            continue
        seconds[second] = Sample.of(sent)
    return writes, outcome


# --- one chunk write ----------------------------------------------------------------------

@dataclass
class ChunkWrite:
    """What one chunk write did with its seconds."""

    accepted: int = 0
    duplicates: int = 0
    too_late: list[int] = field(default_factory=list)  # seconds for a chunk sealed by the race's finish


@dataclass(frozen=True)
class StoredChunk:
    """What a refused chunk write found stored: the seconds the chunk holds, its ``sealed`` bits
    (None: live) and its ``lastWrite`` record."""

    chunk: int
    seconds: frozenset[int]
    sealed: int | None = None
    last_write: str | None = None

    def sealed_with(self, second: int) -> bool:
        """Whether the chunk's ``sealed`` bits say it held ``second`` (bit n: the chunk's n-th second)."""
        return bool((self.sealed or 0) >> (second - self.chunk * CHUNK_SECONDS) & 1)


def digest(request_key: str, samples: Seconds) -> str:
    """Names one chunk write of one request: the same key and samples give the same digest."""
    import hashlib

    text = request_key + "|" + ";".join(
        f"{second},{sample.cadence},{sample.resistance}" + ("" if sample.heart_rate is None else f",{sample.heart_rate}")
        for second, sample in sorted(samples.items()))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def record(request_digest: str, accepted: int, duplicates: int) -> str:
    """``lastWrite`` of a write that sets ``accepted`` seconds after ``duplicates`` found stored."""
    return f"{request_digest}:{accepted}:{duplicates}"


def chunks_to_read(samples: list[dict], max_seconds: int) -> set[ChunkId]:
    """The chunks to read before writing: every chunk of a racer whose samples fall in more than one (a
    back-fill, or the same batch sent again), so seconds already stored cost a read, not a refused write.
    A racer's samples in one chunk (a bike's second) are written at once: a refused write costs what
    the write would. Only seconds any race may hold (``max_seconds``) name a chunk: the rest are a 400."""
    by_racer: dict[str, set[int]] = defaultdict(set)
    for sample in samples:
        if 0 <= sample["second"] < max_seconds:
            by_racer[sample["racerId"]].add(int(sample["second"]) // CHUNK_SECONDS)
    return {(racer_id, chunk) for racer_id, chunks in by_racer.items() if len(chunks) > 1 for chunk in chunks}


def settled(pending: Seconds, stored: StoredChunk, request_digest: str | None, written: ChunkWrite) -> Seconds:
    """What the chunk as stored settles of ``pending``, counted into ``written``; returns the seconds
    still to write (none: the write is done).

    This very request sent again (its digest recorded, before any duplicate of this attempt) answers what
    the first attempt did; a chunk sealed by the finish takes nothing (a second it held is a duplicate, any
    other too late); else the seconds stored are duplicates and the rest is to be written."""
    recorded = (stored.last_write or "").split(":")
    if request_digest and recorded[0] == request_digest and not written.duplicates:
        written.accepted, written.duplicates = int(recorded[1]), int(recorded[2])
        return {}
    if stored.sealed is not None:
        for second in pending:
            if stored.sealed_with(second):
                written.duplicates += 1
            else:
                written.too_late.append(second)
        return {}
    present = [second for second in pending if second in stored.seconds]
    written.duplicates += len(present)
    return {second: sample for second, sample in pending.items() if second not in stored.seconds}


def after_refusal(pending: Seconds, stored: StoredChunk, request_digest: str | None,
                  written: ChunkWrite) -> Seconds:
    """A chunk write of ``pending`` was refused because a second was stored meanwhile: ``settled`` by what
    the refusal found stored (a refusal that found none of them stored is a bug)."""
    remaining = settled(pending, stored, request_digest, written)
    if pending and len(remaining) == len(pending):
        raise RuntimeError(f"chunk {stored.chunk} write refused with no stored second")
    return remaining
