"""The table's stream: updates entries and boards after telemetry, freezes finished races.

Records are planned one by one under Powertools' BatchProcessor (a record that cannot
be read is reported alone); the writes they ask for are then done per batch, and any
that fail report the first record behind them, so Lambda retries from there.
"""

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response

from alleycat.observability import count, logger, metrics
from alleycat.processing import Batch

processor = BatchProcessor(event_type=EventType.DynamoDBStreams)


@metrics.log_metrics
@logger.inject_lambda_context
def handler(event, context):
    batch = Batch()
    response = process_partial_response(event=event, record_handler=lambda record: batch.add(record.raw_event),
                                        processor=processor, context=context)
    failed = batch.apply()
    if failed:
        count("StreamWorkFailed", len(failed))
    reported = {f["itemIdentifier"] for f in response["batchItemFailures"]}
    response["batchItemFailures"] += [{"itemIdentifier": seq} for seq in failed if seq not in reported]
    return response
