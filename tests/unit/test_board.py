"""The race and class boards (``alleycat.rules.board``): order, ties, pages, the pushed delta, the class merge."""

import json
from decimal import Decimal

from alleycat.rules import board
from alleycat.rules.board import Board, ClassBoard, ClassStanding, Standing
from alleycat.rules.samples import Totals
from alleycat.storage import entities as e
from alleycat.storage.attributes import from_item, to_attr

RACE = "01JD5Z6Q8X0000000000000000"


def standing(racer_id, score, last=5, name=None):
    return Standing(racer_id, Decimal(str(score)), last, name or racer_id.upper())


def test_ranks_by_score_descending_then_racer_id_by_code_point():
    rows = [standing("b", 10), standing("a", 9), standing("c", 10), standing("B", 10), standing("d", "10.0001")]
    assert [s.racer_id for s in Board(rows).ranked()] == ["d", "B", "b", "c", "a"]
    assert Board(rows).places() == {"d": 1, "B": 2, "b": 3, "c": 4, "a": 5}


def test_builds_from_shards_as_stored_and_converts_back_byte_identical():
    shards = [e.RaceBoard(RACE, 0, {"a": [Decimal("5.1"), 1, "A"], "b": [0, None, "B"]}),
              e.RaceBoard(RACE, 3, {"c": [7, 3, "C"]})]
    stored = [from_item(shard.to_item()) for shard in shards]  # as DynamoDB gives them back
    built = Board.from_shards(e.RaceBoard(RACE, s["shard"], s["standings"]) for s in stored)
    assert len(built) == 3 and [s.racer_id for s in built.ranked()] == ["c", "a", "b"]
    # A board of a race before v1.2 holds [score, lastSecond, name]: bike, no review
    assert {s.racer_id: to_attr(s.item()) for s in built.ranked()} == {
        racer_id: to_attr(value + ["bike", None]) for shard in shards for racer_id, value in shard.standings.items()}
    assert Standing.joined("z", "Zed").item() == [0, None, "Zed", "bike", None]
    assert Standing.joined("z", "Zed", "virtual").item() == [0, None, "Zed", "virtual", None]
    assert Standing.stored("y", [3, 1, "Y", "trainer", "pending"]) == Standing("y", Decimal(3), 1, "Y", "trainer", "pending")


def test_a_page_is_the_first_rows_with_their_ranks():
    built = Board(standing(f"r{n}", n % 3) for n in range(7))
    assert [(rank, s.racer_id) for rank, s in built.page(3)] == [(1, "r2"), (2, "r5"), (3, "r1")]
    assert len(built.page(100)) == 7 and built.page(0) == []


def test_updated_replaces_and_adds_without_changing_the_board():
    before = Board([standing("a", 1), standing("b", 2)])
    after = before.updated([standing("a", 3), standing("c", 0)])
    assert before.places() == {"b": 1, "a": 2}
    assert after.places() == {"a": 1, "b": 2, "c": 3}


def test_delta_sends_the_top_with_names_then_changed_racers_below_within_the_budget():
    built = Board(standing(f"r{n:02d}", 100 - n, name=f"Rider {n}") for n in range(40))
    rows, more = built.delta({"r30", "r12", "r03"}, 10_000, top=5)
    assert [row[0] for row in rows] == [1, 2, 3, 4, 5, 13, 31] and more == 0
    assert rows[0] == [1, "r00", 100, 5, "bike", None, "Rider 0"] and rows[5] == [13, "r12", 88, 5, "bike", None]
    # A budget that holds the top and one more row leaves the last changed racer out, counted
    budget = sum(len(json.dumps(row, separators=(",", ":"))) + 1 for row in rows[:6])
    assert built.delta({"r30", "r12", "r03"}, budget, top=5) == (rows[:6], 1)
    assert built.delta({"r30", "r12", "r03"}, budget - 1, top=5) == (rows[:5], 2)


def test_delta_rows_are_rounded_and_ties_keep_the_board_order():
    built = Board([standing("b", "1.00005"), standing("a", "1.00005"), standing("c", 2)])
    rows, _ = built.delta(set(), 1000, top=10)
    assert rows == [[1, "c", 2, 5, "bike", None, "C"], [2, "a", 1.0001, 5, "bike", None, "A"],
                    [3, "b", 1.0001, 5, "bike", None, "B"]]


