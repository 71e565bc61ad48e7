"""The benchmark's capacity accounting (bench/ledger.py): write, index and read units."""

from bench.ledger import busy_seconds, index_writes, read_units, write_units


def item(sk="HIST#r#a#000", pad=0, **extra):
    return {"PK": {"S": "RACER#a"}, "SK": {"S": sk}, "type": {"S": "Chunk"}, "pad": {"S": "x" * pad}, **extra}


def test_an_update_costs_the_larger_of_before_and_after_per_kb():
    assert write_units(item(pad=100), item(pad=1500)) == 2
    assert write_units(item(pad=1500), item(pad=100)) == 2
    assert write_units(None, item(pad=10)) == 1


def test_a_transaction_doubles_the_units():
    assert write_units(item(pad=1500), item(pad=1500), transactional=True) == 4


def test_a_change_outside_the_projection_writes_no_index():
    assert index_writes(item(points={"N": "1"}), item(points={"N": "2"})) == []


def test_an_insert_or_a_projected_change_writes_the_index_once_in_the_sk_partition():
    assert index_writes(None, item()) == [("HIST#r#a#000", 1)]
    assert index_writes(item(name={"S": "A"}), item(name={"S": "B"})) == [("HIST#r#a#000", 1)]


def test_changing_an_index_key_writes_twice():
    before = item(score={"N": "1"})
    after = item(score={"N": "2"})
    assert index_writes(before, after, index_key=("PK", "score"), projection=()) == [("RACER#a", 1), ("RACER#a", 1)]


def test_a_query_rounds_its_sum_but_gets_round_each_item():
    items = [item(pad=1500), item(pad=1500)]
    assert read_units(items, consistent=False, summed=True) == 0.5
    assert read_units(items, consistent=False, summed=False) == 1.0
    assert read_units(items, consistent=True, summed=False) == 2


def test_overlapping_requests_count_once():
    assert busy_seconds([(0, 2), (1, 3), (5, 6)]) == 4
