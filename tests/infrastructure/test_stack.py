"""The synthesized Alleycat stack: table, one least-privilege function per route, the API."""

from __future__ import annotations

from pathlib import Path

import pytest
from aws_cdk.assertions import Match

from alleycat import schema
from alleycat.routes import QUERY, ROUTES, STREAM_PROCESSOR, STREAM_PROCESSOR_ACTIONS, STREAM_PROCESSOR_TYPES
from stacks import LINT_REASONS
from alleycat.routes import memory_mb
from stacks.functions import API_TIMEOUT_SECONDS, logical_id

from .conftest import of_type, synthesize

TABLE = "AWS::DynamoDB::Table"
FUNCTION = "AWS::Lambda::Function"


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def statements(resources: dict, role_logical_id: str) -> list[dict]:
    """Every statement of every IAM policy attached to the role."""
    return [statement
            for policy in of_type(resources, "AWS::IAM::Policy").values()
            if {"Ref": role_logical_id} in policy["Properties"]["Roles"]
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]]


def role_of(resources: dict, function: str) -> str:
    return resources[logical_id(function)]["Properties"]["Role"]["Fn::GetAtt"][0]


def methods_by_route(resources: dict) -> dict[tuple[str, str], dict]:
    """(HTTP method, path) -> method properties, walking each resource up to the API root."""
    api_resources = of_type(resources, "AWS::ApiGateway::Resource")

    def path(resource_id) -> str:
        if "Ref" not in resource_id:  # the RestApi's RootResourceId
            return ""
        props = api_resources[resource_id["Ref"]]["Properties"]
        return f"{path(props['ParentId'])}/{props['PathPart']}"

    return {(props["HttpMethod"], path(props["ResourceId"]) or "/"): props
            for props in (m["Properties"] for m in of_type(resources, "AWS::ApiGateway::Method").values())}


# --- the table -------------------------------------------------------------------------


def test_exactly_one_table(template):
    # Given the synthesized stack / When counting tables / Then there is a single table
    template.resource_count_is(TABLE, 1)


def test_table_keys_stream_billing_and_pitr(template):
    # Given the table / Then it is keyed PK/SK, on demand, streamed and point-in-time recoverable
    template.has_resource_properties(TABLE, {
        "KeySchema": [{"AttributeName": schema.PARTITION_KEY, "KeyType": "HASH"},
                      {"AttributeName": schema.SORT_KEY, "KeyType": "RANGE"}],
        "BillingMode": "PAY_PER_REQUEST",
        "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"},
        "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
    })


