"""What the bikes' replay counts of a handler's output: lines as Lambda's level filter passes them, metrics."""

from bench.bikes import delivered, emf_metrics

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
