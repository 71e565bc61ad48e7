"""Compaction (``alleycat.stream.history.compact``) against a racer's history kept in memory: live chunks
packed into parts, sealed, and the entry's totals made those of the samples.

Outputs are worked out by hand from the contract's output = (cadence + 35) x (resistance + 65) / 100.
"""

from decimal import Decimal

import pytest

from alleycat.rules.samples import Sample, Totals
from alleycat.storage import entities as e
from alleycat.stream.history import compact

RACE, RACER, CLASS = "01JD5Z6Q8X0000000000000000", "ann", "hill-climb"
RACE_ITEM = e.Race(RACE, CLASS, "Hill climb", "2026-11-22T10:00:00Z", 3600, status=e.FINISHED)


class History:
    """A racer's chunks and entry totals in memory; ``landing``: samples that reach a live chunk right
    after each of the first reads (a racer's late post racing the compaction)."""

    def __init__(self, chunks, landing=()):
        self.chunks = {self._key(chunk): chunk for chunk in chunks}
        self.landing = list(landing)
        self.totals_written, self.replaced, self.reads = [], [], 0

    @staticmethod
    def _key(chunk):
        return ("live", chunk.chunk) if isinstance(chunk, e.Chunk) else ("packed", chunk.part)

    def chunks_of(self, race_id, racer_id):
        assert (race_id, racer_id) == (RACE, RACER)
        self.reads += 1
        read = [self.chunks[key] for key in sorted(self.chunks)]
        if self.landing:
            number, second, sample = self.landing.pop(0)
            held = self.chunks[("live", number)]
            self.chunks[("live", number)] = e.Chunk(RACE, RACER, number, CLASS, held.points + 1,
                                                    {**held.samples, second: sample})
        return read

    def set_entry_chunks(self, race_id, racer_id, totals, ranked_too=False):
        self.totals_written.append((totals, ranked_too))
        return None, True

    def replace_chunks(self, packed, live):
        if any(self.chunks[("live", chunk.chunk)] != chunk for chunk in live):
            return False  # a sample reached a chunk since it was read
        self.replaced.append(([(part.part, part.samples) for part in packed], [chunk.chunk for chunk in live]))
        for part in packed:
            self.chunks[("packed", part.part)] = part
        for chunk in live:
            self.chunks[("live", chunk.chunk)] = e.Chunk(RACE, RACER, chunk.chunk, CLASS, Decimal(0), {}, 1)
        return True


def live(number, samples, points=0):
    return e.Chunk(RACE, RACER, number, CLASS, Decimal(points), samples)


def entry(chunks=None):
    return e.Entry(RACE, RACER, "Ann", CLASS, "2026-11-22T10:00:00Z", raceStatus=e.FINISHED, chunks=chunks or {})


def test_live_chunks_are_packed_by_ten_minutes_sealed_and_the_totals_made_exact():
    # Second 0 (65, 35) -> 100; second 1 (45, 15) -> 64; second 31 (0, 0) -> 22.75; second 600 (90, 86) -> 188.75
    history = History([live(0, {0: Sample(65, 35), 1: Sample(45, 15)}), live(1, {31: Sample(0, 0)}), live(20, {600: Sample(90, 86)})])
    racer = entry({"0": Totals(Decimal(100), 0)})  # second 1 never reached the entry
    ride = compact(RACE_ITEM, racer, history=history)
    assert ride.changed is True
    assert ride.samples == {0: Sample(65, 35), 1: Sample(45, 15), 31: Sample(0, 0), 600: Sample(90, 86)}
    exact = {0: Totals(Decimal(164), 1), 1: Totals(Decimal("22.75"), 31), 20: Totals(Decimal("188.75"), 600)}
    assert history.totals_written == [(exact, True)]  # ranked or not, compaction owns the totals
    assert racer.chunks == {"0": exact[0], "1": exact[1], "20": exact[20]}
    assert racer.score == Decimal("375.5")  # 164 + 22.75 + 188.75
    assert history.replaced == [([(0, {0: Sample(65, 35), 1: Sample(45, 15), 31: Sample(0, 0)}), (1, {600: Sample(90, 86)})], [0, 1, 20])]


def test_exact_totals_are_not_written_again_and_a_packed_racer_is_left_alone():
    history = History([live(0, {0: Sample(65, 35)})])
    racer = entry({"0": Totals(Decimal(100), 0)})
    assert compact(RACE_ITEM, racer, history=history).changed is False
    assert history.totals_written == [] and len(history.replaced) == 1
    again = compact(RACE_ITEM, racer, history=history)  # nothing live: done before
    assert again.changed is False and len(history.replaced) == 1
    assert again.samples == {0: Sample(65, 35)}  # the ride read back from its packed part (a settlement run again)


def test_a_second_already_packed_keeps_its_packed_value():
    # A packed part holds second 2 at (65, 35) -> 100; a live copy of it at (0, 0) must not count
    packed = e.PackedChunk(RACE, RACER, 0, CLASS, {2: Sample(65, 35)})
    history = History([packed, live(0, {2: Sample(0, 0), 3: Sample(45, 15)})])
    racer = entry()
    ride = compact(RACE_ITEM, racer, history=history)
    assert ride.changed is True and ride.samples == {2: Sample(65, 35), 3: Sample(45, 15)}
    assert history.totals_written == [({0: Totals(Decimal(164), 3)}, True)]


def test_a_racer_without_samples_keeps_an_empty_history_and_no_totals():
    history = History([live(0, {})])
    assert compact(RACE_ITEM, entry(), history=history) == (({}), False)
    assert history.replaced == [([(0, {})], [0])] and history.totals_written == []


def test_a_sample_landing_while_compacting_is_packed_on_the_next_attempt():
    # Second 5 (1, 1) -> 23.76 reaches chunk 0 after the first read: sealing that read fails, the next packs it
    history = History([live(0, {0: Sample(65, 35)})], landing=[(0, 5, Sample(1, 1))])
    racer = entry()
    assert compact(RACE_ITEM, racer, history=history).changed is True
    assert history.reads == 2
    assert history.replaced == [([(0, {0: Sample(65, 35), 5: Sample(1, 1)})], [0])]
    assert racer.chunks == {"0": Totals(Decimal("123.76"), 5)}


def test_the_whole_ride_is_checked_before_its_chunks_are_sealed():
    seen = []
    history = History([live(0, {0: Sample(65, 35)}), live(1, {30: Sample(0, 0)})])
    compact(RACE_ITEM, entry(), lambda racer, samples: seen.append((dict(samples), len(history.replaced))), history)
    assert seen == [({0: Sample(65, 35), 30: Sample(0, 0)}, 0)]


def test_a_racer_who_never_stops_receiving_samples_fails_the_compaction():
    history = History([live(0, {0: Sample(65, 35)})], landing=[(0, 100 + second, Sample(1, 1)) for second in range(100)])
    with pytest.raises(RuntimeError, match="kept receiving samples"):
        compact(RACE_ITEM, entry(), history=history)
    assert history.replaced == [] and 1 < history.reads < 100
