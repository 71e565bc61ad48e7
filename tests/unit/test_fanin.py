"""The fan-in's pure rules (``alleycat.rules.fanin``): a racer's slice and group, a race's slice count, and the
second block's arbiter, first value wins; the block and the slice board as stored."""

import base64
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
    outcome = fanin.arbitrate({"amy": Counted(A, "rec1"), "bob": Counted(B, "rec1")}, {})
    assert outcome.counted == {"amy": A, "bob": B} and not outcome.retried and not outcome.duplicates
    assert outcome.accepted == 2


def test_another_origins_value_stands_and_the_sent_one_is_a_duplicate():
    first = Counted(B, "rec1")
    outcome = fanin.arbitrate({"amy": Counted(A, "htp9"), "bob": Counted(A, "htp9")}, {"bob": first})
    assert outcome.counted == {"amy": A}
    assert outcome.duplicates == {"bob": first}
    assert outcome.accepted == 1


def test_a_retry_of_the_same_origin_answers_what_its_first_attempt_counted():
    # The first attempt wrote bob's value and failed before it was told; the retry finds it as its own
    outcome = fanin.arbitrate({"bob": Counted(B, "rec1")}, {"bob": Counted(B, "rec1")})
    assert outcome.retried == {"bob": B} and not outcome.counted and not outcome.duplicates
    assert outcome.accepted == 1


def test_a_block_stores_each_racer_under_their_tag_packed_in_a_few_bytes_with_the_origin():
    origin = fanin.origin_of("shardId-000000000001:4900")
    block = e.SecondBlock(RACE_ID, 3, 42, {"b0b": Counted(A, origin), "amy": Counted(Sample(80, 50, None, 250), origin)})
    item = block.to_item()
    # cadence, resistance (3 bytes each, ten-thousandths), heart rate (0: none), power (0xFFFF: none), 3 of origin
    assert item["b0b"] == {"B": (845_000).to_bytes(3, "big") + (470_000).to_bytes(3, "big") + bytes([131])
                                + b"\xff\xff" + base64.urlsafe_b64decode(origin)}
    assert len(item["amy"]["B"]) == 12 and len(origin) == 4
    assert e.from_item(item) == block
    assert keys.SECOND_BLOCK.parse({"PK": item["PK"]["S"], "SK": item["SK"]["S"]}) == {"raceId": RACE_ID, "slice": "003", "second": "0042"}


@pytest.mark.parametrize("sample", [Sample(Decimal("0.0001"), 0, 30, 0), Sample(300, 100, 250, 3000),
                                    Sample(Decimal("84.5"), Decimal("47.1234"))])
def test_packing_keeps_every_value_the_contract_takes_exactly(sample):
    counted = Counted(sample, fanin.origin_of("req"))
    assert e.counted_of(e.packed_counted(counted)) == counted


def test_tags_are_short_distinct_candidates_no_other_attribute_is_named_like():
    tags = list(fanin.tags_of(RACERS[0]))
    assert len(set(tags)) == fanin.TAG_TRIES and {len(tag) for tag in tags} == {fanin.TAG_CHARS}
    assert list(fanin.tags_of(RACERS[0])) == tags  # the same racer, the same candidates
    # A 1,000-racer race's first candidates collide in a few slices at most: a join's second try is rare
    firsts: dict[int, list[str]] = {}
    for racer in RACERS[:1000]:
        firsts.setdefault(fanin.slice_of(racer, fanin.SLICES), []).append(next(fanin.tags_of(racer)))
    assert sum(len(tags) - len(set(tags)) for tags in firsts.values()) <= 3
    board = e.SliceBoard(RACE_ID, 1, {"b0b": fanin.SliceStanding(Decimal("1.5"), 3)}, {"shard": "7"}, ["abcd"], 2)
    assert [name for name in board.to_item() if e.is_tag(name)] == ["b0b"]


