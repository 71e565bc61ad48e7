"""Who a simulated racer is and how hard they ride: stable per racer id, trending per race.

Each racer draws, from a generator seeded by their id, a name and a personal cadence
range within 30–90 rpm and resistance range within 33–86 % (the original Alleycat
simulator's ranges). In each race they start near a per-race minimum and build up to
a per-race maximum, both drawn from their personal range; a little jitter on top.

About half of them wear a heart-rate strap (drawn once per racer too): their samples carry
``heartRate`` (contract v1.2), rising with the race's effort from a personal warm-up rate to a
personal peak within ``HEART_RATE_RANGE``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CADENCE_RANGE = (30, 90)
RESISTANCE_RANGE = (33, 86)
MIN_SPREAD = 10  # a personal range is never narrower than this
JITTER = 2
STRAP_SHARE = 0.5  # the share of racers who wear a heart-rate strap
# bpm: a rider's first minute (90-115) to the peak of a hard ride (150-185), inside the contract's 30-250
HEART_RATE_RANGE = (90, 185)
HEART_RATE_START_HIGHEST = 115
HEART_RATE_PEAK_LOWEST = 150

FIRST_NAMES = (
    "Ada", "Amy", "Ben", "Cleo", "Dan", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jade", "Kai",
    "Lena", "Milo", "Nora", "Omar", "Pia", "Quinn", "Rosa", "Sam", "Tara", "Uma", "Vic",
    "Wren", "Xavi", "Yara", "Zed", "Noor", "Luca", "Maya",
)
LAST_NAMES = (
    "Abbott", "Baker", "Castro", "Dlamini", "Eriksen", "Fontaine", "Garcia", "Haddad",
    "Ito", "Jensen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Patel",
    "Quispe", "Rossi", "Schmidt", "Tanaka", "Ueda", "Varga", "Wong", "Xu", "Yilmaz", "Zhou",
)


def _personal_range(rng: random.Random, bounds: tuple[int, int]) -> tuple[int, int]:
    low, high = bounds
    start = rng.randint(low, high - MIN_SPREAD)
    return start, rng.randint(start + MIN_SPREAD, high)


@dataclass(frozen=True)
class RacerProfile:
    racer_id: str
    name: str
    cadence: tuple[int, int]
    resistance: tuple[int, int]
    heart_rate: tuple[int, int] | None = None  # (warm-up, peak) bpm; None: no strap

    @classmethod
    def for_racer(cls, racer_id: str) -> RacerProfile:
        rng = random.Random(f"racer:{racer_id}")
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        cadence, resistance = _personal_range(rng, CADENCE_RANGE), _personal_range(rng, RESISTANCE_RANGE)
        low, high = HEART_RATE_RANGE
        heart_rate = ((rng.randint(low, HEART_RATE_START_HIGHEST), rng.randint(HEART_RATE_PEAK_LOWEST, high))
                      if rng.random() < STRAP_SHARE else None)
        return cls(racer_id, name, cadence, resistance, heart_rate)

    def in_race(self, race_key: str, duration: int) -> RaceEffort:
        rng = random.Random(f"race:{race_key}:{self.racer_id}")
        return RaceEffort(self, race_key, duration, _race_bounds(rng, self.cadence),
                          _race_bounds(rng, self.resistance))


def _race_bounds(rng: random.Random, bounds: tuple[int, int]) -> tuple[int, int]:
    """A per-race (minimum, maximum): minimum in the lower half, maximum in the upper half."""
    low, high = bounds
    middle = (low + high) / 2
    return round(rng.uniform(low, middle)), round(rng.uniform(middle, high))


@dataclass(frozen=True)
class RaceEffort:
    """One racer in one race: values trend from the race's minimum to its maximum."""

    profile: RacerProfile
    race_key: str
    duration: int
    cadence: tuple[int, int]
    resistance: tuple[int, int]

    def progress(self, second: int) -> float:
        return second / max(self.duration - 1, 1)

    def trend(self, second: int) -> tuple[float, float]:
        """(cadence, resistance) on the trend line, before jitter."""
        share = self.progress(second)
        return (self.cadence[0] + (self.cadence[1] - self.cadence[0]) * share,
                self.resistance[0] + (self.resistance[1] - self.resistance[0]) * share)

    def sample(self, second: int) -> dict:
        """The telemetry sample for ``second``; the same every time it is asked for."""
        rng = random.Random(f"sample:{self.race_key}:{self.profile.racer_id}:{second}")
        cadence, resistance = self.trend(second)
        sample = {
            "racerId": self.profile.racer_id,
            "second": second,
            "cadence": _clamp(round(cadence + rng.uniform(-JITTER, JITTER)), self.profile.cadence),
            "resistance": _clamp(round(resistance + rng.uniform(-JITTER, JITTER)), self.profile.resistance),
        }
        if self.profile.heart_rate is not None:
            start, peak = self.profile.heart_rate
            on_trend = start + (peak - start) * self.progress(second)
            sample["heartRate"] = _clamp(round(on_trend + rng.uniform(-JITTER, JITTER)), self.profile.heart_rate)
        return sample


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])
