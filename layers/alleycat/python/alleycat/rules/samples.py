"""A ride's stored shapes as types: one second's ``Sample``, a chunk's ``Seconds``, a chunk's ``Totals``.

A telemetry field is added here (``Sample`` and ``Sample.of``), in its stored form
(``storage.entities``), in its view (``edge.views.history``) and in the contract's record of the
telemetry route (``edge.routes``): nothing else unpacks a sample.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import NamedTuple

from alleycat.rules.scores import output, round4

Number = int | Decimal
CHUNK_SECONDS = 30  # a history chunk's seconds: 30 samples of a 36-character racer id stay under 1 KB, one write unit


class Sample(NamedTuple):
    """One second of a ride, as the racer's device measured it."""

    cadence: Number  # rpm
    resistance: Number  # percent

    @classmethod
    def of(cls, sent: Mapping) -> Sample:
        """A telemetry body's sample (its ``cadence`` and ``resistance``) as stored: exact, at most 4 places."""
        return cls(exact(sent["cadence"]), exact(sent["resistance"]))

    @property
    def output(self) -> Decimal:
        return output(self.cadence, self.resistance)


Seconds = dict[int, Sample]  # a chunk's (or a whole ride's) samples by second of the race


class Totals(NamedTuple):
    """What a history chunk adds to its racer's entry: its points and its highest second (None: none yet)."""

    points: Number
    last_second: int | None


def exact(value) -> Decimal:
    """A cadence or resistance as stored: exact decimal, at most 4 places (as outputs are)."""
    return round4(Decimal(str(value)) if isinstance(value, float) else Decimal(value)).normalize()


def totals_of(seconds: Seconds) -> Totals:
    """A chunk's totals from its samples: the sum of their outputs, its highest second."""
    return Totals(sum((sample.output for sample in seconds.values()), Decimal(0)), max(seconds, default=None))