def test_a_slice_board_row_packs_score_and_last_second():
    board = e.SliceBoard(RACE_ID, 7, {"b0b": fanin.SliceStanding(Decimal("107999999.9999"), 3599),
                                      "amy": fanin.NO_STANDING}, {"shardId-000000000001": "4900"}, ["abcd"], 3)
    item = board.to_item()
    assert len(item["b0b"]["B"]) == 7 and item["amy"]["B"] == bytes(5) + b"\xff\xff"
    assert e.from_item(item) == board


def gain(tag, second, points, mark):
    return fanin.Gain(tag, second, Decimal(points), mark)


def test_a_boards_gains_from_the_log_count_once_per_record_whatever_the_retry():
    standings: dict = {}
    applied: dict = {}
    batch = [gain("b0b", 4, "1.5", "101"), gain("amy", 4, "2", "102"), gain("b0b", 3, "1", "103")]
    assert fanin.add_gains(standings, applied, [], batch, "shard-1")
    assert standings == {"b0b": fanin.SliceStanding(Decimal("2.5"), 4), "amy": fanin.SliceStanding(Decimal(2), 4)}
    assert applied == {"shard-1": "103"}
    # The same batch again (its board write's answer lost) changes nothing
    assert not fanin.add_gains(standings, applied, [], batch, "shard-1")
    # A retry that reaches further counts only the records after the last applied
    assert fanin.add_gains(standings, applied, [], [*batch, gain("amy", 5, "3", "104")], "shard-1")
    assert standings["amy"] == (Decimal(5), 5) and standings["b0b"] == (Decimal("2.5"), 4) and applied["shard-1"] == "104"
    # Sequence numbers compare as numbers, and another shard has its own mark
    assert fanin.add_gains(standings, applied, [], [gain("cat", 1, "1", "99")], "shard-2")
    assert not fanin.add_gains(standings, applied, [], [gain("amy", 1, "1", "99")], "shard-1")


def test_a_boards_gains_from_an_http_request_count_once_for_its_origin():
    standings: dict = {}
    recent = [f"r{n:03d}" for n in range(fanin.RECENT_REQUESTS)]
    assert fanin.add_gains(standings, {}, recent, [gain("b0b", 4, "1.5", "orig"), gain("b0b", 5, "1", "orig")], None)
    assert standings == {"b0b": (Decimal("2.5"), 5)} and recent[-1] == "orig" and len(recent) == fanin.RECENT_REQUESTS
    assert not fanin.add_gains(standings, {}, recent, [gain("b0b", 6, "9", "orig")], None)
    assert not fanin.add_gains(standings, {}, recent, [], None)


def test_a_slice_board_is_read_by_the_race_boards_query_and_taken_for_no_shard():
    # The board's Query is PK = RACE#<race> AND SK < REPLAY#: a slice board's key is inside it
    sk = keys.SLICE_BOARD.sk.build({"raceId": RACE_ID, "slice": 12})
    assert keys.RACE_BOARD.sk.prefix() < sk < keys.REPLAY_PART.sk.prefix()
    assert not keys.RACE_BOARD.sk.matches(sk)


def test_a_blocks_change_gains_only_the_tags_its_old_image_lacks():
    first, other = Counted(Sample(80, 50), "AAAA"), Counted(Sample(99, 10), "BBBB")
    # a value once set never changes: what the old image holds was an earlier change's
    assert fanin.gained({"a": first, "b": other}, {"a": first}) == {"b": other.sample}
    assert fanin.gained({"a": first}, {"a": first}) == {}
    assert fanin.gained({"a": first}, {}) == {"a": first.sample}


def test_a_slices_gains_are_written_a_racer_chunk_at_a_time_and_unknown_tags_left_out():
    one, two = Sample(80, 50), Sample(60, 40)
    gains = {"a": {0: one, 29: two, 30: one}, "b": {59: two}, "zz": {1: one}}
    assert fanin.history_chunks(gains, {"a": "racer-a", "b": "racer-b"}, 30) == {
        ("racer-a", 0): {0: one, 29: two}, ("racer-a", 1): {30: one}, ("racer-b", 1): {59: two}}
