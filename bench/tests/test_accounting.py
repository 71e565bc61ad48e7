"""What the bench counts: capacity units (bench/ledger.py), time and round trips, and a handler's output as
Lambda's log-level filter passes it (bench/bikes.py)."""

from types import SimpleNamespace

from bench.bikes import delivered, emf_metrics
from bench.ledger import busy_seconds, index_writes, read_units, waves, write_units

EMF = ('{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"Alleycat","Dimensions":[["service"]],'
       '"Metrics":[{"Name":"SamplesAccepted","Unit":"Count"}]}]},"service":"alleycat","SamplesAccepted":[3.0]}')


def item(pad=0, **extra):
    return {"PK": {"S": "RACER#a"}, "SK": {"S": "HIST#r#a#000"}, "type": {"S": "Chunk"}, "pad": {"S": "x" * pad}, **extra}


def test_units_of_writes_index_writes_and_reads():
    # A write costs the larger of before and after per KB, doubled in a transaction
    assert write_units(item(pad=100), item(pad=1500)) == write_units(item(pad=1500), item(pad=100)) == 2
    assert write_units(None, item(pad=10)) == 1 and write_units(item(pad=1500), item(pad=1500), transactional=True) == 4
    # The inverted index is written only for a projected change, in the partition of the item's SK
    assert index_writes(item(points={"N": "1"}), item(points={"N": "2"})) == []
    assert index_writes(None, item()) == index_writes(item(name={"S": "A"}), item(name={"S": "B"})) == [("HIST#r#a#000", 1)]
    assert index_writes(item(name={"S": "x" * 1500}), None) == [("HIST#r#a#000", 2)]
    # A Query rounds its sum, a get each item; a consistent read costs twice
    items = [item(pad=1500), item(pad=1500)]
    assert [read_units(items, False, True), read_units(items, False, False), read_units(items, True, False)] == [0.5, 1, 2]


def test_overlapping_requests_count_once_in_time_and_as_one_round_trip():
    call = lambda start, stop: SimpleNamespace(start=start, stop=stop)
    assert busy_seconds([(0, 2), (1, 3), (5, 6)]) == 4
    assert [waves([]), waves([call(0, 1), call(2, 3)]), waves([call(0, 2), call(0.5, 1), call(1.5, 3), call(4, 5)])] \
        == [0, 2, 2]


def test_lines_below_the_application_level_never_reach_cloudwatch():
    lines = ['{"level":"DEBUG","message":"x"}', '{"level":"INFO","message":"request"}', EMF, "plain text",
             '{"level":"WARNING","message":"refused"}']
    kept = delivered(lines, "INFO")
    # A DEBUG line is dropped; a JSON line without a level (EMF) and plain text count as INFO, as Lambda does
    assert [kind for kind, _ in kept] == ["log INFO", "metrics (EMF)", "text", "log WARNING"]
    assert sum(size for _, size in kept) == sum(len(line.encode()) for line in lines[1:])
    assert [kind for kind, _ in delivered(lines, "WARN")] == ["log WARNING"]
    assert emf_metrics(EMF) == ["Alleycat/SamplesAccepted [service]"] and emf_metrics(lines[1]) == []
