"""Live scores (``alleycat.rules.scoring``, and ``stream.scoring.live_totals`` around it with the racer's
partition faked): an entry's totals from what it holds and the chunks read now.

A chunk's ``Totals`` are its points and its highest second (None: none yet). The points below are outputs worked out by hand from the
contract's output = (cadence + 35) x (resistance + 65) / 100.
"""

from decimal import Decimal

from alleycat.rules import scoring as rule
from alleycat.rules.samples import Sample, Totals
from alleycat.storage import entities as e
from alleycat.stream import scoring

RACE, RACER, CLASS = "01JD5Z6Q8X0000000000000000", "ann", "hill-climb"

# Seconds 0-1: (65, 35) -> 100 x 100 / 100 = 100; (45, 15) -> 80 x 80 / 100 = 64
CHUNK_0 = Totals(Decimal("164"), 1)
# Seconds 30-31: (0, 0) -> 35 x 65 / 100 = 22.75; (90, 86) -> 125 x 151 / 100 = 188.75
CHUNK_1 = Totals(Decimal("211.5"), 31)
# Second 60: (1, 1) -> 36 x 66 / 100 = 23.76
CHUNK_2 = Totals(Decimal("23.76"), 60)
NOTHING = Totals(Decimal(0), None)


def test_the_newest_chunk_read_on_the_done_ones_the_entry_holds_writes_nothing():
    decision = rule.live_totals({0: CHUNK_0, 1: CHUNK_1}, {2: CHUNK_2})
    assert decision == rule.LiveTotals({0: CHUNK_0, 1: CHUNK_1, 2: CHUNK_2}, {})
    # the score the board shows: 164 + 211.5 + 23.76
    assert sum(points for points, _ in decision.chunks.values()) == Decimal("399.26")


def test_a_racer_first_chunk_is_the_newest_and_nothing_is_written():
    assert rule.live_totals({}, {0: CHUNK_0}) == rule.LiveTotals({0: CHUNK_0}, {})


def test_a_chunk_done_is_written_once_the_next_one_starts():
    assert rule.live_totals({}, {0: CHUNK_0, 1: CHUNK_1}) == rule.LiveTotals({0: CHUNK_0, 1: CHUNK_1}, {0: CHUNK_0})


def test_the_next_chunk_alone_asks_for_every_chunk_then_writes_the_done_one():
    # The entry holds no chunk yet and the batch read only chunk 1: chunk 0 is unknown
    assert rule.live_totals({}, {1: CHUNK_1}) == rule.READ_EVERY_CHUNK
    assert rule.live_totals({}, {1: CHUNK_1}, {0: CHUNK_0, 1: CHUNK_1}) == rule.LiveTotals(
        {0: CHUNK_0, 1: CHUNK_1}, {0: CHUNK_0})


def test_late_seconds_of_a_done_chunk_ask_for_every_chunk_and_write_that_chunk_alone():
    # Chunk 0 was done at 100 (second 0 alone); second 1 (64) arrived late. The entry says chunk 2 is the
    # newest, which the batch did not read.
    stored = {0: Totals(Decimal(100), 0), 1: CHUNK_1}
    assert rule.live_totals(stored, {0: CHUNK_0}) == rule.READ_EVERY_CHUNK
    decision = rule.live_totals(stored, {0: CHUNK_0}, {0: CHUNK_0, 1: CHUNK_1, 2: CHUNK_2})
    assert decision == rule.LiveTotals({0: CHUNK_0, 1: CHUNK_1, 2: CHUNK_2}, {0: CHUNK_0})


def test_an_entry_behind_the_racers_chunks_takes_the_newest_from_every_chunk():
    # The entry holds chunk 0 alone (the records of chunks 1 and 2 not processed yet); late seconds of chunk 0
    stored = {0: Totals(Decimal(100), 0)}
    assert rule.live_totals(stored, {0: CHUNK_0}) == rule.READ_EVERY_CHUNK
    decision = rule.live_totals(stored, {0: CHUNK_0}, {0: CHUNK_0, 1: CHUNK_1, 2: CHUNK_2})
    assert decision == rule.LiveTotals({0: CHUNK_0, 1: CHUNK_1, 2: CHUNK_2}, {0: CHUNK_0, 1: CHUNK_1})


def test_a_chunk_with_no_second_counts_nothing_and_is_written_as_such():
    # The racer rode seconds 0-1 and 60, none in chunk 1
    decision = rule.live_totals({}, {2: CHUNK_2}, {0: CHUNK_0, 2: CHUNK_2})
    assert decision == rule.LiveTotals({0: CHUNK_0, 1: NOTHING, 2: CHUNK_2}, {0: CHUNK_0, 1: NOTHING})