def test_table_has_the_inverted_index(template):
    # Given the table / Then its only GSI is the inverted one (SK HASH, PK RANGE) with INCLUDE projection
    template.has_resource_properties(TABLE, {"GlobalSecondaryIndexes": [{
        "IndexName": schema.INVERTED_INDEX,
        "KeySchema": [{"AttributeName": schema.SORT_KEY, "KeyType": "HASH"},
                      {"AttributeName": schema.PARTITION_KEY, "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "INCLUDE",
                       "NonKeyAttributes": list(schema.INVERTED_PROJECTION)},
    }]})


def test_table_is_retained_and_protected_by_default(template):
    # Given the default (non-throwaway) synth / Then the table survives stack deletion
    template.has_resource(TABLE, {"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
                                  "Properties": Match.object_like({"DeletionProtectionEnabled": True})})


def test_throwaway_context_relaxes_table_protection(tmp_path):
    # Given -c throwaway=true / When synthesizing / Then the table is deletable with the stack
    table = next(iter(of_type(synthesize(tmp_path, throwaway="true").template["Resources"], TABLE).values()))
    assert table["DeletionPolicy"] == "Delete"
    assert table["Properties"]["DeletionProtectionEnabled"] is False


# --- functions ---------------------------------------------------------------------------


def test_one_function_per_route_plus_the_stream_processor(resources):
    # Given the routes / When listing Lambda functions / Then each route has exactly one, named after it
    expected = {logical_id(route.function) for route in ROUTES} | {logical_id(STREAM_PROCESSOR)}
    # (besides the handler CDK adds for the site's BucketDeployment)
    ours = {key for key in of_type(resources, FUNCTION) if not key.startswith("CustomCDKBucketDeployment")}
    assert ours == expected


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_function_configuration(resources, route):
    # Given a route's function / Then it runs the shared runtime setup with both layers
    props = resources[logical_id(route.function)]["Properties"]
    assert props["Runtime"] == "python3.13"
    assert props["Architectures"] == ["arm64"]
    assert props["Handler"] == "app.handler"
    assert props["MemorySize"] == memory_mb(route.function) and props["Timeout"] == API_TIMEOUT_SECONDS
    assert props["TracingConfig"] == {"Mode": "Active"}
    assert len(props["Layers"]) == 2  # shared code and dependencies, both built from this repository
    assert all(resources[layer["Ref"]]["Type"] == "AWS::Lambda::LayerVersion" for layer in props["Layers"])
    assert props["LoggingConfig"]["LogGroup"]["Ref"] in resources  # its own, explicit log group
    assert set(props["Environment"]["Variables"]) >= {
        "TABLE_NAME", "POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "LOG_LEVEL"}


def test_every_function_has_its_own_role(resources):
    # Given all functions / When collecting their roles / Then no two share one
    names = [route.function for route in ROUTES] + [STREAM_PROCESSOR]
    assert len({role_of(resources, name) for name in names}) == len(names)


def test_stream_processor_mapping_retries_bisects_and_keeps_failures(resources, template):
    # Given the stream processor / Then its mapping reports partial failures and has a dead end
    mapping = next(iter(of_type(resources, "AWS::Lambda::EventSourceMapping").values()))["Properties"]
    assert mapping["FunctionName"] == {"Ref": logical_id(STREAM_PROCESSOR)}
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["BisectBatchOnFunctionError"] is True
    pattern = mapping["FilterCriteria"]["Filters"][0]["Pattern"]
    for item_type in STREAM_PROCESSOR_TYPES:
        assert item_type in pattern
    assert 0 < mapping["MaximumRetryAttempts"] <= 10 and mapping["MaximumRecordAgeInSeconds"] > 0
    queue = mapping["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
    assert resources[queue]["Type"] == "AWS::SQS::Queue"
    [alarm] = [a["Properties"] for a in of_type(resources, "AWS::CloudWatch::Alarm").values()
               if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"]
    assert alarm["Dimensions"][0]["Value"] == {"Fn::GetAtt": [queue, "QueueName"]}


def test_stream_processor_gets_only_its_table_actions(resources):
    table_actions = set()
    for statement in statements(resources, role_of(resources, STREAM_PROCESSOR)):
        for action in as_list(statement["Action"]):
            if action.startswith("dynamodb:") and statement["Resource"] != "*" and "StreamArn" not in str(statement):
                table_actions.add(action)
    assert table_actions == set(STREAM_PROCESSOR_ACTIONS)


def test_function_roles_use_no_managed_policies(resources):
    # Given the function roles / Then permissions come only from their own inline policy
    for route in ROUTES:
        role = resources[role_of(resources, route.function)]["Properties"]
        assert "ManagedPolicyArns" not in role
        assert role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
            "Service": "lambda.amazonaws.com"}


def test_no_policy_grants_scan_or_dynamodb_wildcard(resources):
    # Given every IAM policy in the stack / Then none allows Scan or dynamodb:*
    actions = {action
               for policy in of_type(resources, "AWS::IAM::Policy").values()
               for statement in policy["Properties"]["PolicyDocument"]["Statement"]
               for action in as_list(statement["Action"])}
    assert "dynamodb:Scan" not in actions
    assert "dynamodb:*" not in actions


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_function_gets_exactly_its_routes_dynamodb_actions(resources, route):
    # Given a route's function / When collecting the DynamoDB actions its role allows
    granted = {action
               for statement in statements(resources, role_of(resources, route.function))
               for action in as_list(statement["Action"]) if action.startswith("dynamodb:")}
    # Then they are exactly the actions the route declares
    assert granted == set(route.actions)


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_only_query_reaches_the_index(resources, route):
    # Given a route's function / When looking at statements on the inverted index
    on_index = [statement for statement in statements(resources, role_of(resources, route.function))
                if f"/index/{schema.INVERTED_INDEX}" in str(statement["Resource"])]
    # Then only Query is allowed there, and only for routes that query
    assert {a for s in on_index for a in as_list(s["Action"])} == ({QUERY} & set(route.actions))


# --- the API ------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_route_method_exists_and_invokes_its_function(resources, route):
    # Given the REST API / When looking up the route's method
    method = methods_by_route(resources).get((route.method, route.path))
    # Then it exists and proxies to the route's own function
    assert method is not None, f"{route.method} {route.path} missing"
    assert method["Integration"]["Type"] == "AWS_PROXY"
    assert logical_id(route.function) in str(method["Integration"]["Uri"])


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_route_authorization_matches_its_auth(resources, route):
    # Given the route's method / Then protected routes require Cognito and public ones nothing
    method = methods_by_route(resources)[(route.method, route.path)]
    if route.protected:
        assert method["AuthorizationType"] == "COGNITO_USER_POOLS"
        assert "AuthorizerId" in method
    else:
        assert method["AuthorizationType"] == "NONE"


def test_stage_is_throttled_logged_and_traced(template):
    # Given the prod stage / Then it has tracing, access logs, execution logs, metrics and throttling
    template.has_resource_properties("AWS::ApiGateway::Stage", {
        "StageName": "prod",
        "TracingEnabled": True,
        "AccessLogSetting": Match.object_like({"DestinationArn": Match.any_value()}),
        "MethodSettings": [Match.object_like({
            "LoggingLevel": "INFO", "MetricsEnabled": True, "DataTraceEnabled": False,
            "ThrottlingRateLimit": 1000, "ThrottlingBurstLimit": 2000})],
    })


def test_user_pool_is_admin_managed_with_an_admin_group(template):
    # Given the Cognito resources / Then sign-up is closed, TOTP required, and "admin" exists
    template.has_resource_properties("AWS::Cognito::UserPool", {
        "AdminCreateUserConfig": {"AllowAdminCreateUserOnly": True},
        "MfaConfiguration": "ON",
        "EnabledMfas": ["SOFTWARE_TOKEN_MFA"],
    })
    template.has_resource_properties("AWS::Cognito::UserPoolGroup", {"GroupName": "admin"})


def test_outputs(template_json):
    # Given the stack / Then clients can find the API, the user pool and the table
    assert set(template_json["Outputs"]) == {"ApiUrl", "UserPoolId", "UserPoolClientId", "TableName",
                                             "StreamFailureQueueUrl", "SiteUrl", "AlarmTopicArn"}


# --- the frontend site ------------------------------------------------------------------------


def distribution_of(resources: dict) -> tuple[str, dict]:
    [(logical, distribution)] = of_type(resources, "AWS::CloudFront::Distribution").items()
    return logical, distribution["Properties"]["DistributionConfig"]


def test_site_buckets_are_private_encrypted_and_tls_only(resources):
    # Given every bucket in the stack (the site and its access logs)
    buckets = of_type(resources, "AWS::S3::Bucket")
    assert len(buckets) == 2
    for logical, bucket in buckets.items():
        props = bucket["Properties"]
        # Then public access is blocked entirely and objects are encrypted at rest
        assert props["PublicAccessBlockConfiguration"] == {
            "BlockPublicAcls": True, "BlockPublicPolicy": True,
            "IgnorePublicAcls": True, "RestrictPublicBuckets": True}
        assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"]
        # And its policy denies every request not made over TLS
        policies = [p["Properties"]["PolicyDocument"]["Statement"]
                    for p in of_type(resources, "AWS::S3::BucketPolicy").values()
                    if p["Properties"]["Bucket"] == {"Ref": logical}]
        assert any(s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
                   for statements_ in policies for s in statements_)


def test_distribution_reads_the_bucket_through_origin_access_control(resources):
    # Given the distribution / Then its only origin is the site bucket, signed with an OAC
    _, config = distribution_of(resources)
    [origin] = config["Origins"]
    oac = origin["OriginAccessControlId"]["Fn::GetAtt"][0]
    assert resources[oac]["Type"] == "AWS::CloudFront::OriginAccessControl"
    assert origin["S3OriginConfig"] == {"OriginAccessIdentity": ""}  # no legacy OAI
    assert config["DefaultRootObject"] == "index.html"
    assert config["DefaultCacheBehavior"]["ViewerProtocolPolicy"] == "redirect-to-https"
    assert config["Logging"]["Bucket"]


def test_site_bucket_policy_admits_only_cloudfront(resources):
    # Given the site bucket's policy / Then reads are granted to CloudFront for this distribution only
    logical, _ = distribution_of(resources)
    allows = [s for p in of_type(resources, "AWS::S3::BucketPolicy").values()
              for s in p["Properties"]["PolicyDocument"]["Statement"] if s["Effect"] == "Allow"]
    reads = [s for s in allows if "s3:GetObject" in as_list(s["Action"])]
    assert reads and all(s["Principal"] == {"Service": "cloudfront.amazonaws.com"} for s in reads)
    assert all(logical in str(s["Condition"]) for s in reads)


def test_frontend_and_config_are_deployed_to_the_bucket(resources):
    # Given the BucketDeployment custom resource
    [deployment] = of_type(resources, "Custom::CDKBucketDeployment").values()
    props = deployment["Properties"]
    # Then it fills the site bucket from two sources (dist and config.json) and invalidates the CDN
    assert props["DestinationBucketName"] == {"Ref": next(
        k for k in of_type(resources, "AWS::S3::Bucket") if k.startswith("SiteBucket"))}
    assert len(props["SourceObjectKeys"]) == 2
    assert props["DistributionId"] == {"Ref": distribution_of(resources)[0]}
    # And config.json carries the API's URL
    assert "RestApi" in str(props["SourceMarkers"])


def test_cors_is_restricted_to_the_site_origin(resources):
    # Given the functions and the API's preflight responses
    logical, _ = distribution_of(resources)
    origin = {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [logical, "DomainName"]}]]}
    # Then every route's function allows only the site's origin
    for route in ROUTES:
        assert resources[logical_id(route.function)]["Properties"]["Environment"]["Variables"][
            "ALLOWED_ORIGIN"] == origin
    # And no OPTIONS method answers with a wildcard origin
    options = [m["Properties"] for m in of_type(resources, "AWS::ApiGateway::Method").values()
               if m["Properties"]["HttpMethod"] == "OPTIONS"]
    assert options and "'*'" not in str(options)
    assert all("https://" in str(m["Integration"]["IntegrationResponses"]) for m in options)


