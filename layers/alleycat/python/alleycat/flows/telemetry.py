"""Telemetry ingestion: a batch checked and planned (``rules.telemetry``), then applied exactly once.

Each chunk write sets only seconds that are absent and requires, in its condition, that they still
are; so whatever the order, overlap or concurrency of batches, a second is accepted once and every
later copy is a duplicate. ``points`` of a chunk is added in the same write, so scores follow exactly.

The writes a request causes are bounded by what it adds (docs/security.md): one per (racer, 30-s
chunk) gaining a second, retried only after another writer stored one of its seconds. A racer's
samples over several chunks are read first, in the request's one read, so a batch sent again writes
nothing.

An Idempotency-Key is recorded with a digest of the whole body on each chunk the request writes
(``rules.telemetry.Keyed``): a retry of the request answers what it answered first, chunk by chunk (so
one that partly applied too), and the key sent again with another body is a 422 that writes nothing:
found in the read when the request writes more than one chunk (all of them are read, before any write),
else by its one chunk write's condition (docs/architecture.md, "Telemetry counts").
"""

from __future__ import annotations

from alleycat import clock
from alleycat.errors import Conflict, NotFound
from alleycat.rules import telemetry as rules
from alleycat.rules.samples import Seconds
from alleycat.rules.telemetry import Outcome
from alleycat.storage import entities as e
from alleycat.storage import parallel, racers, races


def ingest(race_id: str, samples: list[dict], caller_sub: str, caller_is_admin: bool,
           request_key: str | None = None, device: str | None = None, now: float | None = None) -> Outcome:
    """Applies a checked batch received at ``now`` (epoch seconds; the server's clock decides which
    seconds have happened). With a ``request_key`` (Idempotency-Key) a retry of the same request
    answers the counts the first attempt did, and the key with another body is Unprocessable (see
    ``racers.add_samples``). With a ``device``, a racer's samples count only from the device that holds
    their ride (the first to send)."""
    # consistent: an eventual read could miss a finish just done
    read_first = rules.chunks_to_read(samples, rules.LONGEST_RACE_SECONDS, keyed=request_key is not None)
    race, entries, chunks = races.gate_and_entries(race_id, sorted({s["racerId"] for s in samples}), read_first)
    if race is None:
        raise NotFound(f"race {race_id} does not exist")
    if race.status == e.FINISHED:
        raise Conflict(f"race {race_id} is finished: it takes no more telemetry")
    rules.check(race.durationSeconds, samples, caller_sub, caller_is_admin)
    request = rules.keyed(request_key, device, samples) if request_key else None
    for found in chunks.values():  # before any write (a ride claimed for a device included)
        rules.refuse_reuse(request, found.lastWrite)
    joined = {entry.racerId for entry in entries}
    latest = rules.latest(race.startsAt, clock.now() if now is None else now)
    elsewhere = frozenset(entry.racerId for entry in entries if device and not _holds(entry, device))
    writes, outcome = rules.plan(joined, samples, latest, elsewhere, race.metric)

    def write(planned: tuple[rules.ChunkId, Seconds]):
        (racer_id, chunk), seconds = planned
        points = {second: sample.score(race.metric) for second, sample in seconds.items()}
        stored = racers.stored_chunk(chunk, chunks.get((racer_id, chunk))) if (racer_id, chunk) in read_first else None
        return racer_id, racers.add_samples(e.Chunk(race.raceId, racer_id, chunk, race.classId, samples=seconds),
                                           points, request, stored)

    for racer_id, written in parallel.map_all(write, writes.items()):
        outcome.add(racer_id, written)
    return outcome


def _holds(entry: e.Entry, device: str) -> bool:
    """Whether ``device`` holds the entry's ride: the first device to send takes a ride none holds."""
    if entry.device is None:
        entry.device = racers.claim_ride(entry.raceId, entry.racerId, device)
    return entry.device == device
