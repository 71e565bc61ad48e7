"""Telemetry's rules: a batch checked, planned per racer chunk, and what each chunk write did with its seconds;
a request sent with an Idempotency-Key as its chunk writes record it (``Keyed``).

A sample is (raceId, racerId, second). Pure: the race, the roster, the server's clock and what a chunk
holds come in as values (``flows.telemetry`` reads and writes them).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from alleycat import clock
from alleycat.errors import BadRequest, Forbidden, Unprocessable
from alleycat.rules.fairplay import ANOTHER_DEVICE, NO_POWER, NOT_YET, latest_second
from alleycat.rules.samples import CHUNK_SECONDS, OUTPUT, POWER, Sample, Seconds

NOT_JOINED = "racer has not joined this race"
TOO_LATE = "the race was finished before this sample arrived"
REUSED_KEY = ("this Idempotency-Key was sent before with another body: its first request's samples stand; "
              "send new samples under a new key")

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
         elsewhere: frozenset[str] = frozenset(), metric: str = OUTPUT) -> tuple[dict[ChunkId, Seconds], Outcome]:
    """Chunk writes for a checked batch, ``{(racerId, chunk): {second: Sample}}``, and the batch's outcome so far.

    Samples repeated inside the batch are duplicates; those of racers not joined, for a second later
    than ``latest`` (None: any), of a racer whose ride another device holds (``elsewhere``) or, in a
    class whose ``metric`` is power, without power are rejected.
    """
    writes: dict[ChunkId, Seconds] = defaultdict(dict)
    outcome = Outcome()
    for sent in samples:
        racer_id, second = sent["racerId"], int(sent["second"])
        reason = (NOT_JOINED if racer_id not in joined else ANOTHER_DEVICE if racer_id in elsewhere
                  else NOT_YET if latest is not None and second > latest
                  else NO_POWER if metric == POWER and sent.get("power") is None else None)
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


# --- a request sent with an Idempotency-Key -------------------------------------------------

KEY_TAG_BYTES = 6  # names the key among the keys that write a chunk: a false match once in 2^48
BODY_DIGEST_BYTES = 8


@dataclass(frozen=True)
class Keyed:
    """A request sent with an Idempotency-Key, as each chunk it writes records it in ``lastWrite``
    (``record``): ``tag`` names the key, ``body`` the whole request body (``canonical_body``), both
    blake2b, base64url. A record is ``<tag>.<body>:<accepted>:<duplicates>``: what the request's write of that
    chunk did, so a retry of it answers the same, and another body under the key is known (422)."""

    tag: str
    body: str

    @property
    def key_prefix(self) -> str:
        """What every record of this key begins with, whatever its body."""
        return f"{self.tag}."

    @property
    def prefix(self) -> str:
        """What every record of this very request (this key, this body) begins with."""
        return f"{self.tag}.{self.body}:"

    def record(self, accepted: int, duplicates: int) -> str:
        """``lastWrite`` of a write that sets ``accepted`` seconds after ``duplicates`` found stored."""
        return f"{self.prefix}{accepted}:{duplicates}"


def keyed(request_key: str, device: str | None, samples: list[dict]) -> Keyed:
    """The request ``request_key`` names, its body ``device`` and ``samples`` (checked)."""
    return Keyed(_digest(request_key, KEY_TAG_BYTES), _digest(canonical_body(device, samples), BODY_DIGEST_BYTES))


def request_of(caller_sub: str, request_key: str) -> str:
    """A caller's Idempotency-Key as the fan-in records it in a race (``TelemetryRequest``): the caller's own, so
    that two callers' keys never meet."""
    return _digest(f"{caller_sub}\n{request_key}", KEY_TAG_BYTES)


