"""The fan-in's rules (docs/fan-in.md): a racer's slice of a race, the telemetry rule's group of a racer, and
the arbiter of a second block, first value wins.

A race's racers are split into ``slices`` (fixed when the race is created, stored on the race and its gate
copies) by the MD5 of their id. The topic rule cannot compute a slice (IoT SQL turns only decimal text into
a number, and knows no race's slice count), but it can cut the hex digest: ``GROUPS`` groups a race, a
racer's group the digest's first hex digit (``substring(md5(topic(4)), 0, 1)``), the Kinesis partition key's
last part. A race's slices are a multiple of ``GROUPS``, so each slice lies inside one group: one partition
key, one shard, one consumer sees a slice whole.

A second block holds one (race, slice, second): a racer's ``tag`` -> the first value counted and its ``origin``
(a short digest of the Kinesis record or the HTTP request that counted it). An update sets each racer's value
only if absent and returns the old values of what it touched (``ReturnValues=UPDATED_OLD``); ``arbitrate``
reads them: absent, newly counted; this very origin's, a retry of it (counted by its earlier attempt);
another's, a duplicate.

A racer's tag names them in their slice's blocks and board in ``TAG_CHARS`` characters, not their 36: a block
holds ~100 racers, and DynamoDB charges attribute names as data. ``tags_of`` gives a racer's candidates in
order; the join claims the first no other racer of the slice holds (``storage.races.join``), and the entry
keeps it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from alleycat.rules.samples import Sample

GROUPS = 16  # the rule's groups a race: one hex digit of the digest
SLICE_RACERS = 100  # planned racers a slice at most: a block's update stays a few write units
PLANNED_RACERS = 1_000  # what a race is sized for when it is created (the contract takes no expected count)


def digest(racer_id: str) -> str:
    """The racer id's MD5, lowercase hex: IoT SQL's ``md5(topic(4))``."""
    import hashlib  # the fan-in's callers only: the storage's entities import this module

    return hashlib.md5(racer_id.encode()).hexdigest()


def group_of(racer_id: str) -> str:
    """The racer's group, as the topic rule's partition key names it: the digest's first hex digit."""
    return digest(racer_id)[0]


