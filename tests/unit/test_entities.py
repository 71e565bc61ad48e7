from decimal import Decimal

import pytest

from alleycat.edge import views
from alleycat.rules import scores
from alleycat.rules.fanin import Counted, SliceStanding
from alleycat.rules.samples import Sample, Totals
from alleycat.storage import entities as e

RACE_ID = "01JD5Z6Q8X0000000000000000"


@pytest.mark.parametrize("entity", [
    e.Racer("bob", "Bob"),
    e.Class("hill", "Hill climb", "steep"),
    e.Race(RACE_ID, "hill", "Hill climb", "2026-11-22T10:00:00Z", 300, "open", 4),
    e.Entry(RACE_ID, "bob", "Bob", "hill", "2026-11-22T10:00:00Z", chunks={"0": Totals(Decimal("12.5"), 59)}),
    e.RaceBoard(RACE_ID, 2, {"bob": [Decimal("1.25"), 3, "Bob"]}),
    e.ClassBoard("hill", {"bob": [Decimal("99.5"), RACE_ID, "Bob"]}),
    e.Best("bob", "hill", Decimal("99.5"), RACE_ID, "Bob"),
    e.Chunk(RACE_ID, "bob", 1, "hill", Decimal("10.5"), {60: Sample(80, 50), 61: Sample(81, 51)}),
    e.PackedChunk(RACE_ID, "bob", 0, "hill", {0: Sample(80, Decimal("50.25")), 599: Sample(Decimal("0.0001"), 100)}),
    e.Race(RACE_ID, "hill", "Hill climb", "2026-11-22T10:00:00Z", 300, slices=32),
    e.RaceGate(RACE_ID, 3, "hill", 300, startsAt="2026-11-22T10:00:00Z", slices=16),
    e.SecondBlock(RACE_ID, 7, 42, {"b0b": Counted(Sample(Decimal("84.5"), 47, 131), "abcd"),
                                   "amy": Counted(Sample(80, 50, None, 250), "k2k2")}),
    e.SliceBoard(RACE_ID, 7, {"b0b": SliceStanding(Decimal("1.25"), 3)}, {"shardId-0": "4900"}, ["abcd"], 4),
    e.SliceTag(RACE_ID, 7, "b0b", "bob"),
    e.Entry(RACE_ID, "bob", "Bob", "hill", "2026-11-22T10:00:00Z", tag="b0b"),
])
def test_item_round_trips_through_the_type_discriminator(entity):
    # When an entity is stored and read back from its item
    item = entity.to_item()
    back = e.from_item(item)
    # Then it is the same entity, typed by its discriminator
    assert item["type"] == {"S": entity.KEYS.entity}
    assert back == entity


def test_packed_chunk_is_compressed_binary_with_short_names():
    samples = {s: Sample(Decimal("61.5"), 42) for s in range(600)}
    item = e.PackedChunk(RACE_ID, "bob", 0, "hill", samples).to_item()
    assert set(item) == {"PK", "SK", "type", "c", "d"}
    assert "B" in item["d"] and len(item["d"]["B"]) < 2000


def test_unknown_type_is_refused():
    with pytest.raises(ValueError):
        e.from_item({"PK": {"S": "X#1"}, "SK": {"S": "X#1"}, "type": {"S": "Nope"}})


def test_chunk_stores_each_second_as_its_own_attribute():
    item = e.Chunk(RACE_ID, "bob", 0, "hill", samples={5: Sample(90, 40)}).to_item()
    assert item["s5"] == {"L": [{"N": "90"}, {"N": "40"}]}


def test_entry_score_and_last_second_come_from_its_chunks():
    entry = e.Entry(RACE_ID, "bob", "Bob", "hill", "t", chunks={"0": Totals(Decimal("1.5"), 59), "1": Totals(Decimal("2.25"), 75)})
    assert entry.score == Decimal("3.75")
    assert entry.lastSecond == 75


def test_output_follows_the_contract_formula():
    assert scores.output(90, 50) == Decimal("143.75")
    assert scores.output(0, 0) == Decimal("22.75")


def test_race_leaderboard_ranks_highest_score_first_and_limits():
    boards = [e.RaceBoard(RACE_ID, 0, {"a": [Decimal("5"), 1, "A"], "b": [Decimal("7.12345"), 2, "B"]}),
              e.RaceBoard(RACE_ID, 1, {"c": [Decimal("6"), 3, "C"]})]
    race = e.Race(RACE_ID, "hill", "Hill", "t", 300)
    body = views.race_leaderboard(race, boards, limit=2)
    assert [(i["rank"], i["racerId"], i["score"]) for i in body["items"]] == [(1, "b", 7.1235), (2, "c", 6)]
