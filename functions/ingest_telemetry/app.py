"""The telemetry log's consumer: each Kinesis record the telemetry rule put (a bike's MQTT message) counted
as ``POST /races/{raceId}/telemetry`` counts a racer's own batch (``alleycat.edge.mqtt.ingest``).

The clock is the record's: the rules engine's time of arrival, so a batch read late or sent again judges
"not yet" as when the message arrived, and counts what it counted the first time (first value wins).
A record that counts nothing (not telemetry, a race unknown or finished, seconds not yet or not joined)
is dropped and logged, never retried; a throttle or a DynamoDB error fails the record, and Lambda retries
from the first failed one (``ReportBatchItemFailures``), which counts nothing twice.
"""

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.kinesis_stream_event import KinesisStreamRecord

from alleycat.edge import mqtt
from alleycat.observability import count, logger, metrics

processor = BatchProcessor(event_type=EventType.KinesisDataStreams)


def record_handler(record: KinesisStreamRecord) -> None:
    try:
        topic, payload, arrival = mqtt.decode(record.kinesis.data_as_bytes())
    except mqtt.Dropped as error:
        logger.info("telemetry record dropped", extra={"sequenceNumber": record.kinesis.sequence_number,
                                                       "reason": str(error)})
        count("MessagesDropped", 1)
        return
    if mqtt.ingest(topic, payload, arrival) is None:
        count("MessagesDropped", 1)


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
