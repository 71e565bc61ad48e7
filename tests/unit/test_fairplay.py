"""Fair play's pure rules (``alleycat.rules.fairplay``): equipment, what counts, seconds that have happened,
and the plausibility rules at and around their thresholds."""

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alleycat.rules import fairplay
from alleycat.rules.fairplay import broken_rules
from alleycat.rules.samples import OUTPUT, POWER, Sample


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
    # end: no plausibility rule should ever put one up for review, in an output class or a power class
    # (their samples carry power: simulator/profiles.py).
    from simulator.profiles import RacerProfile
    from simulator.race import Settings, racer_ids

    profiles = [RacerProfile.for_racer(racer_id) for racer_id in racer_ids(Settings(racers=100))]
    flagged = []
    for race in ("01JD5Z6Q8X0000000000000001", "01JD5Z6Q8X0000000000000002", "01JD5Z6Q8X0000000000000003"):
        for profile in profiles:
            effort = profile.in_race(race, 300)
            samples = {s: Sample(sample["cadence"], sample["resistance"], power=sample["power"]) for s in range(300)
                       for sample in [effort.sample(s)]}
            for metric in (OUTPUT, POWER):
                if broken_rules(samples, metric):
                    flagged.append((race, profile.racer_id, metric, broken_rules(samples, metric)))
    assert len(profiles) == 100 and flagged == []


def test_the_simulators_strongest_rider_in_an_hour_long_race_breaks_no_power_rule():
    # Races last up to an hour: the strongest of 200 racers (their threshold power the highest), sprinting at
    # its end, holds nothing near the 20 minutes' 600 W.
    from simulator.profiles import RacerProfile

    strongest = max((RacerProfile.for_racer(f"rider-{n:04d}") for n in range(1, 201)), key=lambda p: p.threshold_watts)
    effort = strongest.in_race("hour", 3600)
    samples = {s: Sample(sample["cadence"], sample["resistance"], power=sample["power"]) for s in range(3600)
               for sample in [effort.sample(s)]}
    assert broken_rules(samples, POWER) == [] and broken_rules(samples) == []


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


# --- Plausibility in watts: a power class (contract v1.3; docs/fair-play.md, "Plausibility in watts") ---

def watts(powers, cadence=90, resistance=50, start=0):
    """A ride of these watts, one a second from ``start``, at one cadence (or a list of them)."""
    cadences = cadence if isinstance(cadence, list) else [cadence] * len(powers)
    return {start + n: Sample(rpm, resistance, power=power) for n, (rpm, power) in enumerate(zip(cadences, powers, strict=True))}


def power_rules(samples):
    return broken_rules(samples, POWER)


# Filippo Ganna (about 83 kg) rode his 4-km individual pursuit world record (Minsk, 2019; 4:02.647) at a
# reported 607 W; André Greipel's winning sprint on stage 6 of the 2018 Tour Down Under peaked at 1,903 W
# and averaged 1,326 W (UCI, "Track sprinting: a question of watts?"). The race: from a standing start
# (the trainer's cadence a revolution late), 282 s at 620 W (above Ganna's four minutes) at 105 rpm, then
# 3 s winding up and Greipel's sprint at 110-120 rpm as its last 15 s. A ride stronger than either of theirs.
GREIPEL_SPRINT = [1400, 1700, 1903, 1850, 1750, 1600, 1450, 1350, 1250, 1150, 1050, 950, 850, 800, 837]
PRO_5_MINUTES = watts([900, 1100, 1000] + [620] * 279 + [700, 800, 1000] + GREIPEL_SPRINT,
                      [0, 40, 75] + [105] * 279 + [108, 110, 112] + [115, 118, 120, 120, 119, 118, 117, 116, 115, 114,
                                                                      113, 112, 111, 110, 110])
