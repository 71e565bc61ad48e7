"""The fan-in's pure rules (``alleycat.rules.fanin``): a racer's slice and group, a race's slice count, and the
second block's arbiter, first value wins; the block and the slice board as stored."""

from decimal import Decimal

import pytest

from alleycat.edge import mqtt
from alleycat.rules import fanin
from alleycat.rules.fanin import Counted
from alleycat.rules.samples import Sample
from alleycat.storage import entities as e
from alleycat.storage import keys

RACE_ID = "01JD5Z6Q8X0000000000000000"
RACERS = [f"racer-{n:04d}-0000-0000-0000-000000000000" for n in range(2_000)]


def test_the_digest_is_md5_as_iot_sqls_md5_gives_it():
    # md5("abc"), RFC 1321's test suite: lowercase hex, as IoT SQL's md5() answers
    assert fanin.digest("abc") == "900150983cd24fb0d6963f7d28e17f72"
    assert fanin.group_of("abc") == "9"


@pytest.mark.parametrize("slices", [16, 32, 112, 160])
def test_every_slice_lies_within_one_of_the_rules_groups(slices):
    per_group = slices // fanin.GROUPS
    for racer_id in RACERS:
        found = fanin.slice_of(racer_id, slices)
        assert 0 <= found < slices
        assert found // per_group == int(fanin.group_of(racer_id), 16)


def test_slices_spread_racers_evenly_enough_to_keep_blocks_small():
    # 2,000 racers in 32 slices: 62.5 on average; none past twice that
    sizes = [0] * 32
    for racer_id in RACERS:
        sizes[fanin.slice_of(racer_id, 32)] += 1
    assert min(sizes) > 30 and max(sizes) < 2 * fanin.SLICE_RACERS


@pytest.mark.parametrize("racers, slices", [(1, 16), (100, 16), (1_000, 16), (1_600, 16), (1_601, 32), (10_000, 112)])
def test_a_races_slice_count_is_a_multiple_of_the_groups_for_at_most_a_hundred_racers_a_slice(racers, slices):
    assert fanin.slices_for(racers) == slices
    assert fanin.slices_for(fanin.PLANNED_RACERS) == fanin.SLICES


@pytest.mark.parametrize("slices", [0, 8, 24])
def test_a_slice_count_off_the_groups_is_refused(slices):
    with pytest.raises(ValueError, match="multiple of 16"):
        fanin.slice_of("bob", slices)


def test_the_rules_partition_key_is_the_race_and_the_racers_group():
    # What the rule computes (substring(md5(topic(4)), 0, 1)) is group_of: one slice's racers share a key
    data, key = mqtt.rule_record(mqtt.TOPIC.format(raceId=RACE_ID, racerId="bob"), b"{}", 1_700_000_000)
    assert key == f"{RACE_ID}/{fanin.group_of('bob')}"


A, B = Sample(Decimal("84.5"), 47, 131), Sample(80, 50)


def test_absent_values_are_newly_counted():
    outcome = fanin.arbitrate({"amy": A, "bob": B}, {}, "rec-1")
    assert outcome.counted == {"amy": A, "bob": B} and not outcome.retried and not outcome.duplicates
    assert outcome.accepted == 2


def test_another_origins_value_stands_and_the_sent_one_is_a_duplicate():
    first = Counted(B, "rec-1")
    outcome = fanin.arbitrate({"amy": A, "bob": A}, {"bob": first}, "http-9")
    assert outcome.counted == {"amy": A}
    assert outcome.duplicates == {"bob": first}
    assert outcome.accepted == 1


def test_a_retry_of_the_same_origin_answers_what_its_first_attempt_counted():
    # The first attempt wrote bob's value and failed before it was told; the retry finds it as its own
    outcome = fanin.arbitrate({"bob": B}, {"bob": Counted(B, "rec-1")}, "rec-1")
    assert outcome.retried == {"bob": B} and not outcome.counted and not outcome.duplicates
    assert outcome.accepted == 1


def test_a_block_stores_each_racer_as_an_attribute_of_four_values_and_the_origin():
    block = e.SecondBlock(RACE_ID, 3, 42, {"bob": Counted(A, "rec-1"), "amy": Counted(Sample(80, 50, None, 250), "k")})
    item = block.to_item()
    assert {name: value for name, value in item.items() if name.startswith("@")} == {
        "@bob": {"L": [{"N": "84.5"}, {"N": "47"}, {"N": "131"}, {"NULL": True}, {"S": "rec-1"}]},
        "@amy": {"L": [{"N": "80"}, {"N": "50"}, {"NULL": True}, {"N": "250"}, {"S": "k"}]}}
    assert keys.SECOND_BLOCK.parse({"PK": item["PK"]["S"], "SK": item["SK"]["S"]}) == {"raceId": RACE_ID, "slice": "003", "second": "0042"}


def test_a_slice_board_is_read_by_the_race_boards_query_and_taken_for_no_shard():
    # The board's Query is PK = RACE#<race> AND SK < REPLAY#: a slice board's key is inside it
    sk = keys.SLICE_BOARD.sk.build({"raceId": RACE_ID, "slice": 12})
    assert keys.RACE_BOARD.sk.prefix() < sk < keys.REPLAY_PART.sk.prefix()
    assert not keys.RACE_BOARD.sk.matches(sk)