def test_a_stored_total_that_differs_from_the_chunk_read_now_is_rewritten():
    stored = {0: Totals(Decimal(100), 0)}
    assert rule.live_totals(stored, {0: CHUNK_0, 1: CHUNK_1}) == rule.LiveTotals(
        {0: CHUNK_0, 1: CHUNK_1}, {0: CHUNK_0})


def test_a_sealed_chunk_leaves_the_entry_to_settlement():
    assert rule.live_totals({0: CHUNK_0}, {1: None}) == rule.SEALED
    assert rule.live_totals({0: CHUNK_0}, {1: CHUNK_1, 2: None}) == rule.SEALED
    assert rule.live_totals({}, {1: CHUNK_1}, {0: None, 1: CHUNK_1}) == rule.SEALED


# --- the flow: stream.scoring.live_totals reads and writes through the racer's partition ----------------

class Partition:
    """The racer's partition as ``storage.racers`` shows it to scoring, and the requests made of it."""

    def __init__(self, chunks, written=True):
        self.chunks, self.written, self.requests = chunks, written, []

    def chunks_of(self, race_id, racer_id):
        self.requests.append(("chunks_of", race_id, racer_id))
        return self.chunks

    def set_entry_chunks(self, race_id, racer_id, totals):
        self.requests.append(("set_entry_chunks", race_id, racer_id, totals))
        return e.Entry(race_id, racer_id, "Ann", CLASS, "2026-11-22T10:00:00Z", raceStatus=e.FINISHED), self.written


def entry(chunks=None):
    return e.Entry(RACE, RACER, "Ann", CLASS, "2026-11-22T10:00:00Z", chunks=chunks or {})


def chunk(number, samples, sealed=None):
    points = sum((sample.output for sample in samples.values()),
                 Decimal(0))
    return e.Chunk(RACE, RACER, number, CLASS, points, samples, sealed)


def test_late_seconds_are_scored_from_every_chunk_read_once_and_the_done_chunk_written_once(monkeypatch):
    first = chunk(0, {0: Sample(65, 35), 1: Sample(45, 15)})
    second = chunk(1, {30: Sample(0, 0), 31: Sample(90, 86)})
    newest = chunk(2, {60: Sample(1, 1)})
    partition = Partition([first, second, newest])
    monkeypatch.setattr(scoring, "racers", partition)
    # The entry holds chunks 0 (second 0 alone) and 1; a batch brought second 1, late
    scored = scoring.live_totals(entry({"0": Totals(Decimal(100), 0), "1": CHUNK_1}), {0: first})
    assert partition.requests == [("chunks_of", RACE, RACER), ("set_entry_chunks", RACE, RACER, {0: CHUNK_0})]
    assert scored.score == Decimal("399.26") and scored.lastSecond == 60
    assert scored.chunks == {"0": CHUNK_0, "1": CHUNK_1, "2": CHUNK_2}


def test_a_packed_part_or_a_sealed_chunk_read_leaves_the_entry_to_settlement(monkeypatch):
    packed = e.PackedChunk(RACE, RACER, 0, CLASS, {0: Sample(65, 35)})
    live = chunk(1, {30: Sample(0, 0)})
    for every in ([live, packed], [chunk(0, {}, sealed=1), live]):
        partition = Partition(every)
        monkeypatch.setattr(scoring, "racers", partition)
        assert scoring.live_totals(entry(), {1: live}) is None
        assert partition.requests == [("chunks_of", RACE, RACER)]
    assert scoring.live_totals(entry(), {1: chunk(1, {}, sealed=1)}) is None


def test_an_entry_ranked_before_its_totals_were_written_is_given_back_as_stored(monkeypatch):
    partition = Partition([], written=False)
    monkeypatch.setattr(scoring, "racers", partition)
    scored = scoring.live_totals(entry(), {0: chunk(0, {0: Sample(65, 35)}), 1: chunk(1, {30: Sample(0, 0)})})
    assert partition.requests == [("set_entry_chunks", RACE, RACER, {0: Totals(Decimal(100), 0)})]
    assert scored.raceStatus == e.FINISHED


def test_no_chunk_read_leaves_the_entrys_next_chunk_unknown():
    # The entry holds chunk 0 done; nothing read now: chunk 1 is the newest and unknown.
    assert rule.live_totals({0: CHUNK_0}, {}) == rule.READ_EVERY_CHUNK
    assert rule.live_totals({0: CHUNK_0}, {}, {0: CHUNK_0, 1: CHUNK_1}) == rule.LiveTotals({0: CHUNK_0, 1: CHUNK_1}, {})
