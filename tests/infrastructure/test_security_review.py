"""The template's security review, item by item: alarms that notify, the dashboard, the site's
headers (and the sign-in origins they allow), API Gateway's account setting, the layers, the live boards'
Event API (who may connect, subscribe and publish)."""

from __future__ import annotations

import json

from aws_cdk import App, Stack, assertions

from alleycat.edge.routes import ROUTES
from stacks import headers
from stacks.app import STACK_NAME
from stacks.functions import logical_id
from stacks.layers import pinned_packages
from stacks.monitoring import EMAIL_CONTEXT, alarm_topic
from stacks.settings import (
    FUNCTIONS,
    HISTORY_BATCHING_WINDOW_SECONDS,
    HISTORY_WRITER,
    INGEST_CONSUMER,
    STREAM_PROCESSOR,
    TICKER,
)

from .conftest import of_type

ALARM = "AWS::CloudWatch::Alarm"


def alarms(resources: dict) -> list[dict]:
    return [alarm["Properties"] for alarm in of_type(resources, ALARM).values()]


def topic(resources: dict) -> str:
    [logical] = of_type(resources, "AWS::SNS::Topic")
    return logical


# --- alarms and the dashboard ------------------------------------------------------------------


def test_every_alarm_notifies_the_alarm_topic_when_raised_and_cleared(resources):
    # Given every alarm in the stack / Then each notifies the topic when raised and when cleared
    assert alarms(resources)
    for alarm in alarms(resources):
        assert alarm["AlarmActions"] == [{"Ref": topic(resources)}], alarm["AlarmDescription"]
        assert alarm["OKActions"] == [{"Ref": topic(resources)}]


def test_iterator_age_alarms_watch_the_stream_processor_and_the_telemetry_logs_consumer(resources):
    # Given the alarms / Then one fires when either stream's function falls half a minute behind, and the history
    # writer's (the fan-in's) when it falls two of its 30-s batching windows and half a minute behind
    ages = {a["Dimensions"][0]["Value"]["Ref"]: a for a in alarms(resources) if a.get("MetricName") == "IteratorAge"}
    limits = {STREAM_PROCESSOR: 30_000, INGEST_CONSUMER: 30_000, HISTORY_WRITER: (2 * HISTORY_BATCHING_WINDOW_SECONDS + 30) * 1000}
    assert sorted(ages) == sorted(logical_id(name) for name in limits)
    for name, limit in limits.items():
        alarm = ages[logical_id(name)]
        assert alarm["Statistic"] == "Maximum" and alarm["Threshold"] == limit
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"


def test_each_function_has_an_errors_and_a_throttles_alarm(resources):
    # Given the alarms on Lambda metrics / Then every function has one on Errors and one on Throttles
    for metric in ("Errors", "Throttles"):
        watched = {a["Dimensions"][0]["Value"]["Ref"] for a in alarms(resources)
                   if a.get("Namespace") == "AWS/Lambda" and a["MetricName"] == metric}
        assert watched == {logical_id(function) for function in FUNCTIONS}, metric


def test_api_5xx_alarm(resources):
    # Given the alarms / Then any 5xx of the API within five minutes raises one
    [alarm] = [a for a in alarms(resources) if a.get("MetricName") == "5xx"]
    assert alarm["Namespace"] == "AWS/ApiGateway" and alarm["Statistic"] == "Sum"
    assert alarm["Threshold"] == 1 and alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"


