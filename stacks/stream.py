"""The table's stream's two readers, each with a place for what fails: the stream processor, and the fan-in's
history writer (second blocks -> racers' history chunks). DynamoDB Streams serves a shard to at most two readers
at once ("Change data capture for DynamoDB Streams": "No more than two processes at most should be reading from
the same streams shard at the same time"; the Streams API's LimitExceededException: "More than 2 processes are
reading from the same streams shard at the same time"): these two are all it takes."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
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
    STREAM_PROCESSOR_CONCURRENCY,
    STREAM_RETRIES,
    memory_mb,
)

MAX_RECORD_AGE = Duration.hours(1)
# Live boards refresh every second: half a minute behind for two minutes running is a stuck shard.
ITERATOR_AGE_LIMIT = Duration.seconds(30)
# The history writer waits its window by design: two windows behind is a stuck shard.
HISTORY_AGE_LIMIT = Duration.seconds(2 * HISTORY_BATCHING_WINDOW_SECONDS + 30)


def read_stream(scope: Construct, function: lambda_.Function, table: dynamodb.ITable, types: tuple[str, ...], *,
                batch_size: int, window_seconds: int, retries: int, age_limit: Duration, removal_policy: RemovalPolicy,
                holds: str, gave_up: str, behind: str) -> tuple[sqs.Queue, cloudwatch.IMetric, list[cloudwatch.Alarm]]:
    """``function`` as a reader of the table's stream, its records of ``types`` alone (the others' derived writes stay
    out): its failure queue, its iterator age, and their alarms (the queue's first message; ``age_limit`` passed
    twice running)."""
    failures = failure_queue(scope, "Failures", removal_policy=removal_policy, holds=holds)
    function.add_event_source(sources.DynamoEventSource(
        table,
        starting_position=lambda_.StartingPosition.TRIM_HORIZON,
        batch_size=batch_size,
        max_batching_window=Duration.seconds(window_seconds),
        bisect_batch_on_error=True,
        retry_attempts=retries,
        max_record_age=MAX_RECORD_AGE,
        report_batch_item_failures=True,
        parallelization_factor=1,
        on_failure=sources.SqsDlq(failures),
        filters=[lambda_.FilterCriteria.filter({"dynamodb": {"NewImage": {"type": {"S": lambda_.FilterRule.or_(*types)}}}})],
    ))
    iterator_age = function.metric("IteratorAge", statistic="Maximum", period=Duration.minutes(1))
    alarms = [
        first_message_alarm(scope, "FailuresAlarm", failures, gave_up),
        cloudwatch.Alarm(scope, "IteratorAgeAlarm", alarm_description=behind, metric=iterator_age,
                         threshold=age_limit.to_milliseconds(),
                         comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                         evaluation_periods=2, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
    ]
    return failures, iterator_age, alarms


class StreamProcessor(Construct):
    def __init__(self, scope: Construct, id: str, *, table: dynamodb.ITable, functions: Functions,
                 removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.function = functions.add(STREAM_PROCESSOR, "Table stream: scores, boards, finished races",
                                      STREAM_PROCESSOR_ACTIONS, timeout=Duration.minutes(5),
                                      memory_size=memory_mb(STREAM_PROCESSOR))
        self.function.node.default_child.reserved_concurrent_executions = STREAM_PROCESSOR_CONCURRENCY
        self.failures, self.iterator_age, self.alarms = read_stream(
            self, self.function, table, STREAM_PROCESSOR_TYPES, batch_size=STREAM_BATCH_SIZE,
            window_seconds=STREAM_BATCHING_WINDOW_SECONDS, retries=STREAM_RETRIES, age_limit=ITERATOR_AGE_LIMIT,
            removal_policy=removal_policy, holds="the stream mapping",
            gave_up="Stream records the processor gave up on are waiting in the failure queue",
            behind="The stream processor is behind the table's stream (a stuck shard): "
                   "live race boards and results stop changing")
        self.failures_waiting = waiting(self.failures)


class HistoryWriter(Construct):
    """The second mapping of the table's stream: second blocks' records, batched over a window, to the history writer."""

    def __init__(self, scope: Construct, id: str, *, table: dynamodb.ITable, functions: Functions,
                 removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.function = functions.add(HISTORY_WRITER, "Table stream: second blocks into racers' history chunks",
                                      HISTORY_WRITER_ACTIONS, timeout=Duration.minutes(5),
                                      memory_size=memory_mb(HISTORY_WRITER))
        self.failures, self.iterator_age, self.alarms = read_stream(
            self, self.function, table, HISTORY_WRITER_TYPES, batch_size=HISTORY_BATCH_SIZE,
            window_seconds=HISTORY_BATCHING_WINDOW_SECONDS, retries=HISTORY_RETRIES, age_limit=HISTORY_AGE_LIMIT,
            removal_policy=removal_policy, holds="the history writer's mapping",
            gave_up="Second block records the history writer gave up on are waiting in the failure queue",
            behind="The history writer is behind the table's stream: open races' histories, results and live "
                   "reviews stop changing (boards and settlement do not depend on it)")