def test_a_disqualified_ride_has_no_rank_and_comes_last_whatever_its_score():
    # Given a board where the best score is disqualified and another ride is pending
    rows = [standing("a", 50), Standing("b", Decimal(90), 5, "B", "trainer", "disqualified"),
            Standing("c", Decimal(40), 5, "C", "virtual", "pending"), Standing("d", Decimal(1), 5, "D", "bike", "disqualified")]
    built = Board(rows)
    # Then the pending ride keeps its place, the disqualified ones come last (by score) with no rank
    assert [(rank, s.racer_id) for rank, s in built.page(10)] == [(1, "a"), (2, "c"), (None, "b"), (None, "d")]
    assert built.places() == {"a": 1, "c": 2, "b": None, "d": None}
    rows, _ = built.delta(set(), 10_000, top=10)
    assert rows[2] == [None, "b", 90, 5, "trainer", "disqualified", "B"]


def test_real_equipment_only_ranks_the_real_rides_alone():
    built = Board([Standing("v", Decimal(99), 5, "V", "virtual"), Standing("t", Decimal(50), 5, "T", "trainer"),
                   standing("b", 60)])
    assert [(rank, s.racer_id) for rank, s in built.real_only().page(10)] == [(1, "b"), (2, "t")]
    assert [(rank, s.racer_id) for rank, s in built.page(10)] == [(1, "v"), (2, "b"), (3, "t")]


def test_a_class_board_row_set_or_removed_whatever_it_held():
    held = ClassBoard([ClassStanding("a", Decimal(10), RACE, "A"), ClassStanding("b", Decimal(20), RACE, "B")])
    lowered = held.with_best("b", ClassStanding("b", Decimal(5), "01JD5Z6Q8X0000000000000001", "B"))
    assert [(s.racer_id, s.best) for s in lowered.ranked()] == [("a", 10), ("b", 5)]
    assert [s.racer_id for s in held.with_best("a", None).ranked()] == ["b"]
    assert [s.racer_id for s in held.ranked()] == ["b", "a"]  # unchanged


def test_class_merge_raises_bests_keeps_the_top_and_never_lowers_one():
    stored = e.ClassBoard("hill", {"a": [Decimal("50"), "old", "A"], "b": [Decimal("40"), "old", "B"]})
    merged = ClassBoard.from_item(stored).merged(
        [ClassStanding("a", Decimal("45"), RACE, "A"), ClassStanding("b", Decimal("60"), RACE, "B"),
         ClassStanding("c", Decimal("50"), RACE, "C")])
    assert merged.item() == {"b": [Decimal("60"), RACE, "B"], "a": [Decimal("50"), "old", "A"],
                             "c": [Decimal("50"), RACE, "C"]}
    assert [(rank, s.racer_id) for rank, s in merged.page(2)] == [(1, "b"), (2, "a")]


def test_class_merge_brings_a_renamed_racers_name_to_a_best_it_does_not_beat():
    # A racer renamed while their race settled: the board got their old name, and the rename's work
    # found no best of theirs in the class yet; the settlement run again brings the entry's new name
    stored = e.ClassBoard("hill", {"a": [Decimal("50"), RACE, "Bo"]})
    merged = ClassBoard.from_item(stored).merged([ClassStanding("a", Decimal("50"), RACE, "Dee")])
    assert merged.item() == {"a": [Decimal("50"), RACE, "Dee"]}


def test_class_merge_cuts_to_the_board_size_then_trims_until_it_fits():
    bests = [ClassStanding(f"r{n:04d}", Decimal(n), RACE, "x" * 10) for n in range(1500)]
    top = ClassBoard.from_item(None).merged(bests)
    assert len(top.standings) == board.CLASS_BOARD_SIZE and next(iter(top.item())) == "r1499"
    trimmed = ClassBoard().merged(bests, fits=lambda item: len(item) <= 995)
    assert len(trimmed.standings) == 990 and list(trimmed.item())[-1] == "r0510"


