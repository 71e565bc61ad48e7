"""Fair play (contracts v1.2 and v1.3, docs/fair-play.md): which rides count, on what equipment, and the
plausibility rules every ride is checked by. Pure functions of a ride's samples: no storage here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from alleycat.rules.samples import OUTPUT, POWER, Sample

BIKE, TRAINER, VIRTUAL = "bike", "trainer", "virtual"
EQUIPMENT = (BIKE, TRAINER, VIRTUAL)
REAL = frozenset({BIKE, TRAINER})
REAL_ONLY = "real"  # ?equipment=real

PENDING, CLEARED, DISQUALIFIED = "pending", "cleared", "disqualified"
REVIEW_STATES = (PENDING, CLEARED, DISQUALIFIED)
DECISIONS = {"clear": CLEARED, "disqualify": DISQUALIFIED}

# Reasons a sample is listed in ``rejected`` (the contract's words).
NOT_YET = "not yet"
ANOTHER_DEVICE = "another device"
NO_POWER = "no power"  # a power class's sample without a measured power
CLOCK_TOLERANCE_SECONDS = 2  # a second counts up to this early, for clocks and the network


def equipment_after(held: str | None, asked: str, can_have_ridden: bool = True) -> str:
    """A ride's equipment once the racer joins (again) with ``asked``: a ride that used the on-screen
    bike at any moment stays ``virtual``. Until a second of the race can have counted
    (``can_have_ridden`` False, ``latest_second`` below 0) nothing was used: the racer may change it."""
    if not can_have_ridden:
        return asked
    return VIRTUAL if VIRTUAL in (held, asked) else asked


def refused_equipment(metric: str, equipment: str) -> str | None:
    """Why a ride on ``equipment`` cannot join a class of ``metric`` (None: it can): a power class ranks
    measured watts, which the on-screen bike has none of."""
    if metric == POWER and equipment == VIRTUAL:
        return ("the on-screen bike cannot ride a power class: its races rank the watts a smart trainer or "
                "power meter measures. Connect a trainer (or ride a bike that sends its power) and join again")
    return None


def is_ranked(review: str | None) -> bool:
    """A disqualified ride has no rank in its race."""
    return review != DISQUALIFIED


def counts_for_class(equipment: str | None, review: str | None) -> bool:
    """Whether a finished ride may be a racer's best in its class: real equipment, neither pending
    review nor disqualified."""
    return (equipment or BIKE) in REAL and review not in (PENDING, DISQUALIFIED)


def latest_second(now: float, starts_at: float) -> int:
    """The highest second of a race that has happened at ``now`` (epoch seconds), with the clocks' tolerance."""
    return math.floor(now - starts_at) + CLOCK_TOLERANCE_SECONDS


# The plausibility rules (docs/fair-play.md, contract v1.3 "Fair play"). Each judges what was ridden
# over windows of race time, never over runs of seconds sent: a second not sent adds nothing to a
# window (no cadence above a threshold, no output, no rise), so leaving seconds out, sending them late,
# out of order or twice hides nothing, and each window's total bounds what a ride can gain unflagged.


@dataclass(frozen=True)
class Rule:
    """A plausibility rule over windows of race time: in any ``window`` consecutive seconds, the seconds'
    ``adds`` (what one second adds, given the ride's previous second sent) must not reach ``breaks_at``
    (or pass it, ``strictly``). ``id`` names it in reviews and on the site; ``says`` is its sentence."""

    id: str
    says: str
    window: int
    adds: Callable[[Sample, Sample | None], Decimal]
    breaks_at: Decimal
    strictly: bool = False

    def breaks(self, total: Decimal | int) -> bool:
        return total > self.breaks_at if self.strictly else total >= self.breaks_at

    def broken_by(self, samples: Mapping[int, Sample]) -> bool:
        """Whether any ``window`` seconds of the ride break the rule. Windows start at a second sent: a
        window holding other seconds holds no more than the one starting at its first second sent."""
        seconds = sorted(samples)
        added = [self.adds(samples[second], samples[seconds[i - 1]] if i else None) for i, second in enumerate(seconds)]
        total, end = Decimal(0), 0
        for start, first in enumerate(seconds):
            while end < len(seconds) and seconds[end] < first + self.window:
                total += added[end]
                end += 1
            if self.breaks(total):
                return True
            total -= added[start]
        return False