# Jeffrey Hoogland's 1-km world record (Aguascalientes, 2023; 55.433 s) peaked near 2,700 W and averaged about
# 1,000 W: a standing start in the first second of a 60-s race, the cadence sensor 0 for its first second and
# late for two more, 56 s averaging 1,050 W, then 4 s rolling at 150 W.
HOOGLAND_KILO = watts([1600, 2400, 2700, 2600, 2350, 2050, 1750, 1500] + [round(1200 - 655 * n / 47) for n in range(48)]
                      + [150] * 4,
                      [0, 30, 60, 85, 100, 110, 118, 124, 128] + [130] * 30 + [125] * 17 + [90] * 4)


def test_the_pro_rides_are_what_they_say():
    assert len(PRO_5_MINUTES) == 300 and len(HOOGLAND_KILO) == 60
    assert (sum(GREIPEL_SPRINT), max(GREIPEL_SPRINT)) == (15 * 1326, 1903)
    assert sum(sample.power for sample in PRO_5_MINUTES.values()) == 198_370  # 661 W for the 5 minutes
    kilo = [HOOGLAND_KILO[second].power for second in range(56)]
    assert max(kilo) == 2700 and 1050 <= sum(kilo) / 56 < 1051
    assert max(sum(kilo[n:n + 5]) for n in range(52)) == 12_100  # its best 5 s: 2,420 W


def test_a_pros_five_minutes_with_a_final_sprint_and_a_sprinters_standing_start_break_no_rule():
    assert power_rules(PRO_5_MINUTES) == []
    assert power_rules(HOOGLAND_KILO) == []
    # whatever seconds they leave out, and wherever the race puts them
    assert power_rules({second: sample for second, sample in PRO_5_MINUTES.items() if second % 7}) == []
    assert power_rules({second + 1000: sample for second, sample in HOOGLAND_KILO.items()}) == []
    # a whole hour at Ganna's 5 minutes' power and the kilo twice within it (two 60-s rides 30 s apart)
    hour = {**{second: Sample(100, 50, power=500) for second in range(3600)},
            **{second + 600: sample for second, sample in HOOGLAND_KILO.items()},
            **{second + 690: sample for second, sample in HOOGLAND_KILO.items()}}
    assert power_rules(hour) == []


def test_a_trainer_saying_1500_watts_for_a_300_second_race_is_caught():
    assert power_rules(watts([1500] * 300)) == ["power-minute", "power-5-minutes"]
    # from its first minute: what the stream sees of its first two chunks proves it
    assert fairplay.broken_rules_seen(watts([1500] * 60), {0: Decimal(45_000), 1: Decimal(45_000)}, 30, POWER) == [
        "power-minute"]
    assert fairplay.broken_rules_seen({}, {0: Decimal(45_000), 1: Decimal(45_000)}, 30, POWER) == ["power-minute"]


def test_power_peak_an_average_above_2700_watts_over_5_seconds():
    assert power_rules(watts([500, 2700, 2700, 2700, 2700, 2700, 500])) == []          # 13,500 J: not above
    assert power_rules(watts([500, 2700, 2700, 2701, 2700, 2700, 500])) == ["power-peak"]
    assert power_rules(watts([3000] * 4 + [1000] + [3000] * 4)) == []                   # 13,000 in every 5 s
    assert power_rules(watts([3000] * 4 + [1501])) == ["power-peak"]                    # 13,501
    # four seconds at the contract's most, the fifth left out: 12,000 J in any 5 s of race time
    assert power_rules({**watts([3000] * 4), **watts([3000] * 4, start=5)}) == []
    assert power_rules({**watts([3000] * 4), **watts([3000] * 4, start=4)}) == ["power-peak"]


