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

Every sample carries ``power`` (contract v1.3: whole watts, as a smart trainer or power meter
measures it; the simulator's racers join as ``bike``, real equipment). Watts are torque times the
crank's angular speed: power = torque x 2 pi x cadence / 60, where the torque is the rider's own
scale times the trainer's resistance curve, ``(resistance + 65) / 165`` (1 at 100 %), pushed harder in
the sprint. Each racer has a size (``mass``, kg) and a fitness (``watts_per_kg`` they hold for an hour,
a club rider's): their torque scale is such that at the top of their personal ranges (cadence and
resistance) they ride at that power, ``mass x watts_per_kg``: 140 to 380 W. A race trends up to about
it (100 racers' 5 minutes average 170 to 310 W, 10th to 90th percentile); the sprint adds cadence and
``Sprint.push`` times the torque: 540 to 980 W at its height, at most about 1,400 (docs/simulator.md).
No rule of a power class flags them (docs/fair-play.md).
"""

from __future__ import annotations

import math
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
# A club rider's size and fitness: kg, and the watts a kg they hold for an hour (Coggan's power profile puts
# untrained men near 2 W/kg at threshold, category 3-4 racers near 3-3.5, world class above 6).
MASS_KG = (55, 95)
WATTS_PER_KG = (2.5, 4.0)
SPRINT_PUSH = (2.0, 2.6)  # how many times their torque a sprint pushes at its height, reached in SPRINT_RAMP s
POWER_JITTER = 0.03  # a power reading's wobble, a share of it
MOST_WATTS = 3000  # the contract's most

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
    mass: int = 75  # kg
    watts_per_kg: float = 3.0  # what they hold for an hour: their power at the top of their ranges

    @property
    def threshold_watts(self) -> float:
        """The power they ride at the top of their cadence and resistance ranges."""
        return self.mass * self.watts_per_kg

    @property
    def torque_scale(self) -> float:
        """Their crank torque (N*m) on the trainer at 100 % resistance: the torque of ``threshold_watts``
        at their highest cadence and resistance."""
        return self.threshold_watts / (_resistance_curve(self.resistance[1]) * _radians_a_second(self.cadence[1]))

    @classmethod
    def for_racer(cls, racer_id: str) -> RacerProfile:
        rng = random.Random(f"racer:{racer_id}")
        name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        cadence, resistance = _personal_range(rng, CADENCE_RANGE), _personal_range(rng, RESISTANCE_RANGE)
        low, high = HEART_RATE_RANGE
        heart_rate = ((rng.randint(low, HEART_RATE_START_HIGHEST), rng.randint(HEART_RATE_PEAK_LOWEST, high))
                      if rng.random() < STRAP_SHARE else None)
        # drawn after the rest, so every racer's name, ranges and strap stay as they were before power
        mass, watts_per_kg = rng.randint(*MASS_KG), round(rng.uniform(*WATTS_PER_KG), 2)
        return cls(racer_id, name, cadence, resistance, heart_rate, mass, watts_per_kg)

    def in_race(self, race_key: str, duration: int) -> RaceEffort:
        rng = random.Random(f"race:{race_key}:{self.racer_id}")
        cadence, resistance = _race_bounds(rng, self.cadence), _race_bounds(rng, self.resistance)
        sprint_at, sprint_rpm = duration - rng.randint(*SPRINT_SECONDS), rng.randint(*SPRINT_RPM)
        stop = None
        if rng.random() < STOP_SHARE and duration >= 120:
            length = rng.randint(*STOP_SECONDS)
            stop = Stop(rng.randint(30, duration - 60 - length), length, rng.randint(*START_RAMP))
        start_ramp = rng.randint(*START_RAMP)
        sprint = Sprint(sprint_at, sprint_rpm, round(rng.uniform(*SPRINT_PUSH), 2))  # drawn last: the rest as before
        return RaceEffort(self, race_key, duration, cadence, resistance, start_ramp, stop, sprint)


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
    """The end of a race: from second ``at``, cadence rising to ``rpm`` above the trend and the torque to
    ``push`` times the rider's, both reached in ``SPRINT_RAMP`` seconds."""

    at: int
    rpm: int
    push: float = 1.0

    def share(self, second: int) -> float:
        """How far into its height the sprint is at ``second``: 0 before it, 1 from ``SPRINT_RAMP`` s in."""
        return min(1.0, (second - self.at + 1) / SPRINT_RAMP) if second >= self.at else 0.0


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
        on_cadence, on_resistance = self.trend(second)
        cadence = self.ridden(second, _clamp(round(on_cadence + rng.uniform(-JITTER, JITTER)), self.profile.cadence))
        resistance = _clamp(round(on_resistance + rng.uniform(-JITTER, JITTER)), self.profile.resistance)
        sample: dict = {"racerId": self.profile.racer_id, "second": second, "cadence": cadence, "resistance": resistance}
        if self.profile.heart_rate is not None:
            start, peak = self.profile.heart_rate
            on_trend = start + (peak - start) * self.progress(second)
            sample["heartRate"] = _clamp(round(on_trend + rng.uniform(-JITTER, JITTER)), self.profile.heart_rate)
        # drawn last: the cadence, resistance and heart rate stay what they were before power
        wobble = 1 + rng.uniform(-POWER_JITTER, POWER_JITTER)
        sample["power"] = min(MOST_WATTS, round(self.watts(second, cadence, resistance) * wobble))
        return sample

    def torque(self, second: int, resistance: float) -> float:
        """The crank torque (N*m) at ``resistance``: the rider's scale on the trainer's curve, pushed in the sprint."""
        push = 1 + ((self.sprint.push - 1) * self.sprint.share(second) if self.sprint else 0)
        return self.profile.torque_scale * _resistance_curve(resistance) * push

    def watts(self, second: int, cadence: float, resistance: float) -> float:
        """Power = torque x angular speed: what the rider turning ``cadence`` at ``resistance`` produces."""
        return self.torque(second, resistance) * _radians_a_second(cadence)

    def ridden(self, second: int, cadence: int) -> int:
        """The cadence a rider turns at ``second`` whose trend (with jitter) is ``cadence``: from
        standstill at the start and after a stop, 0 while stopped, above the trend in the sprint."""
        share = min(1.0, second / self.start_ramp)
        if self.stop and second >= self.stop.at:
            since = second - self.stop.at - self.stop.seconds
            if since < 0:
                return 0
            share = min(1.0, (since + 1) / self.stop.ramp)
        lift = self.sprint.rpm * self.sprint.share(second) if self.sprint else 0.0
        return round(cadence * share + lift)


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return min(max(value, bounds[0]), bounds[1])


def _resistance_curve(resistance: float) -> float:
    """A trainer's braking torque at ``resistance`` percent, a share of its torque at 100 %: never 0 (a
    flywheel and a belt resist at the lowest level), as output's (resistance + 65) has it."""
    return (resistance + 65) / 165


def _radians_a_second(cadence: float) -> float:
    return 2 * math.pi * cadence / 60
