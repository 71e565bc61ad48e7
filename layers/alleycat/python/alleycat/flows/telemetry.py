"""Telemetry ingestion: validate a batch, plan it per racer chunk, apply it exactly once.

A sample is (raceId, racerId, second). Each chunk write sets only seconds that are
absent and requires, in its condition, that they still are; so whatever the order,
overlap or concurrency of batches, a second is accepted once and every later copy is
a duplicate. ``points`` of a chunk is added in the same write, so scores follow exactly.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from alleycat import clock
from alleycat.storage import entities as e
from alleycat.storage import parallel, racers, races
from alleycat.errors import BadRequest, Conflict, Forbidden, NotFound
from alleycat.rules.fairplay import ANOTHER_DEVICE, NOT_YET, latest_second
from alleycat.rules.scores import output, round4

NOT_JOINED = "racer has not joined this race"
TOO_LATE = "the race was finished before this sample arrived"


@dataclass
class Outcome:
    accepted: int = 0
    duplicates: int = 0
    rejected: list = field(default_factory=list)

    def as_body(self) -> dict:
        return {"accepted": self.accepted, "duplicates": self.duplicates, "rejected": self.rejected}


def _exact(value) -> Decimal:
    """A cadence or resistance as stored: exact decimal, at most 4 places (as outputs are)."""
    return round4(Decimal(str(value)) if isinstance(value, float) else Decimal(value)).normalize()


def check(race: e.RaceGate, samples: list[dict], caller_sub: str, caller_is_admin: bool) -> None:
    """Raises, before anything is written, when a sample is out of range or not the caller's."""
    for index, sample in enumerate(samples):
        if not caller_is_admin and sample["racerId"] != caller_sub:
            raise Forbidden(f"samples[{index}] is for racer {sample['racerId']}: you may send only your own")
        if not 0 <= sample["second"] < race.durationSeconds:
            raise BadRequest(f"samples[{index}].second must be an integer from 0 to {race.durationSeconds - 1}")


def plan(joined: set[str], samples: list[dict], latest: int | None = None, elsewhere: frozenset[str] = frozenset()):
    """Chunk writes for a checked batch: {(racerId, chunk): {second: [cadence, resistance]}}.

    Samples repeated inside the batch are duplicates; those of racers not joined, for a second later
    than ``latest`` (None: any) or of a racer whose ride another device holds (``elsewhere``) are rejected.
    """
    writes: dict[tuple[str, int], dict[int, list]] = defaultdict(dict)
    outcome = Outcome()
    for sample in samples:
        racer_id, second = sample["racerId"], int(sample["second"])
        reason = (NOT_JOINED if racer_id not in joined else ANOTHER_DEVICE if racer_id in elsewhere
                  else NOT_YET if latest is not None and second > latest else None)
        if reason:
            outcome.rejected.append({"racerId": racer_id, "second": second, "reason": reason})
            continue
        chunk = writes[(racer_id, second // e.Chunk.SECONDS)]
        if second in chunk:
            outcome.duplicates += 1
            continue
        chunk[second] = [_exact(sample["cadence"]), _exact(sample["resistance"])]
    return writes, outcome


def ingest(race_id: str, samples: list[dict], caller_sub: str, caller_is_admin: bool,
           request_key: str | None = None, device: str | None = None, now: float | None = None) -> Outcome:
    """Applies a checked batch received at ``now`` (epoch seconds; the server's clock decides which
    seconds have happened). With a ``request_key`` (Idempotency-Key) a retry of the same request
    answers the counts the first attempt did (see ``racers.add_samples``). With a ``device``, a
    racer's samples count only from the device that holds their ride (the first to send)."""
    # consistent: an eventual read could miss a finish just done
    race, entries = races.gate_and_entries(race_id, sorted({s["racerId"] for s in samples}))
    if race is None:
        raise NotFound(f"race {race_id} does not exist")
    if race.status == e.FINISHED:
        raise Conflict(f"race {race_id} is finished: it takes no more telemetry")
    check(race, samples, caller_sub, caller_is_admin)
    joined = {entry.racerId for entry in entries}
    latest = _latest(race, clock.now() if now is None else now)
    elsewhere = frozenset(entry.racerId for entry in entries if device and not _holds(entry, device))
    writes, outcome = plan(joined, samples, latest, elsewhere)

    def write(item):
        (racer_id, chunk), seconds = item
        points = {second: output(*pair) for second, pair in seconds.items()}
        return racer_id, racers.add_samples(e.Chunk(race.raceId, racer_id, chunk, race.classId, samples=seconds),
                                           points, request_key)

    results = parallel.map_all(write, writes.items())
    for racer_id, written in results:
        outcome.accepted += written.accepted
        outcome.duplicates += written.duplicates
        outcome.rejected += [{"racerId": racer_id, "second": second, "reason": TOO_LATE}
                             for second in written.too_late]
    return outcome


def _latest(race: e.RaceGate, now: float) -> int | None:
    """The race's latest second that has happened at ``now`` (None: a gate from before v1.2, unchecked);
    a start no race may have (stored before creation refused it) lets no second happen."""
    if race.startsAt is None:
        return None
    start = clock.race_start(race.startsAt)
    return -1 if start is None else latest_second(now, start)


def _holds(entry: e.Entry, device: str) -> bool:
    """Whether ``device`` holds the entry's ride: the first device to send takes a ride none holds."""
    if entry.device is None:
        entry.device = racers.claim_ride(entry.raceId, entry.racerId, device)
    return entry.device == device
