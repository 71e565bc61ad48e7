"""Telemetry over MQTT's authentication in the template (stacks/ingest_auth.py): IoT Core's custom authorizer,
who may run its function and how often, what its policy may grant, and what GET /config.json tells a bike."""

from __future__ import annotations

import json

from alleycat import settings
from stacks.functions import logical_id
from stacks.ingest_auth import CUSTOM_RESOURCE_HANDLER
from stacks.settings import API_SCOPES, AUTHORIZER, AUTHORIZER_CONCURRENCY

from .conftest import of_type
from .test_security_review import rendered
from .test_stack import as_list, role_of, statements

FUNCTION = logical_id(AUTHORIZER)


def test_the_authorizer_runs_the_function_with_signing_off_and_is_active(resources):
    [(_, authorizer)] = of_type(resources, "AWS::IoT::Authorizer").items()
    assert authorizer["Properties"] == {"AuthorizerFunctionArn": {"Fn::GetAtt": [FUNCTION, "Arn"]},
                                        "SigningDisabled": True, "Status": "ACTIVE"}


def test_only_iot_may_invoke_the_function_and_only_through_the_stacks_authorizer(resources):
    [logical] = of_type(resources, "AWS::IoT::Authorizer")
    permissions = [p["Properties"] for p in of_type(resources, "AWS::Lambda::Permission").values()
                   if p["Properties"]["FunctionName"] == {"Fn::GetAtt": [FUNCTION, "Arn"]}]
    assert permissions == [{"Action": "lambda:InvokeFunction", "FunctionName": {"Fn::GetAtt": [FUNCTION, "Arn"]},
                            "Principal": "iot.amazonaws.com", "SourceAccount": {"Ref": "AWS::AccountId"},
                            "SourceArn": {"Fn::GetAtt": [logical, "Arn"]}}]


def test_anyone_can_make_it_run_so_its_concurrency_is_reserved_and_watched(resources):
    function = resources[FUNCTION]["Properties"]
    assert function["ReservedConcurrentExecutions"] == AUTHORIZER_CONCURRENCY
    assert 10 <= AUTHORIZER_CONCURRENCY <= 100  # a tenth of the account's default 1,000 at most
    assert function["Timeout"] <= 5 and function["LoggingConfig"]["LogGroup"]["Ref"] in resources
    watched = {alarm["Properties"]["MetricName"] for alarm in of_type(resources, "AWS::CloudWatch::Alarm").values()
               if alarm["Properties"].get("Dimensions") == [{"Name": "FunctionName", "Value": {"Ref": FUNCTION}}]}
    assert watched == {"Errors", "Throttles"}


def test_its_role_writes_its_logs_and_traces_only(resources):
    actions = sorted(action for statement in statements(resources, role_of(resources, AUTHORIZER))
                     for action in as_list(statement["Action"]))
    assert actions == ["logs:CreateLogStream", "logs:PutLogEvents", "xray:PutTelemetryRecords", "xray:PutTraceSegments"]


def test_the_function_checks_the_pools_access_tokens_and_grants_own_topics_only(resources):
    variables = resources[FUNCTION]["Properties"]["Environment"]["Variables"]
    [pool] = of_type(resources, "AWS::Cognito::UserPool")
    [client] = of_type(resources, "AWS::Cognito::UserPoolClient")
    assert variables[settings.INGEST_ISSUER] == {"Fn::GetAtt": [pool, "ProviderURL"]}
    assert variables[settings.INGEST_CLIENT_ID] == {"Ref": client}
    assert variables[settings.INGEST_SCOPES] == " ".join(API_SCOPES) and variables[settings.INGEST_USERNAME] == "alleycat"
    arn = "arn:<AWS::Partition>:iot:<AWS::Region>:<AWS::AccountId>:"
    [rule] = of_type(resources, "AWS::IoT::TopicRule")
    assert rendered(variables[settings.INGEST_TOPIC_ARN]) == f"{arn}topic/$aws/rules/<{rule}>/races/*/racers/{{racerId}}/telemetry"
    assert rendered(variables[settings.INGEST_CLIENT_ARN]) == f"{arn}client/{{clientId}}"


def test_the_endpoint_is_asked_at_deploy_with_describe_endpoint_alone(resources):
    [lookup] = of_type(resources, "Custom::AWS").values()
    for phase in ("Create", "Update"):
        call = json.loads(lookup["Properties"][phase])
        assert (call["service"], call["action"], call["parameters"]) == ("Iot", "describeEndpoint",
                                                                         {"endpointType": "iot:Data-ATS"})
    assert lookup["Properties"]["InstallLatestAwsSdk"] is False  # nothing downloaded at deploy
    [handler_role] = [k for k in of_type(resources, "AWS::IAM::Role") if k.startswith(CUSTOM_RESOURCE_HANDLER)]
    granted = [statement for policy in of_type(resources, "AWS::IAM::Policy").values()
               if {"Ref": handler_role} in policy["Properties"]["Roles"]
               for statement in policy["Properties"]["PolicyDocument"]["Statement"]]
    assert granted == [{"Action": "iot:DescribeEndpoint", "Effect": "Allow", "Resource": "*"}]
    [handler] = [k for k in of_type(resources, "AWS::Lambda::Function") if k.startswith(CUSTOM_RESOURCE_HANDLER)]
    assert resources[handler]["Properties"]["LoggingConfig"]["LogGroup"]["Ref"] in resources


def test_config_json_names_the_endpoint_the_authorizer_and_the_topic(resources):
    [deployment] = [r["Properties"] for r in of_type(resources, "Custom::CDKBucketDeployment").values()
                    if r["Properties"].get("DistributionPaths")]
    [lookup] = of_type(resources, "Custom::AWS")
    [authorizer] = of_type(resources, "AWS::IoT::Authorizer")
    markers = {marker: rendered(value) for found in deployment["SourceMarkers"] for marker, value in found.items()}
    assert f'"wss://<{lookup}.endpointAddress>/mqtt"' in markers.values()
    assert f'"alleycat?x-amz-customauthorizer-name=<{authorizer}>"' in markers.values()
