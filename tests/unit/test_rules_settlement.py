"""A finished race's results and reviews' effects on them (``alleycat.rules.settlement``), as the contract
orders them: highest score first, ties by racerId; a disqualified ride has no rank and comes last; a
class's best counts real rides in finished races, neither pending nor disqualified (Fair play)."""

from decimal import Decimal

from alleycat.rules import settlement as rule
from alleycat.rules.board import Board, ClassBoard, ClassStanding, Standing
from alleycat.rules.samples import Sample, Totals
from alleycat.storage import entities as e

RACE, CLASS = "01JD5Z6Q8X0000000000000000", "hill-climb"


def ride(racer_id, score, equipment="bike", review=None, race=RACE, rank=None):
    return e.Entry(race, racer_id, racer_id.title(), CLASS, "2026-11-22T10:00:00Z", rank=rank,
                   chunks={"0": Totals(Decimal(str(score)), 10)}, equipment=equipment, review=review)


def test_final_ranks_order_by_score_then_racer_id_whatever_the_order_read_and_disqualified_last():
    rides = [ride("zed", 100), ride("amy", 100), ride("bo", 150, review="disqualified"), ride("cy", "99.5", review="pending"),
             ride("dee", 150), ride("Eve", 100)]
    ranked = [(rank, entry.racerId) for rank, entry in rule.final_ranks(rides)]
    # "E" (69) sorts before "a" (97) by code point
    assert ranked == [(1, "dee"), (2, "Eve"), (3, "amy"), (4, "zed"), (5, "cy"), (None, "bo")]


def test_only_real_rides_neither_pending_nor_disqualified_reach_the_class():
    rides = [ride("bike", 10), ride("trainer", 20, "trainer", "cleared"), ride("virtual", 90, "virtual"),
             ride("pending", 80, review="pending"), ride("disqualified", 70, "trainer", "disqualified"),
             ride("older", 30, equipment=None)]  # an entry from before equipment was recorded: a bike
    assert rule.class_rows(RACE, rides) == [ClassStanding("bike", Decimal(10), RACE, "Bike"),
                                            ClassStanding("trainer", Decimal(20), RACE, "Trainer"),
                                            ClassStanding("older", Decimal(30), RACE, "Older")]
    assert rule.class_row(RACE, ride("virtual", 90, "virtual")) is None
    assert [rule.counts(entry) for entry in rides] == [True, True, False, False, False, True]


def test_class_board_ties_rank_by_racer_id_not_by_the_order_rides_were_settled():
    # zed settled first, then amy and bo with the same score: amy, bo, zed; the disqualified ride
    # with the highest score is on no class board
    first = ClassBoard().merged(rule.class_rows(RACE, [ride("zed", 100)]))
    later = "01JD5Z6Q8X0000000000000001"
    merged = first.merged(rule.class_rows(later, [ride("bo", 100, race=later), ride("amy", 100, race=later),
                                                  ride("cat", 500, review="disqualified", race=later)]))
    assert [(rank, row.racer_id, row.race_id) for rank, row in merged.page(10)] == [
        (1, "amy", later), (2, "bo", later), (3, "zed", RACE)]
    assert list(merged.item()) == ["amy", "bo", "zed"]  # stored in rank order


def test_a_class_best_is_the_top_ride_that_counts_in_a_finished_race_the_earliest_on_a_tie():
    # Newest race first, as a racer's entries are read
    rides = [ride("ann", 300, "virtual", race="06"), ride("ann", 250, review="disqualified", race="05"),
             ride("ann", 200, race="04"), ride("ann", 120, review="pending", race="03"),
             ride("ann", 100, race="02"), ride("ann", 100, race="01")]
    finished = {"01", "02", "03", "05", "06"}  # race 04 still open
    assert rule.class_best(rides, finished) == ClassStanding("ann", Decimal(100), "01", "Ann")
    cleared = [ride("ann", 120, review="cleared", race="03")] + rides
    assert rule.class_best(cleared, finished) == ClassStanding("ann", Decimal(120), "03", "Ann")
    assert rule.class_best(rides, finished | {"04"}) == ClassStanding("ann", Decimal(200), "04", "Ann")
    assert rule.class_best(rides[:2], finished) is None


def standing(racer_id, score, review=None):
    return Standing(racer_id, Decimal(str(score)), 10, racer_id.title(), review=review)


def test_late_seconds_rank_again_only_the_racers_whose_place_moved():
    board = Board([standing("a", 100), standing("b", 90), standing("c", 80), standing("d", 200, "disqualified")])
    # c's late seconds take it to 95: past b, not past a
    assert rule.places_moved(board, [standing("c", 95)]) == {"c": 2, "b": 3}
    assert rule.places_moved(board, [standing("c", 85)]) == {}
    # to 90, level with b: b keeps second place by racerId
    assert rule.places_moved(board, [standing("c", 90)]) == {}
    # d, disqualified, has no place whatever its score; a racer new to the board takes one
    assert rule.places_moved(board, [standing("d", 300, "disqualified"), standing("e", 95)]) == {"e": 2, "b": 3, "c": 4}


def test_a_decision_sets_the_review_of_racers_on_the_board_and_their_ranks_follow():
    board = Board([standing("a", 100), standing("b", 90), standing("c", 80)])
    reviewed = rule.reviewed(board, {"a": "disqualified", "c": "cleared", "nobody": "pending"})
    assert reviewed == [standing("a", 100, "disqualified"), standing("c", 80, "cleared")]
    places = board.updated(reviewed).places()
    assert places == {"b": 1, "c": 2, "a": None}
    entries = [ride("a", 100, rank=1), ride("b", 90, rank=2), ride("c", 80, rank=3)]
    assert rule.ranks_to_correct(places, entries) == {"a": None, "b": 1, "c": 2}
    assert rule.ranks_to_correct(places, [ride("b", 90, rank=1), ride("a", 100, rank=None)]) == {}


def held(cadence, seconds, start=0):
    return {start + second: Sample(cadence, 50) for second in range(seconds)}


def test_the_whole_ride_checked_at_the_finish_flags_it_or_widens_a_pending_review():
    # docs/fair-play.md: cadence above 170 rpm for 10 s or more in a row is "cadence-held"
    assert rule.review_at_finish(None, held(171, 10)) == rule.Flag(["cadence-held"])
    assert rule.review_at_finish("pending", held(171, 10)) == rule.AddRules(["cadence-held"])
    assert rule.review_at_finish(None, held(171, 9)) is None
    assert rule.review_at_finish(None, held(170, 30)) is None
    # an admin's decision stands, whatever the ride breaks
    assert rule.review_at_finish("cleared", held(171, 10)) is None
    assert rule.review_at_finish("disqualified", held(171, 10)) is None


def test_a_ride_with_no_second_counts_for_no_class_board_and_no_best():
    # Joined, never an accepted second (issue 51: such a racer sat on the all-time class board with 0)
    idle = [e.Entry(RACE, "idle", "Idle", CLASS, "2026-11-22T10:00:00Z", chunks=chunks, equipment="trainer")
            for chunks in ({}, {"0": Totals(0, None)})]
    assert [rule.counts(entry) for entry in idle] == [False, False]
    assert [rule.class_row(RACE, entry) for entry in idle] == [None, None]
    assert rule.class_rows(RACE, [*idle, ride("bo", 10)]) == [ClassStanding("bo", Decimal(10), RACE, "Bo")]
    assert rule.class_best(idle, {RACE}) is None
    # One second is a ride: it counts, whatever its score
    assert rule.counts(ride("cy", "0.01")) and rule.class_best([ride("cy", "0.01")], {RACE}) is not None
