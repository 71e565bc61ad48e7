"""The bench's capacity accounting (bench/ledger.py): write, index and read units, time and round trips."""

from types import SimpleNamespace

from bench.ledger import busy_seconds, index_writes, read_units, waves, write_units


def item(sk="HIST#r#a#000", pad=0, **extra):
    return {"PK": {"S": "RACER#a"}, "SK": {"S": sk}, "type": {"S": "Chunk"}, "pad": {"S": "x" * pad}, **extra}


def test_a_write_costs_the_larger_of_before_and_after_per_kb_doubled_in_a_transaction():
    assert write_units(item(pad=100), item(pad=1500)) == write_units(item(pad=1500), item(pad=100)) == 2
    assert write_units(None, item(pad=10)) == 1
    assert write_units(item(pad=1500), item(pad=1500), transactional=True) == 4


def test_the_index_is_written_once_per_projected_change_and_twice_when_its_key_changes():
    assert index_writes(item(points={"N": "1"}), item(points={"N": "2"})) == []  # not projected
    assert index_writes(None, item()) == [("HIST#r#a#000", 1)]
    assert index_writes(item(name={"S": "A"}), item(name={"S": "B"})) == [("HIST#r#a#000", 1)]
    assert index_writes(item(score={"N": "1"}), item(score={"N": "2"}), index_key=("PK", "score"),
                        projection=()) == [("RACER#a", 1), ("RACER#a", 1)]


def test_a_query_rounds_its_sum_but_gets_round_each_item():
    items = [item(pad=1500), item(pad=1500)]
    assert read_units(items, consistent=False, summed=True) == 0.5
    assert read_units(items, consistent=False, summed=False) == 1.0
    assert read_units(items, consistent=True, summed=False) == 2


def test_overlapping_requests_count_once_in_time_and_as_one_round_trip():
    assert busy_seconds([(0, 2), (1, 3), (5, 6)]) == 4
    call = lambda start, stop: SimpleNamespace(start=start, stop=stop)  # noqa: E731
    assert waves([]) == 0
    assert waves([call(0, 1), call(2, 3)]) == 2
    assert waves([call(0, 2), call(0.5, 1), call(1.5, 3), call(4, 5)]) == 2
