"""Fair play's pure rules (``alleycat.rules.fairplay``): equipment, what counts, seconds that have happened,
and the plausibility rules at and around their thresholds."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alleycat.rules import fairplay
from alleycat.rules.fairplay import broken_rules
from alleycat.rules.samples import Sample


def ride(cadences, resistance=50, start=0):
    return {start + n: Sample(cadence, resistance) for n, cadence in enumerate(cadences)}


def test_a_ride_that_used_the_on_screen_bike_stays_virtual():
    assert fairplay.equipment_after(None, "trainer") == "trainer"
    assert fairplay.equipment_after("bike", "trainer") == "trainer"
    assert fairplay.equipment_after("trainer", "virtual") == "virtual"
    assert fairplay.equipment_after("virtual", "trainer") == "virtual"
    assert fairplay.equipment_after("virtual", "bike") == "virtual"
    # before a second of the race can have counted, nothing was ridden: the racer may change it
    assert fairplay.equipment_after("virtual", "trainer", can_have_ridden=False) == "trainer"
    assert fairplay.equipment_after("trainer", "virtual", can_have_ridden=False) == "virtual"


def test_only_real_rides_neither_pending_nor_disqualified_count_for_the_class():
    assert fairplay.counts_for_class("bike", None) and fairplay.counts_for_class("trainer", "cleared")
    assert not fairplay.counts_for_class("virtual", None)
    assert not fairplay.counts_for_class("virtual", "cleared")
    assert not fairplay.counts_for_class("bike", "pending")
    assert not fairplay.counts_for_class("trainer", "disqualified")


def test_seconds_that_have_happened_by_the_servers_clock_with_two_seconds_of_tolerance():
    start = 1_800_000_000.0
    assert fairplay.latest_second(start + 10.0, start) == 12
    assert fairplay.latest_second(start + 10.999, start) == 12
    assert fairplay.latest_second(start, start) == 2
    assert fairplay.latest_second(start - 0.5, start) == 1
    assert fairplay.latest_second(start - 2.0, start) == 0
    assert fairplay.latest_second(start - 7200, start) == -7198  # two hours early: nothing has happened


def test_a_realistic_ride_breaks_no_rule():
    # 30 to 90 rpm climbing by a rpm a second, resistance 33-86 %: the simulator's riders
    assert broken_rules(ride(range(30, 91), 86)) == []
    assert broken_rules({}) == []
    # from standstill to 80 rpm in one second, 60 s, a 20-s stop, 60 s more and a 20-s sprint at 120 rpm
    honest = [0] + [80] * 60 + [0] * 20 + [40, 80] + [85] * 60 + [100, 115] + [120] * 20
    assert broken_rules(ride(honest, 86)) == []


def test_cadence_held_above_170_in_10_of_any_20_seconds():
    assert broken_rules(ride([100] + [171] * 9 + [100] * 20)) == []             # 9 s: a sprinter's burst
    assert broken_rules(ride([100] + [170] * 30, 0)) == []                        # at the threshold: not above
    assert broken_rules(ride([100] + [171] * 10, 0)) == ["cadence-held"]
    # 9 s twice with a second between: 18 of 20 (the rule before v1.3 saw two runs of 9)
    assert broken_rules(ride([100] + [171] * 9 + [100] + [171] * 9, 0)) == ["cadence-held"]
    # 5 + 5 with second 6 left out: a second not sent hides nothing
    assert broken_rules({**ride([171] * 5, 0), **ride([171] * 5, 0, start=6)}) == ["cadence-held"]
    # 0-4 and 16-20 share no 20-second window; 0-4 and 15-19 do
    assert broken_rules({**ride([171] * 5, 0), **ride([171] * 5, 0, start=16)}) == []
    assert broken_rules({**ride([171] * 5, 0), **ride([171] * 5, 0, start=15)}) == ["cadence-held"]


def test_output_held_above_250_on_average_over_60_seconds():
    # output = (cadence + 35) x (resistance + 65) / 100: 150 rpm at 100 % is 305.25; 100 rpm at 100 % is 222.75
    strong, easy = Sample(150, 100), Sample(100, 100)
    # 40 strong seconds and 20 easy ones average (40 x 305.25 + 20 x 222.75) / 60 = 277.75: broken
    assert broken_rules({n: strong if n < 40 else easy for n in range(60)}) == ["output-held"]
    # 49 seconds of the strongest output alone are not above 250 a second over a minute (14,957.25)
    assert broken_rules({n: strong for n in range(49)}) == []
    assert broken_rules({n: strong for n in range(50)}) == ["output-held"]     # 15,262.5
    # 20 strong then 40 easy: (20 x 305.25 + 40 x 222.75) / 60 = 250.25 (> 250, broken); 19 and 41: 248.875
    assert broken_rules({n: strong if n < 20 else easy for n in range(60)}) == ["output-held"]
    assert broken_rules({n: strong if n < 19 else easy for n in range(60)}) == []
    # the window slides: a strong minute after an easy one
    assert broken_rules({n: easy if n < 30 else strong for n in range(90)}) == ["output-held"]


MAXIMUM = Sample(300, 100)  # output 552.75: the most a sample can say


@pytest.mark.parametrize("left_out", [2, 3, 10])
def test_the_gap_trick_one_second_in_n_left_out_breaks_the_rules_it_hid_from(left_out):
    # Before v1.3 the rules looked at runs of consecutive seconds: 9 of every 10 at the maximum scored
    # twice the most a continuous ride could hold unflagged, and was never reviewed.
    gapped = {second: MAXIMUM for second in range(300) if second % left_out != left_out - 1}
    assert broken_rules(gapped) == ["cadence-held", "output-held"]
    # sent in any order, in pieces: the same seconds are the same ride
    assert broken_rules(dict(reversed(list(gapped.items())))) == ["cadence-held", "output-held"]


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(0, 299), st.sampled_from([MAXIMUM, Sample(120, 100), Sample(90, 60), Sample(0, 0)])))
def test_a_ride_no_rule_flags_scores_at_most_250_a_second_of_the_race_whatever_its_gaps(samples):
    # Any ride output-held lets through holds at most 15,000 in each of the race's five minutes.
    if "output-held" not in broken_rules(samples):
        assert sum((sample.output for sample in samples.values()), Decimal(0)) <= 5 * 15_000


def test_cadence_swing_rises_adding_up_to_200_rpm_within_10_seconds():
    assert broken_rules(ride([0, 80, 82, 85, 84, 86])) == []                    # a beginner's start from standstill
    assert broken_rules(ride([0, 130, 128])) == []                               # from standstill to a sprint at once
    assert broken_rules(ride([90] * 5 + [0] * 20 + [40, 75, 90, 91])) == []       # a 20-s stop and a restart
    assert broken_rules(ride([90, 105, 120, 132, 135, 134, 135, 90, 80])) == []  # a sprint
    assert broken_rules(ride([20, 99] * 10)) == ["cadence-swing"]               # 79 rpm up, every other second
    assert broken_rules(ride([0, 100, 0, 99])) == []                             # 199 in all
    assert broken_rules(ride([0, 100, 0, 100])) == ["cadence-swing"]             # 200
    # the rises of seconds sent, however far apart: every other second left out hides nothing
    alternating = {second: Sample(20 if second % 4 == 0 else 99, 50) for second in range(0, 60, 2)}
    assert broken_rules(alternating) == ["cadence-swing"]
    assert broken_rules(ride([90, 10])) == []                                    # stopping is allowed
    assert broken_rules(ride([200, 0])) == []                                    # the first second rises from nothing


def test_a_minute_at_300_rpm_and_100_percent_breaks_the_held_rules_from_rest_or_not():
    assert broken_rules(ride([300] * 60, 100)) == ["cadence-held", "output-held"]
    assert broken_rules(ride([0] + [300] * 60, 100)) == ["cadence-held", "output-held", "cadence-swing"]


def test_what_the_stream_sees_live_proves_a_rule_broken_and_never_more_than_the_whole_ride():
    chunk = {second: MAXIMUM for second in range(30, 57)}  # 27 seconds at the maximum: 14,924.25
    assert fairplay.broken_rules_seen(chunk, {1: Decimal("14924.25")}, 30) == ["cadence-held"]
    # the chunk before held 76 points: the two chunks are a minute of 15,000.25
    assert fairplay.broken_rules_seen(chunk, {0: Decimal(76), 1: Decimal("14924.25")}, 30) == ["cadence-held", "output-held"]
    # two chunks a chunk apart are no minute; chunk points alone, with no sample seen, can prove it too
    assert fairplay.broken_rules_seen({}, {0: Decimal(7600), 2: Decimal(7600)}, 30) == []
    assert fairplay.broken_rules_seen({}, {3: Decimal(7600), 4: Decimal(7401)}, 30) == ["output-held"]
    assert fairplay.broken_rules_seen({}, {3: Decimal(7500), 4: Decimal(7500)}, 30) == []  # 15,000: not above
    assert fairplay.broken_rules_seen({}, {4: Decimal(15000)}, 30) == []  # a chunk not there adds nothing


def test_the_simulators_riders_never_break_a_rule_100_racers_over_three_300_second_races():
    # The simulator's riders start from standstill, a third stop once and start again, all sprint at the
    # end: no plausibility rule should ever put one up for review.
    from simulator.profiles import RacerProfile
    from simulator.race import Settings, racer_ids

    profiles = [RacerProfile.for_racer(racer_id) for racer_id in racer_ids(Settings(racers=100))]
    flagged = []
    for race in ("01JD5Z6Q8X0000000000000001", "01JD5Z6Q8X0000000000000002", "01JD5Z6Q8X0000000000000003"):
        for profile in profiles:
            effort = profile.in_race(race, 300)
            samples = {s: Sample(sample["cadence"], sample["resistance"]) for s in range(300)
                       for sample in [effort.sample(s)]}
            if broken_rules(samples):
                flagged.append((race, profile.racer_id, broken_rules(samples)))
    assert len(profiles) == 100 and flagged == []


# Output = (cadence + 35) x (resistance + 65) / 100 (the contract's samples): cadence 165 at 60 %
# is 200 x 125 / 100 = 250, at 60.5 % 251, at 65 % 260; cadence 65 at 35 % is 100 x 100 / 100 = 100.
OUT = {100: Sample(65, 35), 250: Sample(165, 60), 251: Sample(165, "60.5"), 260: Sample(165, 65)}


def outputs_ride(outputs):
    return {second: OUT[output] for second, output in enumerate(outputs)}


def test_the_outputs_the_tests_ride_are_what_they_say():
    assert {output: sample.output for output, sample in OUT.items()} == {100: 100, 250: 250, 251: 251, 260: 260}


def output_held(outputs) -> bool:
    return "output-held" in broken_rules(outputs_ride(outputs))


def test_an_average_of_exactly_250_over_60_seconds_is_no_break_wherever_the_window_is():
    # "average output above 250 over 60 s": 60 x 250 = 15,000 is not above it.
    assert not output_held([250] * 60)
    assert not output_held([250] * 60 + [100])
    assert not output_held([100] + [250] * 60)


def test_an_average_above_250_over_the_second_window_breaks_the_rule():
    assert output_held([100] + [251] * 60)       # seconds 1-60: 15,060
    assert not output_held([100] + [251] * 59)   # 59 seconds of it is not a minute


def test_the_window_slides_to_the_last_minute_of_the_ride():
    # Only seconds 5-64 average above 250 (59 x 250 + 260 = 15,010); every other minute holds a 100.
    assert output_held([100] * 5 + [250] * 59 + [260])
    assert not output_held([100] * 5 + [250] * 60)
