"""A settled race second by second, as values: the replay's step, the seconds of the race it holds
scores after, and a racer's cumulative score at each of them in tenths (the contract's 1 decimal).

``stream.settlement`` writes what these compute once the race is settled; ``edge.views.replay`` reads it back.
"""

from __future__ import annotations

from decimal import Decimal

from alleycat.rules.samples import OUTPUT, Seconds

MOST_STEPS = 300  # the contract: the step is 1 second for races of up to 300 s, longer races are taken every `step`
TENTH = 1000  # ten-thousandths in a tenth
HALF_A_TENTH = TENTH // 2


def step_of(duration: int) -> int:
    """Seconds between two scores of a replay: 1 up to 300 s, the fewest that keep a longer race to ~300 scores."""
    return max(1, -(-duration // MOST_STEPS))


def taken_after(duration: int) -> range:
    """The seconds a replay holds each racer's score after: 0, step, 2 x step, ... up to the first at or past
    the race's last second (``duration - 1``), so its last score is the final one."""
    step = step_of(duration)
    return range(0, duration - 1 + step, step)


def cumulative_tenths(samples: Seconds, duration: int, metric: str = OUTPUT) -> list[int]:
    """The racer's score after each second of ``taken_after(duration)``, in tenths: the sum of their seconds'
    scores (``metric``) up to it, rounded once (never a sum of rounded steps). Scores have at most 4 places:
    summed as whole ten-thousandths, a sum is exact and rounds half up to tenths by integer arithmetic."""
    ordered = sorted((second, int(Decimal(sample.score(metric)).scaleb(4))) for second, sample in samples.items())
    total, seen, row = 0, 0, []
    for after in taken_after(duration):
        while seen < len(ordered) and ordered[seen][0] <= after:
            total += ordered[seen][1]
            seen += 1
        row.append((total + HALF_A_TENTH) // TENTH)
    return row
