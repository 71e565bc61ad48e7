"""The fan-in's rules (docs/fan-in.md): a racer's slice of a race, the telemetry rule's group of a racer, and
the arbiter of a second block, first value wins.

A race's racers are split into ``slices`` (fixed when the race is created, stored on the race and its gate
copies) by the MD5 of their id. The topic rule cannot compute a slice (IoT SQL turns only decimal text into
a number, and knows no race's slice count), but it can cut the hex digest: ``GROUPS`` groups a race, a
racer's group the digest's first hex digit (``substring(md5(topic(4)), 0, 1)``), the Kinesis partition key's
last part. A race's slices are a multiple of ``GROUPS``, so each slice lies inside one group: one partition
key, one shard, one consumer sees a slice whole.

A second block holds one (race, slice, second): racerId -> the first value counted and its ``origin`` (the
Kinesis record or the HTTP request that counted it). An update sets each racer's value only if absent and
returns the old values of what it touched (``ReturnValues=UPDATED_OLD``); ``arbitrate`` reads them: absent,
newly counted; this very origin's, a retry of it (counted by its earlier attempt); another's, a duplicate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
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


class Counted(NamedTuple):
    """A racer's second as its block holds it: the first value counted, and the origin that counted it."""

    sample: Sample
    origin: str


@dataclass
class Arbitration:
    """What one block update did with the seconds it carried (racerId -> sample), by the values it returned."""

    counted: dict[str, Sample] = field(default_factory=dict)  # newly counted by this update
    retried: dict[str, Sample] = field(default_factory=dict)  # counted by an earlier attempt of this very origin
    duplicates: dict[str, Counted] = field(default_factory=dict)  # another origin's first value stands

    @property
    def accepted(self) -> int:
        """What this origin counted, whichever of its attempts wrote it: a retry answers what the first did."""
        return len(self.counted) + len(self.retried)


def arbitrate(sent: Mapping[str, Sample], old: Mapping[str, Counted], origin: str) -> Arbitration:
    """The outcome of an update that set ``sent`` (racerId -> sample) where absent, ``old`` the values it
    returned (racerId -> what was stored before it, only for those it found)."""
    outcome = Arbitration()
    for racer_id, sample in sent.items():
        before = old.get(racer_id)
        if before is None:
            outcome.counted[racer_id] = sample
        elif before.origin == origin:
            outcome.retried[racer_id] = before.sample
        else:
            outcome.duplicates[racer_id] = before
    return outcome
