"""A second's output and a score as a JSON number (``alleycat.rules.scores``): api.md's
"Output of one second = round((cadence + 35) * (resistance + 65) / 100, 4)" and "Scores and
outputs are JSON numbers rounded to 4 decimal places", computed here by hand."""

from decimal import Decimal

import pytest

from alleycat.rules import samples, scores


@pytest.mark.parametrize("cadence, resistance, output", [
    (0, 0, Decimal("22.75")),            # 35 x 65 / 100
    (90, 86, Decimal("188.75")),         # 125 x 151 / 100
    (1, 1, Decimal("23.76")),            # 36 x 66 / 100
    (Decimal("0.001"), 0, Decimal("22.7507")),  # 35.001 x 65 / 100 = 22.75065: half up
])
def test_output_of_one_second(cadence, resistance, output):
    assert scores.output(cadence, resistance) == output


@pytest.mark.parametrize("value, number", [
    (Decimal("2"), 2),
    (Decimal("2.00004"), 2),           # rounds to 2.0000: an integral number
    (Decimal("123.456789"), 123.4568),
    (Decimal("0.00005"), 0.0001),      # half up
    (0, 0),
])
def test_a_score_is_a_json_number_rounded_to_four_places(value, number):
    result = scores.number(value)
    assert result == number
    assert type(result) is type(number)  # 2 == 2.0: the type says whether it is written 2 or 2.0


def test_a_chunks_totals_are_exact_decimals_even_without_a_second():
    assert type(samples.totals_of({}).points) is Decimal
    assert samples.totals_of({}) == (0, None)
    assert samples.totals_of({0: samples.Sample(0, 0), 7: samples.Sample(1, 1)}) == (Decimal("46.51"), 7)
