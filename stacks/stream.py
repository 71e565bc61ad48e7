"""The stream processor: the table's stream -> the function, with a place for what fails."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from alleycat.routes import (STREAM_BATCH_SIZE, STREAM_BATCHING_WINDOW_SECONDS, STREAM_PROCESSOR,
                             STREAM_PROCESSOR_ACTIONS, STREAM_PROCESSOR_TYPES, STREAM_RETRIES, memory_mb)

from . import acknowledge, acknowledge_lint
from .functions import Functions

MAX_RECORD_AGE = Duration.hours(1)
# Live boards refresh every second: half a minute behind for two minutes running is a stuck shard.
ITERATOR_AGE_LIMIT = Duration.seconds(30)


class StreamProcessor(Construct):
    def __init__(self, scope: Construct, id: str, *, table: dynamodb.ITable, functions: Functions,
                 removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.function = functions.add(STREAM_PROCESSOR, "Table stream: scores, boards, finished races",
                                      STREAM_PROCESSOR_ACTIONS, timeout=Duration.minutes(5),
                                      memory_size=memory_mb(STREAM_PROCESSOR))
        self.failures = sqs.Queue(
            self, "Failures", retention_period=Duration.days(14), enforce_ssl=True,
            encryption=sqs.QueueEncryption.SQS_MANAGED, removal_policy=removal_policy)
        acknowledge(self.failures, "AwsSolutions-SQS3",
                    "This queue is itself the on-failure destination of the stream mapping; "
                    "it holds records that exhausted their retries for a person to inspect.")
        acknowledge_lint(self.failures, "ES6000",
                         "This queue is itself the dead end of the stream mapping: nothing consumes it "
                         "automatically, so no message can poison a consumer; a person reads and replays "
                         "its records, and a redrive policy would only move the ones they viewed a few "
                         "times into yet another queue. The failures alarm fires on its first message.")
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
        self.failures_waiting = self.failures.metric_approximate_number_of_messages_visible(
            period=Duration.minutes(1), statistic="Maximum")
        self.iterator_age = self.function.metric("IteratorAge", statistic="Maximum", period=Duration.minutes(1))
        self.alarms = [
            cloudwatch.Alarm(
                self, "FailuresAlarm",
                alarm_description="Stream records the processor gave up on are waiting in the failure queue",
                metric=self.failures_waiting,
                threshold=0, comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                evaluation_periods=1, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
            cloudwatch.Alarm(
                self, "IteratorAgeAlarm",
                alarm_description="The stream processor is behind the table's stream (a stuck shard): "
                                  "live race boards and results stop changing",
                metric=self.iterator_age,
                threshold=ITERATOR_AGE_LIMIT.to_milliseconds(),
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                evaluation_periods=2, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
        ]
