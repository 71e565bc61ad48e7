"""Who a simulated racer is and how hard they ride: stable per racer id, trending per race.

Each racer draws, from a generator seeded by their id, a name and a personal cadence
range within 30–90 rpm and resistance range within 33–86 % (the original Alleycat
simulator's ranges). In each race they start near a per-race minimum and build up to
a per-race maximum, both drawn from their personal range; a little jitter on top.

They ride as people do (docs/fair-play.md: what honest riders do is never flagged): every race starts
from standstill (0 rpm at second 0, the trend reached within ``START_RAMP`` seconds, in one second for
some, as a beginner pressing a key or a sensor's first reading), about a third stop once for 5 to 20 s
and start again, and every one sprints at the end, up to 35 rpm above their trend.

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
START_RAMP = (1, 4)  # seconds from 0 rpm to the trend, at the start and after a stop
STOP_SHARE = 0.3  # the share of racers who stop once in a race
STOP_SECONDS = (5, 20)
SPRINT_SECONDS = (10, 30)  # the last seconds of the race, sprinting
SPRINT_RPM = (15, 35)  # how far above the trend a sprint's cadence rises, reached in SPRINT_RAMP seconds
SPRINT_RAMP = 3

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
        cadence, resistance = _race_bounds(rng, self.cadence), _race_bounds(rng, self.resistance)
        sprint = Sprint(duration - rng.randint(*SPRINT_SECONDS), rng.randint(*SPRINT_RPM))
        stop = None
        if rng.random() < STOP_SHARE and duration >= 120:
            length = rng.randint(*STOP_SECONDS)
            stop = Stop(rng.randint(30, duration - 60 - length), length, rng.randint(*START_RAMP))
        return RaceEffort(self, race_key, duration, cadence, resistance, rng.randint(*START_RAMP), stop, sprint)


def _race_bounds(rng: random.Random, bounds: tuple[int, int]) -> tuple[int, int]:
    """A per-race (minimum, maximum): minimum in the lower half, maximum in the upper half."""
    low, high = bounds
    middle = (low + high) / 2
    return round(rng.uniform(low, middle)), round(rng.uniform(middle, high))


@dataclass(frozen=True)
class Stop:
    """A stop in a race: 0 rpm from ``at`` for ``seconds``, then back to the trend in ``ramp`` seconds."""

    at: int
    seconds: int
    ramp: int


@dataclass(frozen=True)
class Sprint:
    """The end of a race: from second ``at``, cadence rising to ``rpm`` above the trend."""

    at: int
    rpm: int


@dataclass(frozen=True)
class RaceEffort:
    """One racer in one race: values trend from the race's minimum to its maximum, from standstill
    (the trend reached in ``start_ramp`` seconds), perhaps with a ``stop``, with a ``sprint`` at the end."""

    profile: RacerProfile
    race_key: str
    duration: int
    cadence: tuple[int, int]
    resistance: tuple[int, int]
    start_ramp: int = 1
    stop: Stop | None = None
    sprint: Sprint | None = None

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
            "cadence": self.ridden(second, _clamp(round(cadence + rng.uniform(-JITTER, JITTER)), self.profile.cadence)),
            "resistance": _clamp(round(resistance + rng.uniform(-JITTER, JITTER)), self.profile.resistance),
        }
        if self.profile.heart_rate is not None:
            start, peak = self.profile.heart_rate
            on_trend = start + (peak - start) * self.progress(second)
            sample["heartRate"] = _clamp(round(on_trend + rng.uniform(-JITTER, JITTER)), self.profile.heart_rate)
        return sample

    def ridden(self, second: int, cadence: int) -> int:
        """The cadence a rider turns at ``second`` whose trend (with jitter) is ``cadence``: from
        standstill at the start and after a stop, 0 while stopped, above the trend in the sprint."""
        share = min(1.0, second / self.start_ramp)
        if self.stop and second >= self.stop.at:
            since = second - self.stop.at - self.stop.seconds
            if since < 0:
                return 0
            share = min(1.0, (since + 1) / self.stop.ramp)
        lift = 0.0
        if self.sprint and second >= self.sprint.at:
            lift = self.sprint.rpm * min(1.0, (second - self.sprint.at + 1) / SPRINT_RAMP)
        return round(cadence * share + lift)


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])