def test_power_minute_an_average_above_1400_watts_over_60_seconds():
    assert power_rules(watts([1400] * 60 + [1000])) == []                               # 84,000 J
    assert power_rules(watts([1000] + [1400] * 59 + [1401])) == ["power-minute"]        # the window slides
    assert power_rules(watts([2500] * 33 + [0] * 27)) == []                             # 82,500
    assert power_rules(watts([2500] * 34)) == ["power-minute"]                          # 85,000, however short
    # 40 s at 2,100 and 20 s at 0, twice: 84,000 in every minute
    assert power_rules(watts(([2100] * 40 + [0] * 20) * 2)) == []
    assert power_rules(watts((([2100] * 40 + [0] * 20) * 2)[:-1] + [1])) == ["power-minute"]  # 84,001 in 60-119


def test_power_5_minutes_an_average_above_800_watts_and_20_minutes_above_600():
    assert power_rules(watts([800] * 300)) == []
    assert power_rules(watts([800] * 299 + [801])) == ["power-5-minutes"]
    assert power_rules(watts([600] * 1200)) == []
    assert power_rules(watts([600] * 1199 + [601])) == ["power-20-minutes"]
    # an hour at 600 W a second is the most an hour-long ride scores unflagged: 2,160,000 J
    assert power_rules(watts([600] * 3600)) == []
    assert power_rules(watts([600] * 1800 + [601] + [600] * 1799)) == ["power-20-minutes"]


def test_power_cadence_watts_a_turning_crank_cannot_carry_in_15_of_any_30_seconds():
    # 42 W per rpm: 420 W at 10 rpm is a torque of 401 N*m; 421 W is beyond it
    assert fairplay._beyond_cadence(Sample(10, 50, power=420), None) == 0
    assert fairplay._beyond_cadence(Sample(10, 50, power=421), None) == 1
    # up to 100 W is never judged, at any cadence (a flywheel coasting)
    assert fairplay._beyond_cadence(Sample(0, 50, power=100), None) == 0
    assert fairplay._beyond_cadence(Sample(0, 50, power=101), None) == 1
    assert fairplay._beyond_cadence(Sample(3, 50, power=126), None) == 0
    assert fairplay._beyond_cadence(Sample(3, 50, power=127), None) == 1
    assert fairplay._beyond_cadence(Sample(0, 50), None) == 0                            # no power sent
    riding = watts([250] * 30)
    assert power_rules({**riding, **watts([300] * 14, 0, start=30)}) == []
    assert power_rules({**riding, **watts([300] * 15, 0, start=30)}) == ["power-cadence"]
    # 8 seconds of watts at 0 rpm twice, the seconds between left out: 15 of the 30 from second 30, then 14
    assert power_rules({**riding, **watts([300] * 8, 0, start=30), **watts([300] * 8, 0, start=53)}) == ["power-cadence"]
    assert power_rules({**riding, **watts([300] * 8, 0, start=30), **watts([300] * 8, 0, start=54)}) == []
    # a device that measures no cadence sends 0 throughout: its watts are judged by the rest
    assert power_rules(watts([300] * 300, 0)) == []
    assert power_rules(watts([1500] * 300, 0)) == ["power-minute", "power-5-minutes"]


def test_honest_starts_stops_and_coasting_never_break_power_cadence():
    # a standing start whose cadence reads 0 for 3 s and lags for 2 more, a stop whose flywheel reports
    # watts for 3 s after the legs stop and a restart as late, twice within 30 s
    start = watts([1200, 1400, 1300, 1100, 900] + [300] * 20, [0, 0, 0, 20, 40] + [90] * 20)
    stops = watts([250, 180, 120, 0, 0, 700, 800, 600, 400] * 2 + [300] * 12,
                  [0, 0, 0, 0, 0, 0, 0, 0, 30] * 2 + [90] * 12, start=25)
    assert power_rules({**start, **stops}) == []
    assert sum(fairplay._beyond_cadence(sample, None) for sample in {**start, **stops}.values()) == 4 + 2 * 6  # 12 of them within 30 s


