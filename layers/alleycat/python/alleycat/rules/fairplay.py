"""Fair play (contracts v1.2 and v1.3, docs/fair-play.md): which rides count, on what equipment, and the
plausibility rules every ride is checked by, in an output class and in a power class. Pure functions of a
ride's samples: no storage here.
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
    (or pass it, ``strictly``). ``id`` names it in reviews and on the site; ``says`` is its sentence.
    ``judges``, where set, says which rides the rule judges at all: it must hold of a ride whenever it
    holds of a part of it (more seconds never make it false), so a part that breaks the rule proves the
    whole ride does."""

    id: str
    says: str
    window: int
    adds: Callable[[Sample, Sample | None], Decimal]
    breaks_at: Decimal
    strictly: bool = False
    judges: Callable[[Mapping[int, Sample]], bool] | None = None

    def breaks(self, total: Decimal | int) -> bool:
        return total > self.breaks_at if self.strictly else total >= self.breaks_at

    def broken_by(self, samples: Mapping[int, Sample]) -> bool:
        """Whether any ``window`` seconds of the ride break the rule. Windows start at a second sent: a
        window holding other seconds holds no more than the one starting at its first second sent."""
        if self.judges is not None and not self.judges(samples):
            return False
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
RULES = (CADENCE_HELD, OUTPUT_HELD_RULE, CADENCE_SWING)  # an output class's rules (the site's sentences)
# Rules no longer checked, as reviews stored before contract v1.3 name them.
RETIRED = {"cadence-jump": "cadence rising 80 rpm or more in one second (a rule before contract v1.3)"}

# Plausibility in watts (contract v1.3: "in a power class the rules also judge the watts"; docs/fair-play.md,
# "Plausibility in watts"). The thresholds are absolute watts, for nobody's weight is known: each is above
# what the heaviest, strongest people on record have produced over its window, so no honest rider trips
# one, and each window's total bounds what a ride scores unflagged, whatever seconds it leaves out.
# Peak: Jeffrey Hoogland's 1-km world record (55.433 s, 2023) peaked near 2,700 W; Chris Hoy's 2,500 W and
# Robert Förstemann's 2,400 W are peaks too, of a second or a crank turn. An average of 2,700 W over 5 s
# is the highest peak on record held for five seconds.
POWER_PEAK_WATTS, POWER_PEAK_SECONDS = Decimal(2700), 5
# A minute: Hoogland's record averaged about 1,000 W; the top of Coggan's power profile is 11.50 W/kg for a
# minute, 1,400 W is that for a rider of 122 kg.
POWER_MINUTE_WATTS, POWER_MINUTE_SECONDS = Decimal(1400), 60
# Five minutes: Filippo Ganna (~83 kg) rode his 4-km pursuit world record (2019) at a reported 607 W; the
# lead of a team pursuit at 60 km/h is 607 W (Broker et al. 1999); Coggan's top is 7.60 W/kg (800 W: 105 kg).
POWER_5_MINUTES_WATTS, POWER_5_MINUTES_SECONDS = Decimal(800), 300
# Twenty minutes: the hour record's riders held about 440 W (Wiggins, 2015, estimated) to 360 W (Bigham);
# Coggan's top FTP is 6.40 W/kg (600 W: 94 kg at 6.40, or 89 kg at 20-minute power, 105 % of FTP).
POWER_20_MINUTES_WATTS, POWER_20_MINUTES_SECONDS = Decimal(600), 1200
# Power the trainer's own cadence cannot carry: watts = crank torque x 2 pi x rpm / 60. Elite track
# sprinters' mean crank force extrapolated to 0 rpm is 1,507.5 +- 257.6 N (Dunst et al., Sports 2022);
# mean + 3 SD on 172.5-mm cranks is 393 N*m, a force no one keeps while the crank turns. 42 W per rpm is
# 401 N*m. A cadence sensor lags (its first reading after a standing start comes a revolution or two
# late) and a flywheel may report watts for a second or two after the legs stop: a standing start strains
# 2 to 5 seconds, so only half of 30 seconds breaks the rule; watts up to 100 are never judged (coasting).
# A device that measures no cadence sends 0 throughout: a ride whose cadence is never above 0 is not judged.
WATTS_PER_RPM, WATTS_JUDGED_ABOVE = Decimal(42), Decimal(100)
POWER_CADENCE_SECONDS, POWER_CADENCE_WINDOW = 15, 30


def _watts(sample: Sample, _previous: Sample | None) -> Decimal:
    return Decimal(sample.power or 0)


def _beyond_cadence(sample: Sample, _previous: Sample | None) -> Decimal:
    watts = Decimal(sample.power or 0)
    return Decimal(1) if watts > WATTS_JUDGED_ABOVE and watts > WATTS_PER_RPM * Decimal(sample.cadence) else Decimal(0)


