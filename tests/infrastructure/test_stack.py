"""The synthesized Alleycat stack: table, one least-privilege function per route, the HTTP API, the edge."""

from __future__ import annotations

import json
import re
import subprocess
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from aws_cdk import App, Stack, assertions
from aws_cdk.assertions import Match

from alleycat.edge.routes import QUERY, ROUTES
from alleycat.storage import schema
from alleycat.storage.schema import HISTORY_WRITER_TYPES, STREAM_PROCESSOR_TYPES
from local.kinesis import node
from stacks import LINT_REASONS, headers
from stacks.api import ADMIN_WRITES, RACERS, TELEMETRY_SAMPLING, throttle
from stacks.app import is_throwaway
from stacks.functions import API_TIMEOUT_SECONDS, PASS_THROUGH_TRACING, logical_id
from stacks.ingest_auth import CUSTOM_RESOURCE_HANDLER
from stacks.settings import (
    HISTORY_BATCHING_WINDOW_SECONDS,
    HISTORY_WRITER,
    HISTORY_WRITER_ACTIONS,
    LOG_SAMPLE_RATE,
    NOT_ROUTES,
    STREAM_BATCHING_WINDOW_SECONDS,
    STREAM_PROCESSOR,
    STREAM_PROCESSOR_ACTIONS,
    memory_mb,
)
from stacks.site import DIST_DIR as DIST
from stacks.site import UNCACHED_ERRORS
from stacks.table import AlleycatTable

from .conftest import of_type

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


def routes_by_key(resources: dict) -> dict[str, dict]:
    """Route key (``PUT /racers/{racerId}``) -> the HTTP API route's properties."""
    return {route["Properties"]["RouteKey"]: route["Properties"]
            for route in of_type(resources, "AWS::ApiGatewayV2::Route").values()}


def integration_of(resources: dict, route: dict) -> dict:
    """The integration a route targets (``integrations/<id>``)."""
    [_, target] = route["Target"]["Fn::Join"][1]
    return resources[target["Ref"]]["Properties"]


def stage_of(resources: dict) -> dict:
    [stage] = of_type(resources, "AWS::ApiGatewayV2::Stage").values()
    return stage


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


def test_throwaway_context_relaxes_table_protection():
    # Given -c throwaway=true, as the CLI passes it (text)
    app = App(context={"throwaway": "true"})
    assert is_throwaway(app) and not is_throwaway(App()) and not is_throwaway(App(context={"throwaway": "no"}))
    # When the table is built for such a stack / Then it is deletable with the stack
    stack = Stack(app, "Throwaway")
    AlleycatTable(stack, "Data", throwaway=is_throwaway(app))
    table = next(iter(of_type(assertions.Template.from_stack(stack).to_json()["Resources"], TABLE).values()))
    assert table["DeletionPolicy"] == "Delete"
    assert table["Properties"]["DeletionProtectionEnabled"] is False


# --- functions ---------------------------------------------------------------------------


