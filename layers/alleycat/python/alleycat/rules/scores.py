"""A second's output and a score's rounding, as the contract defines them."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

FOUR_PLACES = Decimal("0.0001")


def output(cadence, resistance) -> Decimal:
    """Output of one second: (cadence + 35) x (resistance + 65) / 100, to 4 places."""
    return round4((Decimal(cadence) + 35) * (Decimal(resistance) + 65) / 100)


def round4(value) -> Decimal:
    return Decimal(value).quantize(FOUR_PLACES, rounding=ROUND_HALF_UP)


def number(value) -> float | int:
    """A score or output as a JSON number rounded to 4 decimal places."""
    rounded = round4(value)
    return int(rounded) if rounded == rounded.to_integral_value() else float(rounded)
