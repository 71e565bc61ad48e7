"""A ride's stored shapes as types: one second's ``Sample``, a chunk's ``Seconds``, a chunk's ``Totals``.

A telemetry field is added here (``Sample`` and ``Sample.of``), in its stored form
(``storage.entities``), in its view (``edge.views.history``) and in the contract's record of the
telemetry route (``edge.routes``): nothing else unpacks a sample.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple

from alleycat.rules.scores import output, round4

Number = int | Decimal
OUTPUT, POWER = "output", "power"  # a class's metric: what its racers' scores add up
METRICS = (OUTPUT, POWER)
CHUNK_SECONDS = 30  # a history chunk's seconds: 30 samples (heart rates too) of a 36-character racer id stay under 1 KB, one write unit


class Sample(NamedTuple):
    """One second of a ride, as the racer's device measured it."""

    cadence: Number  # rpm
    resistance: Number  # percent
    heart_rate: int | None = None  # whole bpm, from a heart-rate strap; None: none was sent (it counts for no output)
    power: int | None = None  # whole watts, a smart trainer's or power meter's reading; None: none was sent

    def score(self, metric: str) -> Number:
        """What the second adds to its racer's score in a class of ``metric``: its output, or in a power
        class its watts (a second's joules). A power class stores no second without power."""
        return self.output if metric != POWER else (self.power or 0)

    @classmethod
    def of(cls, sent: Mapping) -> Sample:
        """A telemetry body's sample (its ``cadence``, ``resistance`` and optional ``heartRate`` and ``power``,
        checked by the route's schema) as stored: exact, at most 4 places; the heart rate in whole bpm, the
        power in whole watts (the schema takes integers only). A field of null is none sent."""
        heart_rate, power = sent.get("heartRate"), sent.get("power")
        return cls(exact(sent["cadence"]), exact(sent["resistance"]),
                   None if heart_rate is None else whole_bpm(heart_rate), None if power is None else int(power))

    @property
    def output(self) -> Decimal:
        return output(self.cadence, self.resistance)


Seconds = dict[int, Sample]  # a chunk's (or a whole ride's) samples by second of the race


class Totals(NamedTuple):
    """What a history chunk adds to its racer's entry: its points and its highest second (None: none yet)."""

    points: Number
    last_second: int | None


def exact(value) -> Decimal:
    """A cadence, resistance or heart rate as stored: exact decimal, at most 4 places (as outputs are)."""
    return round4(Decimal(str(value)) if isinstance(value, float) else Decimal(value)).normalize()


def whole_bpm(value) -> int:
    """A heart rate as stored: whole beats a minute, half up, as a strap measures it (Heart Rate
    Measurement, 0x2A37) and a FIT record holds it. It keeps a chunk of 30 seconds within one write
    unit: 4-decimal heart rates would take the widest chunk past 1 KB (docs/capacity.md)."""
    return int(Decimal(str(value) if isinstance(value, float) else value).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def totals_of(seconds: Seconds, metric: str = OUTPUT) -> Totals:
    """A chunk's totals from its samples: the sum of their scores under the class's ``metric``, its highest second."""
    return Totals(sum((sample.score(metric) for sample in seconds.values()), Decimal(0)), max(seconds, default=None))
