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

With the fan-in on (``settings.FAN_IN``) a race of slices counts through its second blocks instead
(docs/fan-in.md): the same read and checks, then one block update per (slice, second) the batch touches
(``storage.blocks.count``: first value wins) and one write of each slice's board it gains on. A request's
Idempotency-Key is recorded with its body's digest before any block is written (``storage.blocks.claim_request``:
the key with another body is a 422 that writes nothing); its origin is the key's digest (a retry finds its own
values: answered as its first attempt was), else a fresh one; the
telemetry log's consumer counts a whole Kinesis batch so (``ingest_log``), each record its own origin.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from alleycat import clock, settings
from alleycat.errors import AlleycatError, Conflict, NotFound, Unprocessable
from alleycat.observability import logger
from alleycat.rules import fanin
from alleycat.rules import telemetry as rules
from alleycat.rules.samples import Sample, Seconds
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
    elsewhere = frozenset(entry.racerId for entry in entries if device and not _holds(entry, device, race.slices))
    writes, outcome = rules.plan(joined, samples, latest, elsewhere, race.metric)
    tags = _tags(race, entries)
    if tags is not None:
        if request and not _claim(race.raceId, rules.request_of(caller_sub, request_key or ""), request.body):
            raise Unprocessable(rules.REUSED_KEY)
        origin = fanin.origin_of(request_key) if request_key else fanin.fresh_origin()
        carried = [Carried(racer_id, second, fanin.Counted(sample, origin), origin)
                   for (racer_id, _), seconds in writes.items() for second, sample in seconds.items()]
        done = _fan_in(race, tags, carried, None)
        if any(sample != done.sent[key].sample for key, sample in done.retried.items()):
            raise Unprocessable(rules.REUSED_KEY)
        outcome.accepted += len(done.counted) + len(done.retried)
        outcome.duplicates += len(done.duplicates) + done.within
        return outcome

    def write(planned: tuple[rules.ChunkId, Seconds]):
        (racer_id, chunk), seconds = planned
        points = {second: sample.score(race.metric) for second, sample in seconds.items()}
        stored = racers.stored_chunk(chunk, chunks.get((racer_id, chunk))) if (racer_id, chunk) in read_first else None
        return racer_id, racers.add_samples(e.Chunk(race.raceId, racer_id, chunk, race.classId, samples=seconds),
                                           points, request, stored)

    for racer_id, written in parallel.map_all(write, writes.items()):
        outcome.add(racer_id, written)
    return outcome


def _holds(entry: e.Entry | e.SliceTag, device: str, slices: int | None) -> bool:
    """Whether ``device`` holds the ride of the entry (or of the slice's tag naming it): the first device to send
    takes a ride none holds, and a tagged racer's slice roster names it too."""
    if entry.device is None:
        tag = (fanin.slice_of(entry.racerId, slices), entry.tag) if slices and entry.tag is not None else None
        entry.device = racers.claim_ride(entry.raceId, entry.racerId, device, tag)
    return entry.device == device


# --- the fan-in (docs/fan-in.md) -------------------------------------------------------------

class Carried(NamedTuple):
    """A racer's second a batch carries to its block: the value and its origin, and ``mark``, what the slice
    board's guard knows it by (the Kinesis record's sequence number, or the HTTP request's origin)."""

    racer_id: str
    second: int
    counted: fanin.Counted
    mark: str


BlockSecond = tuple[int, int, str]  # (slice, second, tag): a racer's second in their slice's block


@dataclass
class FannedIn:
    """What a batch's block updates did with what they were ``sent``, by ``BlockSecond`` (as
    ``rules.fanin.Arbitration``), and the seconds the batch carried twice (``within``: the first stands)."""

    sent: dict[BlockSecond, fanin.Counted] = field(default_factory=dict)
    counted: dict[BlockSecond, Sample] = field(default_factory=dict)
    retried: dict[BlockSecond, Sample] = field(default_factory=dict)
    duplicates: dict[BlockSecond, fanin.Counted] = field(default_factory=dict)
    within: int = 0


def _tags(race: e.RaceGate, entries: list[e.Entry]) -> dict[str, str] | None:
    """racerId -> tag when the batch counts through the blocks: the fan-in on, the race sliced, and every
    entry tagged (a racer who joined before the race had slices has none: the chunks count them)."""
    if not (settings.load().fan_in and race.slices) or any(entry.tag is None for entry in entries):
        return None
    return {entry.racerId: entry.tag for entry in entries if entry.tag is not None}


def _claim(race_id: str, request: str, body: str) -> bool:
    from alleycat.storage import blocks  # the fan-in's alone

    return blocks.claim_request(race_id, request, body)


