"""The replay as values (``alleycat.rules.replay``) and as stored (``entities.ReplayPart``): its step and
seconds as the contract says, scores rounded once, rows packed small and read back exactly.

Outputs are worked out by hand from the contract's output = (cadence + 35) x (resistance + 65) / 100.
"""

from hypothesis import given
from hypothesis import strategies as st

from alleycat.rules import replay
from alleycat.rules.samples import Sample
from alleycat.storage import entities as e
from alleycat.storage.sizing import item_size

ITEM_LIMIT = 400 * 1024  # DynamoDB's largest item


def test_the_step_is_a_second_up_to_300_seconds_and_longer_races_keep_about_300_scores():
    assert [replay.step_of(seconds) for seconds in (60, 299, 300)] == [1, 1, 1]
    assert [replay.step_of(seconds) for seconds in (301, 600, 601, 3600)] == [2, 2, 3, 12]


def test_a_replay_holds_a_score_after_each_second_of_a_300_second_race():
    assert list(replay.taken_after(300)) == list(range(300))


def test_a_longer_race_is_taken_every_step_and_its_last_score_is_the_final_one():
    # 600 s, step 2: seconds 0, 2, ... 598, then 600: past the last second (599), so the final score
    assert list(replay.taken_after(600)) == [*range(0, 599, 2), 600]
    # 3,600 s, step 12: 0 ... 3588 is 300 scores, then 3600 for the last second, 3599
    taken = list(replay.taken_after(3600))
    assert (len(taken), taken[-2], taken[-1]) == (301, 3588, 3600)


def test_the_cumulative_score_counts_each_second_up_to_and_including_it():
    # (65, 35) -> 100 at second 0; (45, 15) -> 64 at second 2; (0, 0) -> 22.75 at second 5
    row = replay.cumulative_tenths({0: Sample(65, 35), 2: Sample(45, 15), 5: Sample(0, 0)}, 60)
    assert row[:7] == [1000, 1000, 1640, 1640, 1640, 1868, 1868]  # 186.75 -> 186.8, half up
    assert len(row) == 60 and row[-1] == 1868


def test_the_score_is_rounded_once_never_as_a_sum_of_rounded_seconds():
    # (0, 0) -> 22.75 each second: 45.5 after two (rounding each second first would give 45.6)
    assert replay.cumulative_tenths({0: Sample(0, 0), 1: Sample(0, 0)}, 60)[:2] == [228, 455]


def test_a_racer_without_a_second_has_a_row_of_zeros():
    assert replay.cumulative_tenths({}, 60) == [0] * 60


@given(st.lists(st.integers(0, 70_000), max_size=400))
def test_a_packed_row_reads_back_exactly(rises):
    row, total = [], 0
    for rise in rises:
        total += rise
        row.append(total)
    assert e.unpack_row(e.pack_row(row)) == row


def test_a_steady_rider_packs_into_about_a_byte_a_step():
    # 119.0 a second for 300 s: the first step takes two bytes, every other one byte
    steady = [1190 * (second + 1) for second in range(300)]
    assert len(e.pack_row(steady)) == 301


def test_racers_are_spread_over_parts_of_about_250_and_each_racer_is_in_one():
    rows = {f"racer-{n:04d}": [n] for n in range(1000)}
    parts = e.ReplayPart.split("01JD5Z6Q8X0000000000000000", 1, rows)
    assert [part.part for part in parts] == [0, 1, 2, 3]
    assert sorted(racer for part in parts for racer in part.rows) == sorted(rows)
    assert e.ReplayPart.count_for(1) == 1 and e.ReplayPart.count_for(250) == 1 and e.ReplayPart.count_for(251) == 2


def test_a_part_of_the_roughest_rides_of_an_hour_stays_below_the_item_limit():
    # The widest rises an hour's race can have: 12 s a step of the highest output, (300 + 35) x (100 + 65) / 100
    # = 552.75 a second, alternating with nothing (a rider who stops and starts): every step at its widest
    widest = [round(552.75 * 12 * 10)] * 301
    row, total = [], 0
    for step, rise in enumerate(widest):
        total += rise if step % 2 else 0
        row.append(total)
    ids = [f"{n:064d}" for n in range(e.ReplayPart.RACERS * 3 // 2)]  # longest ids, 1.5x the racers a part expects
    part = e.ReplayPart("01JD5Z6Q8X0000000000000000", 0, 12, dict.fromkeys(ids, row))
    assert item_size(part.to_item()) < ITEM_LIMIT
