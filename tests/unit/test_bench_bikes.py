"""What the bikes' replay counts: log lines as Lambda's level filter passes them, DynamoDB round trips."""

from types import SimpleNamespace

from bench.bikes import delivered, emf_metrics, waves

EMF = ('{"_aws":{"Timestamp":1,"CloudWatchMetrics":[{"Namespace":"Alleycat","Dimensions":[["service"]],'
       '"Metrics":[{"Name":"SamplesAccepted","Unit":"Count"}]}]},"service":"alleycat","SamplesAccepted":[3.0]}')


def test_lines_below_the_application_level_never_reach_cloudwatch():
    lines = ['{"level":"DEBUG","message":"x"}', '{"level":"INFO","message":"request"}', EMF, "plain text",
             '{"level":"WARNING","message":"refused"}']
    kept = delivered(lines, "INFO")
    # A DEBUG line is dropped; a JSON line without a level (EMF) and plain text count as INFO, as Lambda does
    assert [kind for kind, _ in kept] == ["log INFO", "metrics (EMF)", "text", "log WARNING"]
    assert sum(size for _, size in kept) == sum(len(line.encode()) for line in lines[1:])
    assert [kind for kind, _ in delivered(lines, "WARN")] == ["log WARNING"]


def test_each_distinct_metric_of_an_emf_line_is_a_custom_metric():
    assert emf_metrics(EMF) == ["Alleycat/SamplesAccepted [service]"]
    assert emf_metrics('{"level":"INFO"}') == []


def test_requests_in_flight_together_are_one_round_trip():
    call = lambda start, stop: SimpleNamespace(start=start, stop=stop)  # noqa: E731
    assert waves([]) == 0
    assert waves([call(0, 1), call(2, 3)]) == 2  # one after the other
    assert waves([call(0, 2), call(0.5, 1), call(1.5, 3), call(4, 5)]) == 2  # three overlapping, then one
