"""The telemetry log in the synthesized stack (stacks/ingest.py): the Kinesis stream, the Basic Ingest rule that
fills it with the layer's record, the consumer's mapping and least privilege, and what watches them."""

from __future__ import annotations

from alleycat.edge import mqtt
from stacks.functions import logical_id
from stacks.settings import (
    INGEST_BATCH_SIZE,
    INGEST_BATCHING_WINDOW_SECONDS,
    INGEST_CONSUMER,
    INGEST_CONSUMER_ACTIONS,
    INGEST_PARALLELIZATION,
    INGEST_RETRIES,
    INGEST_SHARDS,
)

from .conftest import of_type
from .test_stack import as_list, role_of, statements


def one(resources: dict, type_: str) -> tuple[str, dict]:
    [(key, resource)] = of_type(resources, type_).items()
    return key, resource["Properties"]


def role_statements(resources: dict, role: str) -> list[tuple[str, object]]:
    return [(action, statement["Resource"]) for statement in statements(resources, role)
            for action in as_list(statement["Action"])]


def test_the_stream_is_provisioned_encrypted_and_kept_a_day(resources):
    _, stream = one(resources, "AWS::Kinesis::Stream")
    assert stream["ShardCount"] == INGEST_SHARDS and stream["StreamModeDetails"] == {"StreamMode": "PROVISIONED"}
    assert stream["StreamEncryption"] == {"EncryptionType": "KMS", "KeyId": "alias/aws/kinesis"}
    assert stream["RetentionPeriodHours"] == 24


def test_the_rule_puts_the_layers_record_with_a_role_that_may_only_put_and_keeps_what_fails(resources):
    stream, _ = one(resources, "AWS::Kinesis::Stream")
    _, rule = one(resources, "AWS::IoT::TopicRule")
    payload = rule["TopicRulePayload"]
    assert (payload["Sql"], payload["AwsIotSqlVersion"], payload["RuleDisabled"]) == (mqtt.RULE_SQL, "2016-03-23", False)
    [action] = payload["Actions"]
    assert action["Kinesis"]["StreamName"] == {"Ref": stream} and action["Kinesis"]["PartitionKey"] == mqtt.PARTITION_KEY
    put_role = action["Kinesis"]["RoleArn"]["Fn::GetAtt"][0]
    assert role_statements(resources, put_role) == [("kinesis:PutRecord", {"Fn::GetAtt": [stream, "Arn"]})]
    assert resources[put_role]["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "iot.amazonaws.com"}
    error = payload["ErrorAction"]["Sqs"]
    queue = error["QueueUrl"]["Ref"]
    assert role_statements(resources, error["RoleArn"]["Fn::GetAtt"][0]) == [("sqs:SendMessage", {"Fn::GetAtt": [queue, "Arn"]})]


def test_the_topic_bikes_publish_to_is_the_rules_basic_ingest_topic(template_json):
    rule, _ = one(template_json["Resources"], "AWS::IoT::TopicRule")
    topic = template_json["Outputs"]["IngestTopic"]["Value"]
    assert topic == {"Fn::Join": ["", ["$aws/rules/", {"Ref": rule}, "/" + mqtt.RULE_TOPIC]]}


def test_the_consumers_mapping_reads_each_shard_in_order_fresh_retries_bisects_and_keeps_failures(resources):
    stream, _ = one(resources, "AWS::Kinesis::Stream")
    [mapping] = [mapping["Properties"] for mapping in of_type(resources, "AWS::Lambda::EventSourceMapping").values()
                 if mapping["Properties"]["FunctionName"] == {"Ref": logical_id(INGEST_CONSUMER)}]
    assert mapping["EventSourceArn"] == {"Fn::GetAtt": [stream, "Arn"]} and mapping["StartingPosition"] == "TRIM_HORIZON"
    assert (mapping["BatchSize"], mapping.get("MaximumBatchingWindowInSeconds", 0), mapping["ParallelizationFactor"]) == (
        INGEST_BATCH_SIZE, INGEST_BATCHING_WINDOW_SECONDS, INGEST_PARALLELIZATION)
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"] and mapping["BisectBatchOnFunctionError"] is True
    assert mapping["MaximumRetryAttempts"] == INGEST_RETRIES and mapping["MaximumRecordAgeInSeconds"] == 3600
    queue = mapping["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
    assert resources[queue]["Type"] == "AWS::SQS::Queue"
    rule_queue = one(resources, "AWS::IoT::TopicRule")[1]["TopicRulePayload"]["ErrorAction"]["Sqs"]["QueueUrl"]["Ref"]
    assert rule_queue == queue  # one dead end for the log, alarmed on its first message
    alarmed = [a["Properties"]["Dimensions"][0]["Value"] for a in of_type(resources, "AWS::CloudWatch::Alarm").values()
               if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"]
    assert {"Fn::GetAtt": [queue, "QueueName"]} in alarmed


def test_the_consumer_may_do_its_table_actions_read_its_stream_and_send_to_its_dead_end_only(resources):
    stream, _ = one(resources, "AWS::Kinesis::Stream")
    granted = role_statements(resources, role_of(resources, INGEST_CONSUMER))
    table = {action for action, resource in granted if action.startswith("dynamodb:")}
    assert table == set(INGEST_CONSUMER_ACTIONS)
    kinesis = {(action, str(resource)) for action, resource in granted if action.startswith("kinesis:")}
    assert kinesis and all(stream in resource for _, resource in kinesis), kinesis
    assert {action.split(":")[0] for action, _ in granted} <= {"dynamodb", "kinesis", "sqs", "logs", "xray"}
    assert all(resource == "*" for action, resource in granted if action.startswith("xray:"))


def test_the_log_is_watched_behind_its_stream_and_on_refused_puts(resources):
    stream, _ = one(resources, "AWS::Kinesis::Stream")
    metrics = {(a["Properties"]["Namespace"], a["Properties"]["MetricName"]): a["Properties"]
               for a in of_type(resources, "AWS::CloudWatch::Alarm").values() if "MetricName" in a["Properties"]}
    throttled = metrics["AWS/Kinesis", "WriteProvisionedThroughputExceeded"]
    assert throttled["Dimensions"] == [{"Name": "StreamName", "Value": {"Ref": stream}}]
    # (its consumer's iterator age: tests/infrastructure/test_security_review.py)
