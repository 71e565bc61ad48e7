"""Where work that failed for good waits for a person: an SQS queue per source, alarmed on its first message."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from . import acknowledge, acknowledge_lint


def failure_queue(scope: Construct, id: str, *, removal_policy: RemovalPolicy, holds: str) -> sqs.Queue:
    """A queue that is itself a dead end (``holds`` says of what, for the reviewers' reasons)."""
    queue = sqs.Queue(scope, id, retention_period=Duration.days(14), enforce_ssl=True,
                      encryption=sqs.QueueEncryption.SQS_MANAGED, removal_policy=removal_policy)
    acknowledge(queue, "AwsSolutions-SQS3",
                f"This queue is itself the dead end of {holds}; it holds what exhausted its retries "
                "for a person to inspect.")
    acknowledge_lint(queue, "ES6000",
                     f"This queue is itself the dead end of {holds}: nothing consumes it automatically, so "
                     "no message can poison a consumer; a person reads and replays its messages, and a redrive "
                     "policy would only move the ones they viewed a few times into yet another queue. Its "
                     "alarm fires on its first message.")
    return queue


def waiting(queue: sqs.Queue) -> cloudwatch.IMetric:
    return queue.metric_approximate_number_of_messages_visible(period=Duration.minutes(1), statistic="Maximum")


def first_message_alarm(scope: Construct, id: str, queue: sqs.Queue, description: str) -> cloudwatch.Alarm:
    return cloudwatch.Alarm(scope, id, alarm_description=description, metric=waiting(queue), threshold=0,
                            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                            evaluation_periods=1, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING)
