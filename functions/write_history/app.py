"""The history writer: second blocks' records of the table's stream (a mapping of its own, filtered to them and
batched over a window) -> the racers' history chunks (``alleycat.stream.history_writer``). Work that fails
reports the first record behind it, so Lambda retries from there (``ReportBatchItemFailures``); the writes
take only absent seconds, so what a retry writes again changes nothing."""

from alleycat.observability import count, end_invocation, logger, metrics
from alleycat.stream import history_writer


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    failed = history_writer.write(event["Records"])
    if failed:
        count("HistoryWritesFailed", len(failed))
    end_invocation("batch", failed=bool(failed), error=bool(failed), records=len(event["Records"]),
                   failed_records=len(failed))
    return {"batchItemFailures": [{"itemIdentifier": sequence} for sequence in sorted(set(failed), key=int)]}