@pytest.mark.parametrize("left_out", [2, 3, 10])
def test_the_gap_trick_hides_no_watts(left_out):
    # 3,000 W (the contract's most) in all but one second of every ``left_out``: each window of race time
    # holds what was sent in it, so the minutes break however the seconds are spaced
    gapped = {second: Sample(100, 50, power=3000) for second in range(300) if second % left_out != left_out - 1}
    # one in 10 left out: nine seconds in a row, and 810,000 J in 300 s; one in 2 or 3: 12,000 J in any 5 s at most
    expected = {2: ["power-minute", "power-5-minutes"], 3: ["power-minute", "power-5-minutes"],
                10: ["power-peak", "power-minute", "power-5-minutes", "power-20-minutes"]}
    assert power_rules(gapped) == expected[left_out]
    assert power_rules(dict(reversed(list(gapped.items())))) == power_rules(gapped)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.integers(0, 299), st.sampled_from([3000, 1500, 800, 700, 0]).map(
    lambda power: Sample(90, 50, power=power))))
def test_a_ride_no_power_rule_flags_scores_at_most_800_watts_a_second_of_a_5_minute_race(samples):
    if "power-5-minutes" not in power_rules(samples):
        assert sum(sample.power for sample in samples.values()) <= 300 * 800


SEEN = st.sampled_from([Sample(0, 0, power=0), Sample(0, 0, power=400), Sample(5, 0, power=400),
                        Sample(90, 60, power=300), Sample(120, 100, power=1500), Sample(180, 100, power=2800),
                        Sample(300, 100, power=3000)])


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.integers(0, 179), SEEN, min_size=1), st.data())
def test_what_the_stream_sees_live_never_flags_what_the_whole_ride_does_not(ride, data):
    # The stream sees some of the ride's samples (the chunks a batch changed) and the points its chunks held
    # then (some of their seconds): whatever it proves broken, the whole ride breaks, in either class.
    seconds = sorted(ride)
    seen = data.draw(st.sets(st.sampled_from(seconds)))
    stored = data.draw(st.sets(st.sampled_from(seconds)))
    for metric in (OUTPUT, POWER):
        points: dict[int, Decimal] = {}
        for second in stored:
            points[second // 30] = points.get(second // 30, Decimal(0)) + ride[second].score(metric)
        live = fairplay.broken_rules_seen({second: ride[second] for second in seen}, points, 30, metric)
        assert set(live) <= set(broken_rules(ride, metric))


def test_live_cadence_swing_counts_only_rises_between_seconds_next_to_each_other():
    # 0 then 300 rpm 12 s apart: the stream has not seen the seconds between (120 rpm sent at second 1: rises
    # of 120 and 180 11 s apart, no flag), so it judges no rise across the gap; at the finish the whole ride
    # is judged with the rises it has
    seen = {0: Sample(0, 50), 12: Sample(300, 50)}
    assert fairplay.broken_rules_seen(seen, {}, 30) == []
    assert broken_rules({**seen, 1: Sample(120, 50)}) == []
    assert broken_rules(seen) == ["cadence-swing"]
    # next to each other, a rise is the whole ride's whatever arrives later: seen live
    swings = {second: Sample(20 if second % 2 else 120, 50) for second in range(10)}
    assert fairplay.broken_rules_seen(swings, {}, 30) == ["cadence-swing"]


def test_what_the_stream_sees_of_a_power_class_adds_up_joules_over_whole_chunks():
    # in a power class chunk points are joules: 15,001 of them in a minute (output-held's) are 250 W, no flag
    assert fairplay.broken_rules_seen({}, {3: Decimal(7600), 4: Decimal(7401)}, 30, POWER) == []
    assert fairplay.broken_rules_seen({}, {3: Decimal(42_000), 4: Decimal(42_000)}, 30, POWER) == []
    assert fairplay.broken_rules_seen({}, {3: Decimal(42_000), 4: Decimal(42_001)}, 30, POWER) == ["power-minute"]
    assert fairplay.broken_rules_seen({}, {3: Decimal(84_001)}, 30, POWER) == ["power-minute"]  # one chunk can
    assert fairplay.broken_rules_seen({}, {3: Decimal(42_000), 5: Decimal(42_001)}, 30, POWER) == []
    # ten chunks are five minutes, forty are twenty
    assert fairplay.broken_rules_seen({}, {chunk: Decimal(24_000) for chunk in range(10)}, 30, POWER) == []
    assert fairplay.broken_rules_seen({}, {**{chunk: Decimal(24_000) for chunk in range(10)}, 9: Decimal(24_001)},
                                      30, POWER) == ["power-5-minutes"]
    assert fairplay.broken_rules_seen({}, {chunk: Decimal(18_000) for chunk in range(40)}, 30, POWER) == []
    assert fairplay.broken_rules_seen({}, {**{chunk: Decimal(18_000) for chunk in range(40)}, 0: Decimal(18_001)},
                                      30, POWER) == ["power-20-minutes"]
    # the samples seen are judged by every rule of the class, in the rules' order
    seen = {**watts([3000] * 5), **watts([171] * 10, 171, start=5)}
    assert fairplay.broken_rules_seen(seen, {0: Decimal(16_710)}, 30, POWER) == ["cadence-held", "power-peak"]


def test_output_classes_are_unaffected_by_power_and_power_classes_by_output():
    # 3,000 W at 0 rpm for 300 s: no output-class rule reads the watts
    assert broken_rules(watts([3000] * 300, 0)) == [] == broken_rules(watts([3000] * 300, 0), OUTPUT)
    assert fairplay.broken_rules_seen(watts([3000] * 30, 0), {0: Decimal(90_000), 1: Decimal(90_000)}, 30) == [
        "output-held"]  # an output class's chunk points are outputs: 180,000 of them in a minute
    honest_output = ride(range(30, 91), 86)
    with_watts = {second: sample._replace(power=3000) for second, sample in honest_output.items()}
    assert broken_rules(with_watts) == broken_rules(honest_output) == []
    # a sprinter at 150 rpm on a trainer's top level for a minute: output-held in an output class, and in a
    # power class (where output scores nothing) only the watts are judged
    sprint = {second: Sample(150, 100, power=1200) for second in range(60)}
    assert broken_rules(sprint) == ["output-held"]
    assert power_rules(sprint) == []
    assert fairplay.rules_of(POWER) == fairplay.POWER_RULES and fairplay.rules_of() == fairplay.RULES
    assert [rule.id for rule in fairplay.POWER_RULES] == [
        "cadence-held", "cadence-swing", "power-peak", "power-minute", "power-5-minutes", "power-20-minutes",
        "power-cadence"]


def test_the_cadence_rules_judge_a_power_class_too():
    assert power_rules(watts([300] * 10, 171)) == ["cadence-held"]
    assert power_rules(watts([300, 300, 300, 300], [0, 100, 0, 100])) == ["cadence-swing"]


def test_the_on_screen_bike_is_refused_a_power_class_with_a_sentence_and_every_other_join_is_not():
    refused = fairplay.refused_equipment(POWER, "virtual")
    assert refused.startswith("the on-screen bike cannot ride a power class") and "Connect a trainer" in refused
    assert [fairplay.refused_equipment(metric, equipment) for metric, equipment in
            ((POWER, "bike"), (POWER, "trainer"), (OUTPUT, "virtual"), (OUTPUT, "bike"))] == [None] * 4


def test_a_ride_whose_cadence_is_only_ever_half_an_rpm_measures_cadence_and_is_judged_for_straining():
    # a trainer's cadence in half rpm: 0.5 rpm is a cadence measured, 500 W on it is 1,000 W per rpm
    crawling = {second: Sample(Decimal("0.5"), 50, power=500) for second in range(30)}
    assert "power-cadence" in broken_rules(crawling, POWER)
    assert "power-cadence" not in broken_rules({s: sample._replace(cadence=0) for s, sample in crawling.items()}, POWER)