def _measures_cadence(samples: Mapping[int, Sample]) -> bool:
    return any(sample.cadence > 0 for sample in samples.values())


# Average power held over each window (a second not sent counts 0 W)
POWER_PEAK, POWER_MINUTE, POWER_5_MINUTES, POWER_20_MINUTES = (
    Rule(rule_id, f"average power above {watts} W over any {seconds} seconds (a second not sent counts 0)",
         seconds, _watts, watts * seconds, strictly=True)
    for rule_id, watts, seconds in (("power-peak", POWER_PEAK_WATTS, POWER_PEAK_SECONDS),
                                    ("power-minute", POWER_MINUTE_WATTS, POWER_MINUTE_SECONDS),
                                    ("power-5-minutes", POWER_5_MINUTES_WATTS, POWER_5_MINUTES_SECONDS),
                                    ("power-20-minutes", POWER_20_MINUTES_WATTS, POWER_20_MINUTES_SECONDS)))
POWER_CADENCE = Rule("power-cadence",
                     f"power above {WATTS_JUDGED_ABOVE} W and above {WATTS_PER_RPM} W per rpm of the cadence (a crank torque"
                     f" of 401 N·m) in {POWER_CADENCE_SECONDS} or more of any {POWER_CADENCE_WINDOW} seconds, on a ride"
                     " whose cadence is ever above 0",
                     POWER_CADENCE_WINDOW, _beyond_cadence, Decimal(POWER_CADENCE_SECONDS), judges=_measures_cadence)
POWER_HELD = (POWER_PEAK, POWER_MINUTE, POWER_5_MINUTES, POWER_20_MINUTES)
# A power class's rules: the cadence's, and the watts' in place of output-held. Its score is watts, so
# output (cadence and the trainer's resistance level) adds nothing to it for output-held to bound, and a
# trainer's level is no force: a sprinter at 130 rpm on its top level would be output-held for watts
# no rule here finds implausible.
POWER_RULES = (CADENCE_HELD, CADENCE_SWING, *POWER_HELD, POWER_CADENCE)
# The rules whose seconds add exactly the seconds' scores: a chunk's points add up as its seconds do.
SCORE_HELD = {OUTPUT: (OUTPUT_HELD_RULE,), POWER: POWER_HELD}


def rules_of(metric: str = OUTPUT) -> tuple[Rule, ...]:
    """The rules a ride in a class of ``metric`` is judged by."""
    return POWER_RULES if metric == POWER else RULES


def broken_rules(samples: Mapping[int, Sample], metric: str = OUTPUT) -> list[str]:
    """The ids of the rules a ride's samples break in a class of ``metric``, in ``rules_of(metric)`` order."""
    return [rule.id for rule in rules_of(metric) if rule.broken_by(samples)]


def _consecutive_runs(samples: Mapping[int, Sample]) -> list[dict[int, Sample]]:
    """The samples cut where a second is missing: within a run each second's previous is the one before it,
    as it is in the whole ride however many seconds arrive later."""
    runs: list[dict[int, Sample]] = []
    for second in sorted(samples):
        if not runs or second - 1 not in runs[-1]:
            runs.append({})
        runs[-1][second] = samples[second]
    return runs


def broken_rules_seen(samples: Mapping[int, Sample], chunk_points: Mapping[int, Decimal], chunk_seconds: int,
                      metric: str = OUTPUT) -> list[str]:
    """What a part of a ride, as the stream sees it live, proves broken: the rules its ``samples`` break
    (a window's total over part of it is at most the whole ride's), cadence-swing over runs of consecutive
    seconds only (a rise from a second not next to it may be split by a second the stream has not seen), and
    the rules that add up the seconds' scores (output-held; in a power class the watts', whose chunk points
    are joules) over chunks whose points (chunk number -> the sum of its seconds' scores, every chunk of
    ``chunk_seconds`` seconds the ride has) add up beyond the threshold within a window of whole chunks. The
    finish judges the whole ride."""
    broken = {rule.id for rule in rules_of(metric) if rule is not CADENCE_SWING and rule.broken_by(samples)}
    if any(CADENCE_SWING.broken_by(run) for run in _consecutive_runs(samples)):
        broken.add(CADENCE_SWING.id)
    for rule in SCORE_HELD[POWER if metric == POWER else OUTPUT]:
        across = rule.window // chunk_seconds
        if across and rule.id not in broken and any(
                rule.breaks(sum(Decimal(chunk_points.get(chunk + n, 0)) for n in range(across)))
                for chunk in chunk_points):
            broken.add(rule.id)
    return [rule.id for rule in rules_of(metric) if rule.id in broken]