def canonical_body(device: str | None, samples: list[dict]) -> str:
    """The whole body as the server reads it, one text for bodies that mean the same (the same key sent again
    with it is a retry): the device (none: empty), then every sample in the order sent, its racerId, second,
    cadence and resistance exact (80.0 is 80), heart rate in whole bpm (none sent: empty) and, when sent, the
    power in whole watts, as stored."""
    rows = []
    for sent in samples:
        sample = Sample.of(sent)
        bpm = "" if sample.heart_rate is None else sample.heart_rate
        watts = "" if sample.power is None else f",{sample.power}"
        rows.append(f"{sent['racerId']},{int(sent['second'])},{sample.cadence:f},{sample.resistance:f},{bpm}{watts}")
    return (device or "") + "|" + ";".join(rows)


def _digest(text: str, size: int) -> str:
    import base64
    import hashlib

    return base64.urlsafe_b64encode(hashlib.blake2b(text.encode(), digest_size=size).digest()).decode().rstrip("=")


def recorded(last_write: str | None) -> tuple[str, str, int, int] | None:
    """A chunk's ``lastWrite`` read back: (key tag, body digest, accepted, duplicates); None when there is none
    (or it is a record from before whole-body digests, which names no key)."""
    request, _, counts = (last_write or "").partition(":")
    tag, dot, body = request.partition(".")
    accepted, _, duplicates = counts.partition(":")
    if not (dot and accepted.isdigit() and duplicates.isdigit()):
        return None
    return tag, body, int(accepted), int(duplicates)


def refuse_reuse(request: Keyed | None, last_write: str | None) -> None:
    """Unprocessable (422) when the chunk's ``last_write`` records this request's key with another body."""
    found = recorded(last_write)
    if request is not None and found is not None and found[0] == request.tag and found[1] != request.body:
        raise Unprocessable(REUSED_KEY)


def chunks_to_read(samples: list[dict], max_seconds: int, keyed: bool = False) -> set[ChunkId]:
    """The chunks to read before writing: every chunk of a racer whose samples fall in more than one (a
    back-fill, or the same batch sent again), so seconds already stored cost a read, not a refused write;
    and, for a request with an Idempotency-Key (``keyed``) that writes more than one chunk, every chunk it
    writes, so that a key reused with another body is refused before any of them is written.
    A bike's second (one racer, one chunk) is written at once: a refused write costs what the write
    would, and its condition refuses a reused key. Only seconds any race may hold (``max_seconds``) name a
    chunk: the rest are a 400."""
    by_racer: dict[str, set[int]] = defaultdict(set)
    for sample in samples:
        if 0 <= sample["second"] < max_seconds:
            by_racer[sample["racerId"]].add(int(sample["second"]) // CHUNK_SECONDS)
    every = keyed and sum(len(chunks) for chunks in by_racer.values()) > 1
    return {(racer_id, chunk) for racer_id, chunks in by_racer.items() if every or len(chunks) > 1 for chunk in chunks}


def settled(pending: Seconds, stored: StoredChunk, request: Keyed | None, written: ChunkWrite) -> Seconds:
    """What the chunk as stored settles of ``pending``, counted into ``written``; returns the seconds
    still to write (none: the write is done).

    The chunk's record of this request's key with another body is a 422 (``refuse_reuse``); this very
    request sent again (its record there, before any duplicate of this attempt) answers what the first
    attempt did; a chunk sealed by the finish takes nothing (a second it held is a duplicate, any other too
    late); else the seconds stored are duplicates and the rest is to be written."""
    refuse_reuse(request, stored.last_write)
    found = recorded(stored.last_write)
    if request is not None and found is not None and found[0] == request.tag and not written.duplicates:
        written.accepted, written.duplicates = found[2], found[3]
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


def after_refusal(pending: Seconds, stored: StoredChunk, request: Keyed | None, written: ChunkWrite) -> Seconds:
    """A chunk write of ``pending`` was refused because a second was stored meanwhile (or the chunk records
    this request's key with another body: 422): ``settled`` by what the refusal found stored (a refusal that
    found none of them stored is a bug)."""
    remaining = settled(pending, stored, request, written)
    if pending and len(remaining) == len(pending):
        raise RuntimeError(f"chunk {stored.chunk} write refused with no stored second")
    return remaining
