"""Fair play (contract v1.2, docs/fair-play.md): which rides count, on what equipment, and the
plausibility rules every ride is checked by. Pure functions of a ride's samples: no storage here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from alleycat.rules.samples import Sample

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
CLOCK_TOLERANCE_SECONDS = 2  # a second counts up to this early, for clocks and the network


def equipment_after(held: str | None, asked: str) -> str:
    """A ride's equipment once the racer joins (again) with ``asked``: a ride that used the on-screen
    bike at any moment stays ``virtual``."""
    return VIRTUAL if VIRTUAL in (held, asked) else asked


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


@dataclass(frozen=True)
class Rule:
    """A plausibility rule: its id (what reviews and the site name it by) and what it says, for people."""

    id: str
    says: str
    broken_by: Callable[[Mapping[int, Sample]], bool]


# What a person's legs can hold on a trainer: track sprinters touch 200+ rpm for a few seconds,
# nobody holds 170 rpm against resistance for 10 s. The simulator's riders stay within 30-90 rpm.
CADENCE_HELD_RPM, CADENCE_HELD_SECONDS = Decimal(170), 10
# Output = (cadence + 35) x (resistance + 65) / 100: 250 held for a minute is 120 rpm at full
# resistance for 60 s. The simulator's strongest rider peaks at 188.75 (90 rpm at 86 %).
OUTPUT_HELD, OUTPUT_HELD_SECONDS = Decimal(250), 60
# How fast legs can speed up: from standing still to a sprint takes a few seconds, so a rise of
# 80 rpm from one second to the next is a slider or a key, not a leg. The simulator's riders climb
# by well under 1 rpm a second.
CADENCE_JUMP_RPM = Decimal(80)


def _runs(samples: Mapping[int, Sample]) -> list[list[int]]:
    """The ride's seconds as runs of consecutive seconds, in order."""
    runs: list[list[int]] = []
    for second in sorted(samples):
        if runs and runs[-1][-1] == second - 1:
            runs[-1].append(second)
        else:
            runs.append([second])
    return runs


def _cadence_held(samples: Mapping[int, Sample]) -> bool:
    held = 0
    for run in _runs(samples):
        held = 0
        for second in run:
            held = held + 1 if Decimal(samples[second].cadence) > CADENCE_HELD_RPM else 0
            if held >= CADENCE_HELD_SECONDS:
                return True
    return False


def _output_held(samples: Mapping[int, Sample]) -> bool:
    limit = OUTPUT_HELD * OUTPUT_HELD_SECONDS
    for run in _runs(samples):
        outputs = [samples[second].output for second in run]
        window = sum(outputs[:OUTPUT_HELD_SECONDS], Decimal(0))
        if len(outputs) >= OUTPUT_HELD_SECONDS and window > limit:
            return True
        for start in range(1, len(outputs) - OUTPUT_HELD_SECONDS + 1):
            window += outputs[start + OUTPUT_HELD_SECONDS - 1] - outputs[start - 1]
            if window > limit:
                return True
    return False


def _cadence_jump(samples: Mapping[int, Sample]) -> bool:
    return any(Decimal(samples[second].cadence) - Decimal(samples[second - 1].cadence) >= CADENCE_JUMP_RPM
               for second in samples if second - 1 in samples)


RULES = (
    Rule("cadence-held", f"cadence above {CADENCE_HELD_RPM} rpm for {CADENCE_HELD_SECONDS} s or more", _cadence_held),
    Rule("output-held", f"average output above {OUTPUT_HELD} over {OUTPUT_HELD_SECONDS} s", _output_held),
    Rule("cadence-jump", f"cadence rising {CADENCE_JUMP_RPM} rpm or more in one second", _cadence_jump),
)


def broken_rules(samples: Mapping[int, Sample]) -> list[str]:
    """The ids of the rules a ride's samples break, in ``RULES`` order."""
    return [rule.id for rule in RULES if rule.broken_by(samples)]