def test_entries_in_board_order_and_by_shard():
    entries = [e.Entry(RACE, racer, racer, "hill", "2026-11-22T10:00:00Z", chunks={"0": Totals(Decimal(points), 1)})
               for racer, points in (("b", 3), ("a", 3), ("c", 9))]
    assert [entry.racerId for entry in board.in_order(entries)] == ["c", "a", "b"]
    by_shard = board.shards(map(Standing.of_entry, entries), e.RaceBoard.shard_of)
    assert {racer for shard in by_shard.values() for racer in shard} == {"a", "b", "c"}
    assert all(e.RaceBoard.shard_of(racer) == shard for shard, held in by_shard.items() for racer in held)


class EntryLike:
    """An entry as the stream hands it: the attributes of api.md's entry."""

    def __init__(self, racerId, score, lastSecond, name, equipment="bike", review=None):
        self.racerId, self.score, self.lastSecond, self.name = racerId, score, lastSecond, name
        self.equipment, self.review = equipment, review


def test_a_standing_of_an_entry_keeps_every_field():
    entry = EntryLike("r1", Decimal("12.5"), 41, "Ann", "trainer", "pending")
    assert Standing.of_entry(entry) == Standing("r1", Decimal("12.5"), 41, "Ann", "trainer", "pending")
    assert Standing.of_entry(entry).item() == [Decimal("12.5"), 41, "Ann", "trainer", "pending"]


def test_a_racer_who_joined_has_no_score_nor_second_yet():
    assert Standing.joined("r1", "Ann") == Standing("r1", Decimal(0), None, "Ann", "bike", None)
    assert Standing.joined("r2", "Bo", "virtual").item() == [0, None, "Bo", "virtual", None]


def test_a_class_standing_as_stored_keeps_every_field():
    assert ClassStanding.stored("r1", ["12.5", RACE, "Ann"]) == ClassStanding("r1", Decimal("12.5"), RACE, "Ann")


def test_the_name_is_on_exactly_the_top_rows():
    ranked = Board([standing("a", 30), standing("b", 20), standing("c", 10)])
    rows, more = ranked.delta({"c"}, 10_000, top=2)
    assert [len(row) for row in rows] == [7, 7, 6]
    assert [row[-1] for row in rows[:2]] == ["A", "B"] and more == 0


def test_shards_hold_each_standing_under_its_shard():
    a, b, c = standing("a", 1), standing("b", 2), standing("c", 3)
    assert board.shards([a, b, c], lambda racer_id: 0 if racer_id == "b" else 1) == {1: {"a": a, "c": c}, 0: {"b": b}}


def test_class_board_ties_rank_by_racer_id_whatever_the_order_they_came_in():
    tied = [ClassStanding(racer_id, Decimal("50"), RACE, racer_id.upper()) for racer_id in ("z", "m", "a")]
    assert [s.racer_id for s in ClassBoard(tied).ranked()] == ["a", "m", "z"]
    merged = ClassBoard().merged(reversed(tied))
    assert [s.racer_id for s in merged.ranked()] == ["a", "m", "z"]
    assert list(merged.item()) == ["a", "m", "z"]  # stored in rank order
    assert [rank for rank, _ in merged.page(3)] == [1, 2, 3]


def test_an_equal_best_keeps_the_race_it_was_first_set_in():
    first = ClassStanding("r1", Decimal("50"), "01JD5Z6Q8X0000000000000001", "Ann")
    again = ClassStanding("r1", Decimal("50"), "01JD5Z6Q8X0000000000000002", "Ann")
    assert ClassBoard([first]).merged([again]).standings["r1"].race_id == "01JD5Z6Q8X0000000000000001"


def test_a_board_too_big_to_store_drops_ten_rows_at_a_time_until_it_fits():
    rows = [ClassStanding(f"r{n:02d}", Decimal(100 - n), RACE, "N") for n in range(25)]
    merged = ClassBoard().merged(rows, fits=lambda item: len(item) <= 12)
    assert sorted(merged.standings) == [f"r{n:02d}" for n in range(5)]  # 25 -> 15 -> 5
    assert len(ClassBoard().merged(rows).standings) == 25  # what fits is kept whole
