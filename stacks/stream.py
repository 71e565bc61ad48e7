"""The table's stream's two readers, each with a place for what fails: the stream processor, and the fan-in's
history writer (second blocks -> racers' history chunks). DynamoDB Streams serves a shard to at most two readers
at once ("Change data capture for DynamoDB Streams": "No more than two processes at most should be reading from
the same streams shard at the same time"): these two are all it takes."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from constructs import Construct

from alleycat.storage.schema import HISTORY_WRITER_TYPES, STREAM_PROCESSOR_TYPES

from .failures import failure_queue, first_message_alarm, waiting
from .functions import Functions
from .settings import (
    HISTORY_BATCH_SIZE,
    HISTORY_BATCHING_WINDOW_SECONDS,
    HISTORY_RETRIES,
    HISTORY_WRITER,
    HISTORY_WRITER_ACTIONS,
    STREAM_BATCH_SIZE,
    STREAM_BATCHING_WINDOW_SECONDS,
    STREAM_PROCESSOR,
    STREAM_PROCESSOR_ACTIONS,
    STREAM_RETRIES,
    memory_mb,
)

MAX_RECORD_AGE = Duration.hours(1)
# Live boards refresh every second: half a minute behind for two minutes running is a stuck shard.
ITERATOR_AGE_LIMIT = Duration.seconds(30)
# The history writer waits its window by design: two windows behind is a stuck shard.
HISTORY_AGE_LIMIT = Duration.seconds(2 * HISTORY_BATCHING_WINDOW_SECONDS + 30)


class StreamProcessor(Construct):
    def __init__(self, scope: Construct, id: str, *, table: dynamodb.ITable, functions: Functions,
                 removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.function = functions.add(STREAM_PROCESSOR, "Table stream: scores, boards, finished races",
                                      STREAM_PROCESSOR_ACTIONS, timeout=Duration.minutes(5),
                                      memory_size=memory_mb(STREAM_PROCESSOR))
        self.failures = failure_queue(self, "Failures", removal_policy=removal_policy, holds="the stream mapping")
        self.function.add_event_source(sources.DynamoEventSource(
            table,
            starting_position=lambda_.StartingPosition.TRIM_HORIZON,
            batch_size=STREAM_BATCH_SIZE,
            max_batching_window=Duration.seconds(STREAM_BATCHING_WINDOW_SECONDS),
            bisect_batch_on_error=True,
            retry_attempts=STREAM_RETRIES,
            max_record_age=MAX_RECORD_AGE,
            report_batch_item_failures=True,
            parallelization_factor=1,
            on_failure=sources.SqsDlq(self.failures),
            # Only changes it acts on: its own derived writes (entries, boards, packed history) stay out.
            filters=[lambda_.FilterCriteria.filter(
                {"dynamodb": {"NewImage": {"type": {"S": lambda_.FilterRule.or_(*STREAM_PROCESSOR_TYPES)}}}})],
        ))
        self.failures_waiting = waiting(self.failures)
        self.iterator_age = self.function.metric("IteratorAge", statistic="Maximum", period=Duration.minutes(1))
        self.alarms = [
            first_message_alarm(self, "FailuresAlarm", self.failures,
                                "Stream records the processor gave up on are waiting in the failure queue"),
            cloudwatch.Alarm(
                self, "IteratorAgeAlarm",
                alarm_description="The stream processor is behind the table's stream (a stuck shard): "
                                  "live race boards and results stop changing",
                metric=self.iterator_age,
                threshold=ITERATOR_AGE_LIMIT.to_milliseconds(),
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                evaluation_periods=2, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
        ]


class HistoryWriter(Construct):
    """The second mapping of the table's stream: second blocks' records, batched over a window, to the history writer."""

    def __init__(self, scope: Construct, id: str, *, table: dynamodb.ITable, functions: Functions,
                 removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.function = functions.add(HISTORY_WRITER, "Table stream: second blocks into racers' history chunks",
                                      HISTORY_WRITER_ACTIONS, timeout=Duration.minutes(5),
                                      memory_size=memory_mb(HISTORY_WRITER))
        self.failures = failure_queue(self, "Failures", removal_policy=removal_policy, holds="the history writer's mapping")
        self.function.add_event_source(sources.DynamoEventSource(
            table,
            starting_position=lambda_.StartingPosition.TRIM_HORIZON,
            batch_size=HISTORY_BATCH_SIZE,
            max_batching_window=Duration.seconds(HISTORY_BATCHING_WINDOW_SECONDS),
            bisect_batch_on_error=True,
            retry_attempts=HISTORY_RETRIES,
            max_record_age=MAX_RECORD_AGE,
            report_batch_item_failures=True,
            parallelization_factor=1,
            on_failure=sources.SqsDlq(self.failures),
            filters=[lambda_.FilterCriteria.filter(
                {"dynamodb": {"NewImage": {"type": {"S": lambda_.FilterRule.or_(*HISTORY_WRITER_TYPES)}}}})],
        ))
        self.iterator_age = self.function.metric("IteratorAge", statistic="Maximum", period=Duration.minutes(1))
        self.alarms = [
            first_message_alarm(self, "FailuresAlarm", self.failures,
                                "Second block records the history writer gave up on are waiting in the failure queue"),
            cloudwatch.Alarm(
                self, "IteratorAgeAlarm",
                alarm_description="The history writer is behind the table's stream: open races' histories, results "
                                  "and live reviews stop changing (boards and settlement do not depend on it)",
                metric=self.iterator_age,
                threshold=HISTORY_AGE_LIMIT.to_milliseconds(),
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                evaluation_periods=2, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
        ]