def slices_for(racers: int) -> int:
    """A race's slice count for ``racers`` expected: at most ``SLICE_RACERS`` a slice on average, a multiple
    of ``GROUPS`` (so that every slice lies within one group)."""
    wanted = -(-max(racers, 1) // SLICE_RACERS)
    return GROUPS * -(-wanted // GROUPS)


SLICES = slices_for(PLANNED_RACERS)


def slice_of(racer_id: str, slices: int) -> int:
    """The racer's slice of a race of ``slices``: the digest's first 32 bits scaled to the count, so that
    ``slice_of(r, s) // (s // GROUPS) == int(group_of(r), 16)`` (a slice within a group)."""
    if slices < GROUPS or slices % GROUPS:
        raise ValueError(f"a race's slices are a positive multiple of {GROUPS}, not {slices}")
    return int(digest(racer_id)[:8], 16) * slices >> 32


TAG_CHARS = 3  # 18 bits: two of a full slice's 100 racers share a first candidate once in ~50 slices
TAG_TRIES = 8  # candidates a join tries before it gives up (a slice would have to hold most of them)
ORIGIN_BYTES = 3  # tells a retry from another origin's duplicate: a false match once in 2^24 duplicates


def _short(text: str, size: int) -> str:
    import base64
    import hashlib

    return base64.urlsafe_b64encode(hashlib.blake2b(text.encode(), digest_size=size).digest()).decode()


def tags_of(racer_id: str) -> Iterator[str]:
    """A racer's candidate tags in their slice, in the order a join tries them: ``TAG_CHARS`` base64url
    characters each (never a block's or a board's other attribute names, which are longer or shorter)."""
    for attempt in range(TAG_TRIES):
        yield _short(f"{attempt}:{racer_id}", 3)[:TAG_CHARS]


def origin_of(text: str) -> str:
    """The origin a block records for the Kinesis record (shard and sequence number) or the HTTP request
    (its Idempotency-Key, else its request id) named by ``text``: ``ORIGIN_BYTES`` of its digest, base64url."""
    return _short(text, ORIGIN_BYTES)


def fresh_origin() -> str:
    """The origin of an HTTP request sent without an Idempotency-Key: its own (a retry is another request)."""
    import base64
    import os

    return base64.urlsafe_b64encode(os.urandom(ORIGIN_BYTES)).decode()


class SliceStanding(NamedTuple):
    """A racer's row on their slice's board: the sum of their counted seconds' scores and the highest second
    (the name, equipment and review live on the entry and the race's rosters)."""

    score: Decimal
    last_second: int | None

    def plus(self, points, second: int) -> SliceStanding:
        last = second if self.last_second is None else max(self.last_second, second)
        return SliceStanding(self.score + points, last)


NO_STANDING = SliceStanding(Decimal(0), None)
RECENT_REQUESTS = 8  # HTTP requests a slice board remembers: a retry comes within seconds, and bikes post over MQTT


class Gain(NamedTuple):
    """A second newly counted into a block, for its slice's board: the racer's tag, the second, its points, and
    ``mark``: the Kinesis record's sequence number, or the HTTP request's origin (``origin_of``)."""

    tag: str
    second: int
    points: Decimal | int
    mark: str


def add_gains(standings: dict[str, SliceStanding], applied: dict[str, str], recent: list[str],
              gains: list[Gain], lane: str | None) -> bool:
    """Adds to a slice board's ``standings`` the ``gains`` it does not hold yet; whether it changed.

    From the log (``lane``: the Kinesis shard) only records after the last one the board ``applied`` from that
    shard count, and the last becomes the batch's; from an HTTP request (``lane`` None; one origin for all its
    gains) nothing counts when that origin is one of the board's ``recent``, which it joins."""
    if lane is None:
        if not gains or gains[0].mark in recent:
            return False
        recent[:] = [*recent, gains[0].mark][-RECENT_REQUESTS:]
        fresh = gains
    else:
        after = int(applied.get(lane, -1))
        fresh = [gain for gain in gains if int(gain.mark) > after]
        if not fresh:
            return False
        applied[lane] = max((gain.mark for gain in fresh), key=int)
    for gain in fresh:
        standings[gain.tag] = standings.get(gain.tag, NO_STANDING).plus(gain.points, gain.second)
    return True


class Counted(NamedTuple):
    """A racer's second as its block holds it: the first value counted, and the origin that counted it."""

    sample: Sample
    origin: str


@dataclass
class Arbitration:
    """What one block update did with the seconds it carried (tag -> sample), by the values it returned."""

    counted: dict[str, Sample] = field(default_factory=dict)  # newly counted by this update
    retried: dict[str, Sample] = field(default_factory=dict)  # counted by an earlier attempt of this very origin
    duplicates: dict[str, Counted] = field(default_factory=dict)  # another origin's first value stands

    @property
    def accepted(self) -> int:
        """What this origin counted, whichever of its attempts wrote it: a retry answers what the first did."""
        return len(self.counted) + len(self.retried)


def arbitrate(sent: Mapping[str, Counted], old: Mapping[str, Counted]) -> Arbitration:
    """The outcome of an update that set ``sent`` (tag -> the sample and the origin carrying it) where absent,
    ``old`` the values it returned (tag -> what was stored before it, only for those it found)."""
    outcome = Arbitration()
    for tag, (sample, origin) in sent.items():
        before = old.get(tag)
        if before is None:
            outcome.counted[tag] = sample
        elif before.origin == origin:
            outcome.retried[tag] = before.sample
        else:
            outcome.duplicates[tag] = before
    return outcome


def gained(new: Mapping[str, Counted], old: Mapping[str, Counted]) -> dict[str, Sample]:
    """What a block's change newly counted (its stream record's images): tag -> the first value. A value once
    set never changes, so whatever the old image holds was counted by an earlier change."""
    return {tag: counted.sample for tag, counted in new.items() if tag not in old}


def history_chunks(gains: Mapping[str, Mapping[int, Sample]], racers: Mapping[str, str],
                   chunk_seconds: int) -> dict[tuple[str, int], dict[int, Sample]]:
    """A slice's ``gains`` (tag -> second -> first value) as writes of its racers' history chunks:
    (racerId, chunk number) -> second -> value, each chunk ``chunk_seconds`` long. A tag ``racers`` does not
    name (tag -> racerId) is left out."""
    chunks: dict[tuple[str, int], dict[int, Sample]] = {}
    for tag, seconds in gains.items():
        racer_id = racers.get(tag)
        if racer_id is None:
            continue
        for second, sample in seconds.items():
            chunks.setdefault((racer_id, second // chunk_seconds), {})[second] = sample
    return chunks