def test_site_url_output_is_the_distribution(template_json, resources):
    logical, _ = distribution_of(resources)
    assert logical in str(template_json["Outputs"]["SiteUrl"]["Value"])


# --- checks on the whole synth --------------------------------------------------------------


def test_cdk_nag_passes_and_every_acknowledgment_has_a_reason(stack_artifact, metadata):
    # Given the app synthesized with the AwsSolutions plugin (an unacknowledged finding raises)
    assert stack_artifact.template["Resources"]
    # When collecting the acknowledgments recorded in the cloud assembly
    acknowledged = {rule: reason
                    for entries in metadata.values() for entry in entries
                    if entry["type"] == "aws:cdk:acknowledged-rules"
                    for rule, reason in entry["data"].items()}
    # Then every one of them carries a real reason
    assert acknowledged
    assert all(len(reason.split()) >= 5 for reason in acknowledged.values()), acknowledged


def test_cfn_lint_with_the_serverless_rules_reports_no_errors(template_path):
    # Given the synthesized template / When cfn-lint checks it, with cfn-lint-serverless's rules too
    from cfnlint.api import ManualArgs, lint_file
    matches = lint_file(Path(template_path), ManualArgs(append_rules=["cfn_lint_serverless.rules"]))
    # Then the serverless rules ran (they warn about CDK's own deployment handler)
    assert any(match.rule.id.startswith("WS") for match in matches)
    # And there are no errors, cfn-lint's (E) or the serverless rules' (ES); warnings are acceptable
    errors = [str(match) for match in matches if match.rule.id.startswith("E")]
    assert not errors, "\n".join(errors)


def test_every_cfn_lint_acknowledgment_has_a_reason(resources):
    # Given the resources that tell cfn-lint to ignore a rule
    ignored = {(logical, rule): resource["Metadata"].get(LINT_REASONS, {}).get(rule, "")
               for logical, resource in resources.items()
               for rule in resource.get("Metadata", {}).get("cfn-lint", {}).get("config", {}).get("ignore_checks", [])}
    # Then each ignored rule carries a reason beside it
    assert ignored
    assert all(len(reason.split()) >= 5 for reason in ignored.values()), ignored
