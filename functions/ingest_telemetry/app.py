"""The telemetry log's consumer: each Kinesis record the telemetry rule put (a bike's MQTT message) counted
as ``POST /races/{raceId}/telemetry`` counts a racer's own batch (``alleycat.edge.mqtt.ingest``).

The clock is the record's: the rules engine's time of arrival, so a batch read late or sent again judges
"not yet" as when the message arrived, and counts what it counted the first time (first value wins).
A record that counts nothing (not telemetry, a race unknown or finished, seconds not yet or not joined)
is dropped and logged, never retried; a throttle or a DynamoDB error fails the record, and Lambda retries
from the first failed one (``ReportBatchItemFailures``), which counts nothing twice.

With the fan-in on (``alleycat.settings.FAN_IN``) the batch is counted whole, a race at a time
(``flows.telemetry.ingest_log``: one block update a (slice, second), one board write a slice): a DynamoDB
error fails the batch from its first record, and the retry counts nothing twice.
"""

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.kinesis_stream_event import KinesisStreamRecord

from alleycat import settings
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


def fanned_in(records: list[dict]) -> dict:
    """The batch's messages counted a race at a time through the blocks; the whole batch failed on an error."""
    from alleycat.flows import telemetry

    by_race: dict[str, list[telemetry.LogMessage]] = {}
    for raw in records:
        record = KinesisStreamRecord(raw)
        try:
            topic, payload, arrival = mqtt.decode(record.kinesis.data_as_bytes())
            race_id, racer_id, samples, device = mqtt.parse(topic, payload)
        except mqtt.Dropped as error:
            logger.info("telemetry record dropped", extra={"sequenceNumber": record.kinesis.sequence_number,
                                                           "reason": str(error)})
            count("MessagesDropped", 1)
            continue
        by_race.setdefault(race_id, []).append(
            telemetry.LogMessage(racer_id, samples, device, arrival, record.kinesis.sequence_number))
    lane = records[0]["eventID"].rsplit(":", 1)[0] if records else ""
    try:
        for race_id, messages in by_race.items():
            telemetry.ingest_log(race_id, messages, lane)
    except Exception:  # noqa: BLE001 - the whole batch again: its counts are idempotent
        logger.exception("telemetry batch failed: sent again from its first record")
        return {"batchItemFailures": [{"itemIdentifier": records[0]["kinesis"]["sequenceNumber"]}]}
    return {"batchItemFailures": []}


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    if settings.load().fan_in:
        return fanned_in(event["Records"])
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
