"""Bikes' telemetry over MQTT, after the publish: IoT Core's Basic Ingest -> the telemetry rule -> a Kinesis data
stream (partitioned, ordered) -> its consumer, ``functions/ingest_telemetry``.

The rule's SQL, the record it puts and its partition key are the layer's (``alleycat.edge.mqtt``), as the local
stack's broker puts the same record into its kinesalite (``local/kinesis.py``). Who may connect and publish is
the custom authorizer's (another construct); everything after the publish is here.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_iam as iam
from aws_cdk import aws_iot as iot
from aws_cdk import aws_kinesis as kinesis
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as sources
from constructs import Construct

from alleycat.edge import mqtt

from .failures import failure_queue, first_message_alarm
from .functions import Functions
from .settings import (
    INGEST_BATCH_SIZE,
    INGEST_BATCHING_WINDOW_SECONDS,
    INGEST_CONSUMER,
    INGEST_CONSUMER_ACTIONS,
    INGEST_PARALLELIZATION,
    INGEST_RETRIES,
    INGEST_SHARDS,
    memory_mb,
)

SQL_VERSION = "2016-03-23"
# A message older than this is no longer worth counting late: a race lasts an hour at most, and a board
# half a minute behind already alarms (below).
MAX_RECORD_AGE = Duration.hours(1)
RETENTION = Duration.hours(24)  # Kinesis's least (and cheapest): a day to mend a stuck consumer
ITERATOR_AGE_LIMIT = Duration.seconds(30)
CONSUMER_TIMEOUT = Duration.minutes(1)  # a full batch (1,000 messages) takes well under a second of CPU


class IngestLog(Construct):
    """The stream, the rule that fills it, the consumer that reads it and what watches them. ``topic``: GET
    /config.json's ``ingest.topic`` (the rule's Basic Ingest topic)."""

    def __init__(self, scope: Construct, id: str, *, functions: Functions, removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        self.stream = kinesis.Stream(self, "Log", shard_count=INGEST_SHARDS, stream_mode=kinesis.StreamMode.PROVISIONED,
                                     encryption=kinesis.StreamEncryption.MANAGED, retention_period=RETENTION,
                                     removal_policy=removal_policy)
        self.failures = failure_queue(self, "Failures", removal_policy=removal_policy,
                                      holds="the telemetry log (its rule's failed puts, its consumer's records given up)")
        self.rule = self._rule()
        self.topic = mqtt.basic_ingest_topic(self.rule.ref)  # Ref: the rule's name
        self.function = functions.add(INGEST_CONSUMER, "Telemetry log: bikes' MQTT messages, counted",
                                      INGEST_CONSUMER_ACTIONS, timeout=CONSUMER_TIMEOUT,
                                      memory_size=memory_mb(INGEST_CONSUMER))
        self.function.add_event_source(sources.KinesisEventSource(
            self.stream,
            starting_position=lambda_.StartingPosition.TRIM_HORIZON,
            batch_size=INGEST_BATCH_SIZE,
            max_batching_window=Duration.seconds(INGEST_BATCHING_WINDOW_SECONDS),
            parallelization_factor=INGEST_PARALLELIZATION,
            report_batch_item_failures=True,
            bisect_batch_on_error=True,
            retry_attempts=INGEST_RETRIES,
            max_record_age=MAX_RECORD_AGE,
            on_failure=sources.SqsDlq(self.failures),
        ))
        self.iterator_age = self.function.metric("IteratorAge", statistic="Maximum", period=Duration.minutes(1))
        self.alarms = [
            first_message_alarm(self, "FailuresAlarm", self.failures,
                                "Telemetry messages the log's rule could not put, or its consumer gave up on, are "
                                "waiting in the failure queue"),
            cloudwatch.Alarm(
                self, "IteratorAgeAlarm",
                alarm_description="The telemetry log's consumer is behind its stream: bikes' seconds reach the "
                                  "boards late",
                metric=self.iterator_age, threshold=ITERATOR_AGE_LIMIT.to_milliseconds(),
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
                evaluation_periods=2, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
            cloudwatch.Alarm(
                self, "WritesThrottledAlarm",
                alarm_description="The telemetry log refused puts (a shard's 1 MB/s or 1,000 records/s): add shards",
                metric=self.stream.metric_write_provisioned_throughput_exceeded(period=Duration.minutes(1),
                                                                                statistic="Sum"),
                threshold=1, evaluation_periods=1,
                comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING),
        ]

    def _rule(self) -> iot.CfnTopicRule:
        """The telemetry rule: each message to its Basic Ingest topic, one record into the stream (a role that
        may only put records there); a put that fails goes to the failure queue (a role that may only send there)."""
        puts = iam.Role(self, "RuleRole", assumed_by=iam.ServicePrincipal("iot.amazonaws.com"),
                        description="The telemetry rule: puts each bike's message into the telemetry log")
        puts.add_to_policy(iam.PolicyStatement(actions=["kinesis:PutRecord"], resources=[self.stream.stream_arn]))
        errors = iam.Role(self, "RuleErrorRole", assumed_by=iam.ServicePrincipal("iot.amazonaws.com"),
                          description="The telemetry rule's error action: a message it could not put, to the failure queue")
        errors.add_to_policy(iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[self.failures.queue_arn]))
        return iot.CfnTopicRule(self, "Rule", topic_rule_payload=iot.CfnTopicRule.TopicRulePayloadProperty(
            sql=mqtt.RULE_SQL, aws_iot_sql_version=SQL_VERSION, rule_disabled=False,
            description="Bikes' telemetry (Basic Ingest) into the telemetry log, one record a message",
            actions=[iot.CfnTopicRule.ActionProperty(kinesis=iot.CfnTopicRule.KinesisActionProperty(
                stream_name=self.stream.stream_name, partition_key=mqtt.PARTITION_KEY, role_arn=puts.role_arn))],
            error_action=iot.CfnTopicRule.ActionProperty(sqs=iot.CfnTopicRule.SqsActionProperty(
                queue_url=self.failures.queue_url, role_arn=errors.role_arn, use_base64=False))))