def _fan_in(race: e.RaceGate, tags: Mapping[str, str], carried: list[Carried], lane: str | None) -> FannedIn:
    """Counts ``carried`` into the blocks, one update per (slice, second), then adds what they counted (and
    what an earlier attempt of the same origins counted) to each slice's board, one write a slice."""
    from alleycat.storage import blocks  # the fan-in's alone

    assert race.slices is not None
    outcome, by_block, marks = FannedIn(), dict[tuple[int, int], dict[str, fanin.Counted]](), dict[BlockSecond, str]()
    for c in carried:
        slice_, tag = fanin.slice_of(c.racer_id, race.slices), tags[c.racer_id]
        block = by_block.setdefault((slice_, c.second), {})
        if tag in block:  # an earlier record of the batch carried it: the first stands
            outcome.within += 1
            continue
        block[tag] = outcome.sent[(slice_, c.second, tag)] = c.counted
        marks[(slice_, c.second, tag)] = c.mark

    def count(item):
        (slice_, second), sent = item
        return slice_, second, blocks.count(race.raceId, slice_, second, sent)

    gains: dict[int, list[fanin.Gain]] = {}
    for slice_, second, done in parallel.map_all(count, by_block.items()):
        for tag, sample in (*done.counted.items(), *done.retried.items()):
            gains.setdefault(slice_, []).append(
                fanin.Gain(tag, second, sample.score(race.metric), marks[(slice_, second, tag)]))
        outcome.counted.update({(slice_, second, tag): sample for tag, sample in done.counted.items()})
        outcome.retried.update({(slice_, second, tag): sample for tag, sample in done.retried.items()})
        outcome.duplicates.update({(slice_, second, tag): found for tag, found in done.duplicates.items()})
    parallel.map_all(lambda item: blocks.add_to_board(race.raceId, item[0], item[1], lane), gains.items())
    return outcome


class LogMessage(NamedTuple):
    """A record of the telemetry log, parsed (``alleycat.edge.mqtt.parse``): the racer's samples, the device,
    the rule's time of arrival (epoch seconds) and the record's sequence number."""

    racer_id: str
    samples: list[dict]
    device: str | None
    arrival: float
    sequence: str


def ingest_log(race_id: str, messages: list[LogMessage], lane: str) -> int:
    """Counts a Kinesis batch's ``messages`` of one race, from the shard ``lane``, as the telemetry route counts
    each racer's own batch, through the blocks when the race counts so (else message by message, the chunks);
    the seconds newly counted. A message that counts nothing is logged; DynamoDB's errors are raised (the batch
    is sent again, and counts nothing twice)."""
    race, roster = _gate_and_roster(race_id, sorted({m.racer_id for m in messages}))
    if race is None or roster is None:
        counted = 0
        for m in messages:
            try:
                counted += ingest(race_id, m.samples, m.racer_id, False, None, m.device, m.arrival).accepted
            except AlleycatError as error:
                logger.info("telemetry message dropped", extra={"sequenceNumber": m.sequence, "reason": str(error)})
        return counted
    tags = {racer_id: tag.tag for racer_id, tag in roster.items()}
    joined, by_racer = set(tags), roster
    carried: list[Carried] = []
    for m in messages:
        try:
            rules.check(race.durationSeconds, m.samples, m.racer_id, False)
        except AlleycatError as error:
            logger.info("telemetry message dropped", extra={"sequenceNumber": m.sequence, "reason": str(error)})
            continue
        entry = by_racer.get(m.racer_id)
        elsewhere = frozenset({m.racer_id} if m.device and entry and not _holds(entry, m.device, race.slices) else ())
        writes, _ = rules.plan(joined, m.samples, rules.latest(race.startsAt, m.arrival), elsewhere, race.metric)
        origin = fanin.origin_of(f"{lane}:{m.sequence}")
        carried += [Carried(racer_id, second, fanin.Counted(sample, origin), m.sequence)
                    for (racer_id, _), seconds in writes.items() for second, sample in seconds.items()]
    return len(_fan_in(race, tags, carried, lane).counted)


def _gate_and_roster(race_id: str, racer_ids: list[str]) -> tuple[e.RaceGate | None, dict[str, e.SliceTag] | None]:
    """The consumer's reads for a batch of the race's ``racer_ids``, strongly consistent: the race's gate copy, then,
    when the race counts through the blocks, each slice's roster the batch touches (one Query a slice: its racers'
    tags, each naming the device that holds the ride), not each racer's entry. Returns the gate and racerId -> tag
    for the batch's joined racers; None instead when the batch counts through the chunks (the race finished, not
    sliced, or a racer of the batch joined untagged: their entry, read when they are on no roster, says so)."""
    from alleycat.storage import blocks  # the fan-in's alone

    race = races.gate(race_id, racer_ids[0])
    if race is None or race.status == e.FINISHED or not (settings.load().fan_in and race.slices):
        return race, None
    slices = race.slices
    wanted, by_racer = set(racer_ids), dict[str, e.SliceTag]()
    for roster in parallel.map_all(lambda slice_: blocks.roster(race_id, slice_),
                                   sorted({fanin.slice_of(racer_id, slices) for racer_id in racer_ids})):
        by_racer.update({tag.racerId: tag for tag in roster if tag.racerId in wanted})
    if unrostered := sorted(wanted - set(by_racer)):  # not joined, or joined before the race had slices
        _, entries, _ = races.gate_and_entries(race_id, unrostered)
        if any(entry.tag is None for entry in entries):
            return race, None
    return race, by_racer