def test_one_function_per_route_plus_the_stream_processor_the_finisher_and_the_token_trigger(resources):
    # Given the routes / When listing Lambda functions / Then each route has exactly one, named after it
    expected = {logical_id(route.function) for route in ROUTES} | {logical_id(name) for name in NOT_ROUTES}
    # (besides the handlers CDK adds for the site's BucketDeployment and the IoT endpoint's AwsCustomResource)
    ours = {key for key in of_type(resources, FUNCTION)
            if not key.startswith(("CustomCDKBucketDeployment", CUSTOM_RESOURCE_HANDLER))}
    assert ours == expected


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_function_configuration(resources, route):
    # Given a route's function / Then it runs the shared runtime setup with both layers
    props = resources[logical_id(route.function)]["Properties"]
    assert props["Runtime"] == "python3.13"
    assert props["Architectures"] == ["arm64"]
    assert props["Handler"] == "app.handler"
    assert props["MemorySize"] == memory_mb(route.function) and props["Timeout"] == API_TIMEOUT_SECONDS
    assert props["TracingConfig"] == {"Mode": "PassThrough" if route.function in PASS_THROUGH_TRACING else "Active"}
    # Lambda's advanced logging controls: JSON, the application's INFO, Lambda's own WARN
    assert {k: props["LoggingConfig"][k] for k in ("LogFormat", "ApplicationLogLevel", "SystemLogLevel")} == {
        "LogFormat": "JSON", "ApplicationLogLevel": "INFO", "SystemLogLevel": "WARN"}
    assert len(props["Layers"]) == 2  # shared code and dependencies, both built from this repository
    assert all(resources[layer["Ref"]]["Type"] == "AWS::Lambda::LayerVersion" for layer in props["Layers"])
    assert props["LoggingConfig"]["LogGroup"]["Ref"] in resources  # its own, explicit log group
    assert set(props["Environment"]["Variables"]) >= {
        "TABLE_NAME", "POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "POWERTOOLS_LOGGER_SAMPLE_RATE"}
    assert props["Environment"]["Variables"]["POWERTOOLS_LOGGER_SAMPLE_RATE"] == str(LOG_SAMPLE_RATE)


def test_the_telemetry_route_has_its_own_xray_sampling_rule(resources):
    # Given the template / Then one X-Ray sampling rule matches POST /races/*/telemetry, at a low rate
    [rule] = [r["Properties"]["SamplingRule"] for r in of_type(resources, "AWS::XRay::SamplingRule").values()]
    assert rule["HTTPMethod"] == "POST" and rule["URLPath"] == "/races/*/telemetry"
    assert rule["ReservoirSize"] == TELEMETRY_SAMPLING["reservoir"] and rule["FixedRate"] <= 0.05
    assert len(rule["RuleName"]) <= 32


def test_every_function_has_its_own_role(resources):
    # Given all functions / When collecting their roles / Then no two share one
    names = [route.function for route in ROUTES] + [STREAM_PROCESSOR]
    assert len({role_of(resources, name) for name in names}) == len(names)


MAPPINGS = ((STREAM_PROCESSOR, STREAM_PROCESSOR_TYPES, STREAM_PROCESSOR_ACTIONS, STREAM_BATCHING_WINDOW_SECONDS),
            (HISTORY_WRITER, HISTORY_WRITER_TYPES, HISTORY_WRITER_ACTIONS, HISTORY_BATCHING_WINDOW_SECONDS))


@pytest.mark.parametrize(("function", "types", "window"), [(f, t, w) for f, t, _, w in MAPPINGS])
def test_stream_mappings_filter_retry_bisect_and_keep_failures(resources, template, function, types, window):
    # Given each of the stream's two readers / Then its mapping takes its item types alone, batches over its window,
    # reports partial failures and has a dead end of its own, alarmed
    [mapping] = [mapping["Properties"] for mapping in of_type(resources, "AWS::Lambda::EventSourceMapping").values()
                 if mapping["Properties"]["FunctionName"] == {"Ref": logical_id(function)}]
    assert mapping["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["BisectBatchOnFunctionError"] is True
    assert mapping["MaximumBatchingWindowInSeconds"] == window
    pattern = json.loads(mapping["FilterCriteria"]["Filters"][0]["Pattern"])
    assert pattern == {"dynamodb": {"NewImage": {"type": {"S": list(types)}}}}
    assert 0 < mapping["MaximumRetryAttempts"] <= 10 and mapping["MaximumRecordAgeInSeconds"] > 0
    queue = mapping["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"][0]
    assert resources[queue]["Type"] == "AWS::SQS::Queue"
    alarmed = [a["Properties"]["Dimensions"][0]["Value"] for a in of_type(resources, "AWS::CloudWatch::Alarm").values()
               if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"]
    assert {"Fn::GetAtt": [queue, "QueueName"]} in alarmed


def test_the_stream_has_two_readers_at_most(resources):
    # DynamoDB Streams: no more than two processes should read a shard at once
    mappings = [m["Properties"] for m in of_type(resources, "AWS::Lambda::EventSourceMapping").values()
                if "StreamArn" in str(m["Properties"]["EventSourceArn"])]
    assert len(mappings) == 2


@pytest.mark.parametrize(("function", "actions"), [(f, a) for f, _, a, _ in MAPPINGS])
def test_stream_readers_get_only_their_table_actions(resources, function, actions):
    table_actions = set()
    for statement in statements(resources, role_of(resources, function)):
        for action in as_list(statement["Action"]):
            if action.startswith("dynamodb:") and statement["Resource"] != "*" and "StreamArn" not in str(statement):
                table_actions.add(action)
    assert table_actions == set(actions)


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


def test_the_api_is_one_http_api_with_no_cors(resources):
    # Given the template / Then there is one HTTP API, no REST API, and no CORS (the browser uses one origin)
    [api] = of_type(resources, "AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["ProtocolType"] == "HTTP"
    assert "CorsConfiguration" not in api["Properties"]
    assert not [key for key in resources if resources[key]["Type"].startswith("AWS::ApiGateway::")]


def test_the_api_has_exactly_the_route_tables_routes(resources):
    # Given the HTTP API's routes / Then they are exactly the route table's, nothing more
    assert set(routes_by_key(resources)) == {route.key for route in ROUTES}


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_route_invokes_its_own_function_with_payload_format_2(resources, route):
    # Given the route's integration
    integration = integration_of(resources, routes_by_key(resources)[route.key])
    # Then it proxies to the route's own function in payload format 2.0
    assert integration["IntegrationType"] == "AWS_PROXY"
    assert integration["PayloadFormatVersion"] == "2.0"
    assert integration["IntegrationUri"] == {"Fn::GetAtt": [logical_id(route.function), "Arn"]}


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_route_authorization_matches_its_auth(resources, route):
    # Given the route / Then "user" routes need the Cognito JWT authorizer and public ones nothing
    props = routes_by_key(resources)[route.key]
    if route.protected:
        assert props["AuthorizationType"] == "JWT"
        authorizer = resources[props["AuthorizerId"]["Ref"]]["Properties"]
        assert authorizer["AuthorizerType"] == "JWT"
        assert authorizer["IdentitySource"] == ["$request.header.Authorization"]
        [pool] = of_type(resources, "AWS::Cognito::UserPool")
        [client] = of_type(resources, "AWS::Cognito::UserPoolClient")
        assert {"Ref": pool} in authorizer["JwtConfiguration"]["Issuer"]["Fn::Join"][1]
        assert authorizer["JwtConfiguration"]["Audience"] == [{"Ref": client}]
        # And the route requires a scope (API Gateway then refuses a token without it, so an ID token,
        # which has no scope claim): Cognito's own, which every access token of the client carries
        assert props["AuthorizationScopes"] == ["aws.cognito.signin.user.admin"]
        assert set(props["AuthorizationScopes"]) <= set(resources[client]["Properties"]["AllowedOAuthScopes"])
    else:
        assert props.get("AuthorizationType", "NONE") == "NONE" and "AuthorizerId" not in props
        assert "AuthorizationScopes" not in props


def test_stage_is_the_default_one_deployed_logged_and_measured_per_route(resources):
    # Given the stage / Then it is $default (the API at its root), auto-deployed, with JSON access logs
    stage = stage_of(resources)
    props = stage["Properties"]
    assert props["StageName"] == "$default" and props["AutoDeploy"] is True
    group = props["AccessLogSettings"]["DestinationArn"]["Fn::GetAtt"][0]
    assert resources[group]["Properties"]["RetentionInDays"] == 30
    fields = json.loads(props["AccessLogSettings"]["Format"])
    assert {"requestId", "ip", "method", "path", "status", "sub"} <= set(fields)
    # And every route has its own settings, created after the routes they name
    assert set(props["RouteSettings"]) == {route.key for route in ROUTES}
    assert all(setting["DetailedMetricsEnabled"] for setting in props["RouteSettings"].values())
    # And a route without settings of its own would get the lowest throttle, not the account's
    assert props["DefaultRouteSettings"]["ThrottlingRateLimit"] == min(throttle(r).rate for r in ROUTES) == ADMIN_WRITES.rate
    assert set(of_type(resources, "AWS::ApiGatewayV2::Route")) <= set(stage["DependsOn"])


@pytest.mark.parametrize("route", ROUTES, ids=lambda route: route.function)
def test_each_route_has_the_throttle_the_capacity_arithmetic_gives(resources, route):
    # Given the route's settings on the stage / Then its throttle is the one docs/capacity.md derives
    setting = stage_of(resources)["Properties"]["RouteSettings"][route.key]
    assert (setting["ThrottlingRateLimit"], setting["ThrottlingBurstLimit"]) == (
        throttle(route).rate, throttle(route).burst)
    assert setting["ThrottlingBurstLimit"] >= setting["ThrottlingRateLimit"] > 0


def test_telemetry_throttle_takes_twice_a_full_race_posting_every_second(resources):
    # Given a 1,000-racer race, each bike posting its own sample every second (1,000 requests/s, all in a tick)
    setting = stage_of(resources)["Properties"]["RouteSettings"]["POST /races/{raceId}/telemetry"]
    # Then the telemetry route accepts at least twice that, steady and at once
    assert setting["ThrottlingRateLimit"] >= 2 * RACERS and setting["ThrottlingBurstLimit"] >= 2 * RACERS
    # And no other route may take as much: writes stay low (but joins: a mass start's), reads are mostly answered by CloudFront
    others = [s["ThrottlingRateLimit"] for key, s in stage_of(resources)["Properties"]["RouteSettings"].items()
              if key not in ("POST /races/{raceId}/telemetry", "PUT /races/{raceId}/racers/{racerId}")]
    assert max(others) <= setting["ThrottlingRateLimit"] // 10


def test_join_throttle_lets_a_mass_start_join_in_under_20_seconds_and_no_faster_than_a_partition_takes(resources):
    setting = stage_of(resources)["Properties"]["RouteSettings"]["PUT /races/{raceId}/racers/{racerId}"]
    # 10,000 joins in under 20 s; at most 800 a second, 80 % of the 1,000 WCU/s of the index partition they share
    assert 10_000 / 20 < setting["ThrottlingRateLimit"] <= setting["ThrottlingBurstLimit"] <= 800


def test_outputs(template_json):
    # Given the stack / Then clients can find the API, the user pool and the table
    assert set(template_json["Outputs"]) == {"ApiUrl", "UserPoolId", "UserPoolClientId", "SignInUrl", "TableName",
                                             "StreamFailureQueueUrl", "FinishFailureQueueUrl", "SiteUrl", "AlarmTopicArn",
                                             "BoardEventsHttpUrl", "BoardEventsRealtimeUrl", "IngestUrl", "IngestTopic",
                                             "IngestFailureQueueUrl", "HistoryFailureQueueUrl"}


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


def origin_of(config: dict, origin_id: str) -> dict:
    return next(origin for origin in config["Origins"] if origin["Id"] == origin_id)


def api_behaviors(config: dict) -> dict[str, dict]:
    return {behavior["PathPattern"]: behavior for behavior in config["CacheBehaviors"]}


def test_distribution_reads_the_bucket_through_origin_access_control(resources):
    # Given the distribution / Then its default origin is the site bucket, signed with an OAC
    _, config = distribution_of(resources)
    origin = origin_of(config, config["DefaultCacheBehavior"]["TargetOriginId"])
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


def deployments(resources: dict) -> dict[str, tuple[str, dict]]:
    """The site's BucketDeployments by construct id (Assets, Deployment): (logical id, properties)."""
    found = {}
    for logical, resource in of_type(resources, "Custom::CDKBucketDeployment").items():
        construct = resource["Metadata"]["aws:cdk:path"].split("/")[-3]
        found[construct] = (logical, resource["Properties"])
    return found


def staged(outdir: Path, props: dict) -> list[set[str]]:
    """The files of each source of a deployment, as synth staged them (assets unbundled: folders)."""
    return [{str(path.relative_to(outdir / f"asset.{key.removesuffix('.zip')}"))
             for path in (outdir / f"asset.{key.removesuffix('.zip')}").rglob("*") if path.is_file()}
            for key in props["SourceObjectKeys"]]


def test_the_frontends_assets_are_deployed_first_kept_a_year_and_never_pruned(resources, outdir):
    # Given the site's two deployments
    found = deployments(resources)
    assert set(found) == {"Assets", "Deployment"}
    bucket = {"Ref": next(k for k in of_type(resources, "AWS::S3::Bucket") if k.startswith("SiteBucket"))}
    (assets_id, assets), (entry_id, entry) = found["Assets"], found["Deployment"]
    # Then the first copies the built assets (named by their content) under assets/, with a year's
    # immutable Cache-Control, and leaves the assets of earlier deploys in place
    built = {str(path.relative_to(DIST / headers.ASSETS)) for path in (DIST / headers.ASSETS).rglob("*") if path.is_file()}
    assert built and all(re.fullmatch(r"[a-z]+-[A-Z0-9]{8}\.(js|css)(\.map)?", name) for name in built), built
    assert staged(outdir, assets) == [built]
    assert assets["DestinationBucketName"] == bucket and assets["DestinationBucketKeyPrefix"] == "assets/"
    assert assets["SystemMetadata"] == {"cache-control": headers.IMMUTABLE} == {"cache-control": "public, max-age=31536000, immutable"}
    assert assets["Prune"] is False and "DistributionPaths" not in assets
    # And the second, only once the first is done, the page that names them and config.json, revalidated on
    # every load; its pruning leaves assets/ alone
    assert assets_id in resources[entry_id]["DependsOn"]
    assert staged(outdir, entry) == [{"index.html", "favicon.svg"}, {"config.json"}]  # the page names its icon
    assert entry["DestinationBucketName"] == bucket and "DestinationBucketKeyPrefix" not in entry
    assert entry["SystemMetadata"] == {"cache-control": "no-cache"}
    assert entry["Prune"] is True and entry["Exclude"] == ["assets/*"]
    # And only the page (as / and /index.html) and config.json are invalidated at the edge
    assert entry["DistributionId"] == {"Ref": distribution_of(resources)[0]}
    assert entry["DistributionPaths"] == ["/", "/index.html", "/config.json"]
    # And config.json names the live boards' endpoint and key (the API needs none: it is on the same origin)
    markers = json.dumps(entry["SourceMarkers"])
    assert "Dns.Realtime" in markers and "Dns.Http" in markers and '"ApiKey"' in markers


def test_the_page_names_the_built_assets():
    # Given the built page (frontend/build.mjs, from frontend/index.html)
    page = (DIST / "index.html").read_text()
    named = re.findall(r'(?:src|href)="(/assets/[^"]+)"', page)
    # Then it names the script and the stylesheet by their content-named paths, and they exist
    assert sorted(Path(name).suffix for name in named) == [".css", ".js"]
    assert all((DIST / name.lstrip("/")).is_file() for name in named), named
    assert 'src="app.js"' not in page and 'href="app.css"' not in page
    # and its icon, an SVG next to it (no /favicon.ico asked for)
    assert '<link rel="icon" href="/favicon.svg" type="image/svg+xml">' in page
    assert (DIST / "favicon.svg").read_text().startswith("<svg xmlns=\"http://www.w3.org/2000/svg\"")


# --- the edge: CloudFront in front of the API ---------------------------------------------------


def test_every_api_path_goes_to_the_http_api_through_origin_shield(resources):
    # Given the distribution's behaviours
    _, config = distribution_of(resources)
    behaviors = api_behaviors(config)
    # Then every route's path is taken by its own behaviour: the first whose pattern matches (CloudFront's * and ?
    # as fnmatch's, in the template's order), its path with each parameter a *
    for route in ROUTES:
        path = re.sub(r"\{\w+\}", "x1", route.path)
        first = next(pattern for pattern in behaviors if fnmatchcase(path, pattern))
        assert first == re.sub(r"\{\w+\}", "*", route.path), route.key
    assert len(behaviors) <= 25  # CloudFront's default cache behaviours a distribution
    [api] = of_type(resources, "AWS::ApiGatewayV2::Api")
    for behavior in behaviors.values():
        origin = origin_of(config, behavior["TargetOriginId"])
        assert {"Ref": api} in origin["DomainName"]["Fn::Join"][1]
        assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
        assert origin["OriginShield"]["Enabled"] is True
        # And every method reaches the API over HTTPS only (a redirected POST would lose its body)
        assert set(behavior["AllowedMethods"]) >= {"GET", "PUT", "POST"}
        assert behavior["ViewerProtocolPolicy"] == "https-only"


def cache_key(resources: dict, behavior: dict) -> dict:
    return resources[behavior["CachePolicyId"]["Ref"]]["Properties"]["CachePolicyConfig"]


def test_api_reads_are_cached_only_as_the_origins_cache_control_allows(resources):
    # Given the API behaviours' cache policies
    _, config = distribution_of(resources)
    for pattern, behavior in api_behaviors(config).items():
        policy = cache_key(resources, behavior)
        # Then nothing is cached unless the answer's Cache-Control says so
        assert policy["MinTTL"] == 0 and policy["DefaultTTL"] == 0 and policy["MaxTTL"] >= 86_400
        assert policy["ParametersInCacheKeyAndForwardedToOrigin"]["CookiesConfig"] == {"CookieBehavior": "none"}
        # And only GET and HEAD are ever cached
        assert behavior["CachedMethods"] == ["GET", "HEAD"], pattern


def test_a_public_reads_key_is_its_path_and_the_query_it_reads_never_authorization(resources):
    # Given each route's behaviour (its path, each parameter a *) and the routes that share it
    _, config = distribution_of(resources)
    behaviors = api_behaviors(config)
    for route in ROUTES:
        behavior = behaviors[re.sub(r"\{\w+\}", "*", route.path)]
        key = cache_key(resources, behavior)["ParametersInCacheKeyAndForwardedToOrigin"]
        queries = key["QueryStringsConfig"]
        held = [other for other in ROUTES if other.path == route.path]
        if route.method == "GET" and not route.protected:
            # Then a public read is keyed on exactly the query parameters its path's routes read: a made-up
            # parameter or header cannot make it miss the cache (issue 54)
            assert sorted(queries.get("QueryStrings", [])) == sorted({q for other in held for q in other.query}), route.key
            if any(other.protected for other in held):  # a write shares the path: the header goes before the key
                assert key["HeadersConfig"] == {"HeaderBehavior": "whitelist", "Headers": ["Authorization"]}
                [association] = behavior["FunctionAssociations"]
                assert association["EventType"] == "viewer-request"
            else:
                assert key["HeadersConfig"] == {"HeaderBehavior": "none"}, route.key
                assert "FunctionAssociations" not in behavior
        else:
            # Then a route that needs the token gets it: CloudFront forwards Authorization only in the cache key,
            # so a cached answer is never served to a caller with another token
            assert key["HeadersConfig"] == {"HeaderBehavior": "whitelist", "Headers": ["Authorization"]}, route.key


def test_the_public_reads_function_drops_authorization_from_reads_only(resources):
    # Given the viewer-request function (CloudFront Functions' JavaScript 2.0), run by Node on CloudFront's event shape
    [function] = [f["Properties"] for f in of_type(resources, "AWS::CloudFront::Function").values()]
    assert function["FunctionConfig"]["Runtime"] == "cloudfront-js-2.0"
    script = function["FunctionCode"] + """
    const out = {};
    for (const method of ["GET", "HEAD", "POST", "PUT"]) {
      const request = {method, uri: "/classes/c/races", headers: {authorization: {value: "Bearer x"}, host: {value: "h"}}};
      out[method] = Object.keys(handler({request}).headers).sort();
    }
    console.log(JSON.stringify(out));"""
    ran = subprocess.run([node(), "-e", script], capture_output=True, text=True, check=True)
    # Then reads go on without the header and writes keep it
    assert json.loads(ran.stdout) == {"GET": ["host"], "HEAD": ["host"], "POST": ["authorization", "host"],
                                      "PUT": ["authorization", "host"]}


def test_writes_get_their_body_type_and_idempotency_key_only(resources):
    # Given the API behaviours' origin request policy
    _, config = distribution_of(resources)
    [request_id] = {b["OriginRequestPolicyId"]["Ref"] for b in api_behaviors(config).values()}
    request = resources[request_id]["Properties"]["OriginRequestPolicyConfig"]
    # Then writes get their body type and idempotency key, nothing else (never Host: API Gateway routes on it;
    # never Authorization: an origin request policy may not name it)
    assert request["HeadersConfig"] == {"HeaderBehavior": "whitelist", "Headers": ["Content-Type", "Idempotency-Key"]}
    assert request["QueryStringsConfig"] == {"QueryStringBehavior": "none"}
    assert request["CookiesConfig"] == {"CookieBehavior": "none"}


def test_errors_are_cached_no_longer_than_their_cache_control_says(resources):
    # Given the distribution's error settings / Then no error CloudFront caches keeps its 10 s default
    _, config = distribution_of(resources)
    assert {(e["ErrorCode"], e["ErrorCachingMinTTL"]) for e in config["CustomErrorResponses"]} == {
        (status, 0) for status in UNCACHED_ERRORS}
    assert not [e for e in config["CustomErrorResponses"] if "ResponsePagePath" in e]


def test_no_function_is_told_a_cors_origin(resources):
    # Given the route functions / Then none carries a CORS setting: the browser calls one origin
    for route in ROUTES:
        assert "ALLOWED_ORIGIN" not in resources[logical_id(route.function)]["Properties"]["Environment"]["Variables"]


def test_site_url_output_is_the_distribution(template_json, resources):
    logical, _ = distribution_of(resources)
    assert logical in str(template_json["Outputs"]["SiteUrl"]["Value"])


# --- checks on the whole synth --------------------------------------------------------------


def test_cdk_nag_passes_and_every_acknowledgment_has_a_reason(make_synth, metadata):
    # Given the app synthesized with the AwsSolutions plugin (an unacknowledged finding fails `make synth`)
    assert make_synth.template["Resources"]
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


def test_make_synth_bundles_every_function_and_layer_into_its_assembly(make_synth):
    # Given `make synth`'s template, which every test here reads
    # Then each function's and layer's asset is a bundle in its cloud assembly
    bundled = {logical: resource["Metadata"]["aws:asset:path"] for logical, resource in make_synth.template["Resources"].items()
               if "aws:asset:path" in resource.get("Metadata", {})}
    code = {logical for logical, resource in make_synth.template["Resources"].items()
            if resource["Type"] in (FUNCTION, "AWS::Lambda::LayerVersion")}
    assert len(code) >= len(ROUTES) + 1 + 2 and code <= set(bundled)  # every function and both layers
    assert all((make_synth.outdir / path).exists() for path in bundled.values()), bundled