def test_alarm_email_context_subscribes_an_address(resources):
    # Given no context / Then the stack's topic has no subscription
    assert not of_type(resources, "AWS::SNS::Subscription")
    # When the alarm topic is built in an app given -c alarmEmail=... / Then that address is subscribed
    stack = Stack(App(context={EMAIL_CONTEXT: "ops@example.org"}), "Alarms")
    alarm_topic(stack)
    [subscription] = of_type(assertions.Template.from_stack(stack).to_json()["Resources"], "AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == "ops@example.org"


def dashboard_body(resources: dict) -> dict:
    [dashboard] = of_type(resources, "AWS::CloudWatch::Dashboard").values()
    parts = dashboard["Properties"]["DashboardBody"]["Fn::Join"][1]
    # References (function names, the queue) become placeholders: the layout is what is checked.
    return json.loads("".join(part if isinstance(part, str) else "ref" for part in parts))


def test_dashboard_shows_race_day_at_a_glance(resources):
    # Given the dashboard's widgets
    widgets = dashboard_body(resources)["widgets"]
    titles = " | ".join(w["properties"].get("title", "") for w in widgets)
    metrics = json.dumps([w["properties"].get("metrics", []) for w in widgets])
    # Then it shows requests, errors, throttles, latency per route, iterator age, the failure queue, alarms
    for shown in ("Requests per route", "API errors", "Latency per route", "Function errors",
                  "Function throttles", "iterator age", "Failure queue", "Alarms"):
        assert shown in titles, shown
    for metric in ("Count", "5xx", "Latency", "Errors", "Throttles", "IteratorAge",
                   "ApproximateNumberOfMessagesVisible"):
        assert f'"{metric}"' in metrics, metric
    # And latency has one line per route
    for route in ROUTES:
        assert route.path in metrics


# --- the site ------------------------------------------------------------------------------------


def sent_headers(config: dict) -> dict[str, str]:
    """The headers CloudFront adds for a response headers policy's SecurityHeadersConfig."""
    hsts = config["StrictTransportSecurity"]
    return {
        "Strict-Transport-Security": "; ".join([f"max-age={hsts['AccessControlMaxAgeSec']}"]
                                               + ["includeSubDomains"] * bool(hsts.get("IncludeSubdomains"))
                                               + ["preload"] * bool(hsts.get("Preload"))),
        "Content-Security-Policy": rendered(config["ContentSecurityPolicy"]["ContentSecurityPolicy"]),
        **({"X-Content-Type-Options": "nosniff"} if "ContentTypeOptions" in config else {}),
        "X-Frame-Options": config["FrameOptions"]["FrameOption"],
        "Referrer-Policy": config["ReferrerPolicy"]["ReferrerPolicy"],
    }


def test_site_sends_the_security_headers_of_the_one_definition(resources):
    # Given the distribution's behaviours / Then every one, site and API, uses the stack's one policy
    [(policy_id, policy)] = of_type(resources, "AWS::CloudFront::ResponseHeadersPolicy").items()
    [distribution] = of_type(resources, "AWS::CloudFront::Distribution").values()
    config = distribution["Properties"]["DistributionConfig"]
    for behavior in [config["DefaultCacheBehavior"], *config["CacheBehaviors"]]:
        assert behavior["ResponseHeadersPolicyId"] == {"Ref": policy_id}
    security = policy["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    # And the headers CloudFront sends are stacks.headers' (the local server sends the same), the
    # CSP's connect list being the stack's (origins known at deploy time)
    sent = sent_headers(security)
    [connect_src] = [d for d in sent["Content-Security-Policy"].split("; ") if d.startswith("connect-src ")]
    connect = connect_src.split()[2:]
    assert connect_src.split()[:2] == ["connect-src", "'self'"]
    assert sent == headers.security_headers(connect)
    # which are HSTS for two years with subdomains, nosniff, no framing, no referrer, overriding the origin
    assert headers.HSTS_MAX_AGE_SECONDS >= 31_536_000 and security["StrictTransportSecurity"]["IncludeSubdomains"] is True
    assert sent["X-Frame-Options"] == "DENY" and sent["Referrer-Policy"] == "no-referrer"
    assert all(header["Override"] for header in security.values())


def rendered(value) -> str:
    """A template value as text, each reference or attribute as ``<LogicalId>`` or ``<AWS::Region>``."""
    if isinstance(value, str):
        return value
    if "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return separator.join(rendered(part) for part in parts)
    if "Ref" in value:
        return f"<{value['Ref']}>"
    if "Fn::GetAtt" in value:
        return f"<{'.'.join(value['Fn::GetAtt'])}>"
    raise AssertionError(f"cannot render {value}")


def test_site_csp_allows_only_the_site_the_live_boards_socket_sign_in_and_the_mqtt_endpoint(resources):
    # Given the CSP / Then nothing inline or foreign runs, and it connects only to its own origin (the
    # API too), the Event API's real-time endpoint over wss, managed login's domain (the token
    # endpoint) and the user pool API (a user's own TOTP set-up), over https, and IoT Core's data
    # endpoint over wss (telemetry over MQTT)
    [policy] = of_type(resources, "AWS::CloudFront::ResponseHeadersPolicy").values()
    csp = policy["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]["ContentSecurityPolicy"]
    [event_api] = of_type(resources, "AWS::AppSync::Api")
    [domain] = of_type(resources, "AWS::Cognito::UserPoolDomain")
    [endpoint] = of_type(resources, "Custom::AWS")
    text = rendered(csp["ContentSecurityPolicy"])
    assert "default-src 'none'" in text and "script-src 'self';" in text and "frame-ancestors 'none'" in text
    assert "unsafe-inline" not in text and "unsafe-eval" not in text and "*" not in text
    [connect] = [part.strip() for part in text.split(";") if part.strip().startswith("connect-src")]
    assert connect.split() == ["connect-src", "'self'", f"wss://<{event_api}.Dns.Realtime>",
                               f"https://<{domain}>.auth.<AWS::Region>.amazoncognito.com",
                               "https://cognito-idp.<AWS::Region>.<AWS::URLSuffix>", f"wss://<{endpoint}.endpointAddress>"]


# --- API Gateway's account setting ---------------------------------------------------------------


def test_the_app_leaves_the_account_wide_api_gateway_setting_alone(outdir, resources):
    # Given the synthesized app / Then its only stack neither sets the account's logging role nor makes one
    # (HTTP API access logs are delivered by CloudWatch Logs, without that role)
    stacks = [p.name for p in outdir.glob("*.template.json")]
    assert stacks == [f"{STACK_NAME}.template.json"]
    assert not of_type(resources, "AWS::ApiGateway::Account")
    assert not [role for role in of_type(resources, "AWS::IAM::Role").values()
                if "apigateway.amazonaws.com" in json.dumps(role["Properties"]["AssumeRolePolicyDocument"])]


# --- nothing resolved at deploy or invoke time --------------------------------------------------


def test_template_resolves_nothing_from_ssm(template_json):
    # Given the template / Then no parameter is an SSM lookup (but CDK's own bootstrap version check)
    # and no layer is an ARN from elsewhere
    lookups = [name for name, parameter in template_json.get("Parameters", {}).items()
               if "SSM" in parameter["Type"] and name != "BootstrapVersion"]
    assert not lookups
    layers = {json.dumps(layer) for function in of_type(template_json["Resources"], "AWS::Lambda::Function").values()
              for layer in function["Properties"].get("Layers", [])}
    assert layers and all('"Ref"' in layer for layer in layers)


def test_dependencies_layer_says_what_it_pins(resources):
    # Given the dependencies layer / Then its description names the pinned Powertools version
    [layer] = [res for key, res in of_type(resources, "AWS::Lambda::LayerVersion").items()
               if key.startswith("FunctionsDependenciesLayer")]
    assert "aws-lambda-powertools==3.37.0" in pinned_packages()
    assert "aws-lambda-powertools==3.37.0" in layer["Properties"]["Description"]
    assert layer["Properties"]["CompatibleArchitectures"] == ["arm64"]
    assert layer["Properties"]["CompatibleRuntimes"] == ["python3.13"]


def test_tests_run_the_versions_the_layer_deploys():
    # Given the layer's pins / Then the test environment has exactly those versions installed
    from importlib.metadata import version
    for pin in pinned_packages():
        name, pinned = pin.split("==")
        assert version(name) == pinned, pin


# --- the live boards' Event API (AppSync Events) -------------------------------------------------

APPSYNC_API = "AWS::AppSync::Api"


def event_api(resources: dict) -> tuple[str, dict]:
    [(logical, api)] = of_type(resources, APPSYNC_API).items()
    return logical, api["Properties"]["EventConfig"]


def auth_types(modes: list[dict]) -> list[str]:
    return [mode["AuthType"] for mode in modes]


def test_viewers_connect_and_subscribe_with_the_api_key_and_only_iam_publishes(resources):
    # Given the Event API / Then a connection and a subscription take the API key, and only it
    _, config = event_api(resources)
    assert auth_types(config["ConnectionAuthModes"]) == ["API_KEY"]
    assert auth_types(config["DefaultSubscribeAuthModes"]) == ["API_KEY"]
    # And publishing takes IAM, and only IAM: the key a browser holds cannot publish
    assert auth_types(config["DefaultPublishAuthModes"]) == ["AWS_IAM"]
    assert sorted(auth_types(config["AuthProviders"])) == ["API_KEY", "AWS_IAM"]
    # And the one namespace, races, says the same for its channels
    [namespace] = [n["Properties"] for n in of_type(resources, "AWS::AppSync::ChannelNamespace").values()]
    assert namespace["Name"] == "races"
    assert auth_types(namespace["PublishAuthModes"]) == ["AWS_IAM"]
    assert auth_types(namespace["SubscribeAuthModes"]) == ["API_KEY"]
    # And no handler code runs on publish or subscribe
    assert not namespace.get("CodeHandlers") and not namespace.get("HandlerConfigs")


def appsync_statements(resources: dict) -> list[tuple[str, dict]]:
    """(policy's role, statement) for every statement naming an appsync action."""
    return [(policy["Properties"]["Roles"][0]["Ref"], statement)
            for policy in of_type(resources, "AWS::IAM::Policy").values()
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]
            if any(str(action).startswith("appsync:") for action in
                   (statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]))]


def test_only_the_stream_processor_and_the_ticker_may_publish_and_only_on_the_races_namespace(resources):
    # Given every IAM statement about AppSync in the stack
    found = appsync_statements(resources)
    # Then there are two: the stream processor's and the ticker's roles may EventPublish, nothing else
    functions = {name: resources[logical_id(name)]["Properties"] for name in (STREAM_PROCESSOR, TICKER)}
    assert sorted(role for role, _ in found) == sorted(f["Role"]["Fn::GetAtt"][0] for f in functions.values())
    api, _ = event_api(resources)
    for _, statement in found:
        assert statement["Effect"] == "Allow" and statement["Action"] == "appsync:EventPublish"
        # And only on this API's races namespace (no wildcard, no other API)
        parts = statement["Resource"]["Fn::Join"][1]
        assert {"Fn::GetAtt": [api, "ApiId"]} in parts and parts[-1] == "/channelNamespace/races"
        assert "*" not in json.dumps(statement["Resource"])
    for function in functions.values():
        # And each is told where to publish (the API's HTTP domain)
        variables = function["Environment"]["Variables"]
        assert variables["EVENT_API_URL"] == {"Fn::Join": ["", ["https://", {"Fn::GetAtt": [api, "Dns.Http"]}, "/event"]]}


def as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def test_the_viewers_key_expires_within_appsyncs_year_and_is_renewed_by_each_deploy(resources):
    import time

    [key] = [k["Properties"] for k in of_type(resources, "AWS::AppSync::ApiKey").values()]
    assert key["ApiId"] == {"Fn::GetAtt": [event_api(resources)[0], "ApiId"]}
    days_left = (key["Expires"] - time.time()) / 86_400
    assert 362 < days_left <= 364  # from the synth's day; AppSync allows at most 365 from the deploy
    assert key["Expires"] % 86_400 == 0  # a day boundary: the template changes once a day, not every synth


def test_event_api_errors_go_to_a_log_group_of_the_stack_written_by_its_own_role(resources):
    # Given the API's log settings / Then errors are logged (not every request's content)
    api, config = event_api(resources)
    assert config["LogConfig"]["LogLevel"] == "ERROR"
    role = config["LogConfig"]["CloudWatchLogsRoleArn"]["Fn::GetAtt"][0]
    # And the role is AppSync's, with no managed policy, writing only to the API's log group
    props = resources[role]["Properties"]
    assert "ManagedPolicyArns" not in props
    assert props["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {"Service": "appsync.amazonaws.com"}
    [group] = [k for k, g in of_type(resources, "AWS::Logs::LogGroup").items()
               if "/aws/appsync/apis/" in json.dumps(g["Properties"].get("LogGroupName"))]
    assert resources[group]["Properties"]["RetentionInDays"] == 30
    [policy] = [p["Properties"] for p in of_type(resources, "AWS::IAM::Policy").values()
                if p["Properties"]["Roles"] == [{"Ref": role}]]
    [statement] = policy["PolicyDocument"]["Statement"]
    assert statement["Resource"] == {"Fn::GetAtt": [group, "Arn"]}
    assert sorted(statement["Action"]) == ["logs:CreateLogStream", "logs:PutLogEvents"]