# What a person's legs can hold against a trainer's resistance: track sprinters touch 200+ rpm for a
# few seconds; nobody spins above 170 rpm for half of 20 seconds. The simulator's riders stay under 115.
CADENCE_HELD_RPM, CADENCE_HELD_SECONDS, CADENCE_HELD_WINDOW = Decimal(170), 10, 20
# Output = (cadence + 35) x (resistance + 65) / 100: an average of 250 over a minute is 120 rpm at full
# resistance for 60 s. The simulator's strongest rider peaks at 188.75 (90 rpm at 86 %), ~230 sprinting.
OUTPUT_HELD, OUTPUT_HELD_SECONDS = Decimal(250), 60
# How often legs can speed up: from standing still to a sprint is one rise of 100-150 rpm; rises adding
# up to 200 rpm within 10 s is cadence going up and down faster than legs turn a flywheel.
CADENCE_SWING_RPM, CADENCE_SWING_SECONDS = Decimal(200), 10


def _above_held_cadence(sample: Sample, _previous: Sample | None) -> Decimal:
    return Decimal(1) if Decimal(sample.cadence) > CADENCE_HELD_RPM else Decimal(0)


def _output(sample: Sample, _previous: Sample | None) -> Decimal:
    return sample.output


def _rise(sample: Sample, previous: Sample | None) -> Decimal:
    return max(Decimal(0), Decimal(sample.cadence) - Decimal(previous.cadence)) if previous else Decimal(0)


CADENCE_HELD = Rule("cadence-held",
                    f"cadence above {CADENCE_HELD_RPM} rpm in {CADENCE_HELD_SECONDS} or more of any {CADENCE_HELD_WINDOW} seconds",
                    CADENCE_HELD_WINDOW, _above_held_cadence, Decimal(CADENCE_HELD_SECONDS))
OUTPUT_HELD_RULE = Rule("output-held",
                        f"average output above {OUTPUT_HELD} over any {OUTPUT_HELD_SECONDS} seconds (a second not sent counts 0)",
                        OUTPUT_HELD_SECONDS, _output, OUTPUT_HELD * OUTPUT_HELD_SECONDS, strictly=True)
CADENCE_SWING = Rule("cadence-swing",
                     f"cadence rising {CADENCE_SWING_RPM} rpm or more in all within any {CADENCE_SWING_SECONDS} seconds",
                     CADENCE_SWING_SECONDS, _rise, CADENCE_SWING_RPM)
RULES = (CADENCE_HELD, OUTPUT_HELD_RULE, CADENCE_SWING)
# Rules no longer checked, as reviews stored before contract v1.3 name them.
RETIRED = {"cadence-jump": "cadence rising 80 rpm or more in one second (a rule before contract v1.3)"}


def broken_rules(samples: Mapping[int, Sample], metric: str = OUTPUT) -> list[str]:
    """The ids of the rules a ride's samples break, in ``RULES`` order."""
    return [rule.id for rule in RULES if rule.broken_by(samples)]


def broken_rules_seen(samples: Mapping[int, Sample], chunk_points: Mapping[int, Decimal], chunk_seconds: int,
                      metric: str = OUTPUT) -> list[str]:
    """What a part of a ride, as the stream sees it live, proves broken: the rules its ``samples`` break
    (a window's total over part of it is at most the whole ride's), and output held over chunks whose
    points (chunk number -> the sum of its outputs, every chunk of ``chunk_seconds`` seconds the ride has)
    add up above the threshold within a window. The finish judges the whole ride."""
    rules = broken_rules(samples, metric)
    across = OUTPUT_HELD_SECONDS // chunk_seconds
    if OUTPUT_HELD_RULE.id not in rules and any(
            OUTPUT_HELD_RULE.breaks(sum(Decimal(chunk_points.get(chunk + n, 0)) for n in range(across)))
            for chunk in chunk_points):
        rules = [rule.id for rule in RULES if rule.id in (*rules, OUTPUT_HELD_RULE.id)]
    return rules
