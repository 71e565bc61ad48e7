"""Who may send telemetry over MQTT (contract v1.3, "Telemetry over MQTT"): AWS IoT Core's custom authorizer.

Bikes and the site connect to the account's IoT data endpoint (ATS) over WebSocket with MQTT's user name
``ingest.username`` and the racer's access token as the password (``alleycat.edge.ingest_auth`` checks it and
answers a policy: connect as this client id, publish to the racer's own telemetry topics, nothing else).

**The user name names the authorizer**: ``alleycat?x-amz-customauthorizer-name=<authorizer>``. A browser can
set no header on a WebSocket's upgrade, and the account's default authorizer is not the stack's to set, so
the name rides in the user name's query string, where IoT Core looks for it ("Connecting to AWS IoT Core by
using custom authentication", MQTT); the authorizer reads the user name before the ``?``.

**Token signing is off**: IoT Core would otherwise want each connection's token signed with a key the client
keeps, and a browser cannot keep one. So anyone who can reach the endpoint can make the function run: its
reserved concurrency (``stacks.settings.AUTHORIZER_CONCURRENCY``) caps what that can cost and keeps it from
the rest of the account's concurrency (docs/security.md, "Telemetry over MQTT").

**The endpoint** is the account's, known only to IoT Core: a custom resource asks ``iot:DescribeEndpoint``
(``iot:Data-ATS``) at deploy, so ``cdk synth`` stays offline (no lookup, nothing in cdk.context.json).
"""

from __future__ import annotations

from aws_cdk import Aws, Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_iot as iot
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import custom_resources as cr
from constructs import Construct

from alleycat import settings
from alleycat.edge import ingest_auth
from alleycat.edge import mqtt as edge

from . import acknowledge, acknowledge_lint
from .functions import Functions
from .settings import API_SCOPES, AUTHORIZER, AUTHORIZER_CONCURRENCY, memory_mb

ACTIVE = "ACTIVE"
AUTHORIZER_QUERY = "x-amz-customauthorizer-name"
CUSTOM_RESOURCE_HANDLER = "AWS679f53fac002430cb0da5b7982bd2287"  # CDK's AwsCustomResource function (one per stack)
HANDLER_LOG_RETENTION = logs.RetentionDays.ONE_MONTH
LOOKUP_MEMORY_MB = 128  # Lambda's default, said: one SDK call at deploy
# A warm call takes milliseconds; a new instance's first also fetches the pool's JWKS (ingest_auth: 3 s at most).
TIMEOUT = Duration.seconds(5)


class IngestAuth(Construct):
    """The authorizer's function, the IoT authorizer that runs it, and the data endpoint. ``topic``: what a
    racer publishes to (``ingest.topic``, under the telemetry rule's Basic Ingest prefix)."""

    def __init__(self, scope: Construct, id: str, *, functions: Functions, issuer: str, client_id: str, topic: str,
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, id)
        arn_prefix = f"arn:{Aws.PARTITION}:iot:{Aws.REGION}:{Aws.ACCOUNT_ID}:"
        self.function = functions.add(
            AUTHORIZER, "IoT Core's custom authorizer: a racer's MQTT connection, by their access token", (),
            memory_size=memory_mb(AUTHORIZER), timeout=TIMEOUT,
            environment={settings.INGEST_ISSUER: issuer, settings.INGEST_CLIENT_ID: client_id,
                         settings.INGEST_SCOPES: " ".join(API_SCOPES), settings.INGEST_USERNAME: edge.USERNAME,
                         settings.INGEST_TOPIC_ARN: ingest_auth.topic_arn(arn_prefix, topic),
                         settings.INGEST_CLIENT_ARN: ingest_auth.client_arn(arn_prefix)})
        self.function.node.default_child.reserved_concurrent_executions = AUTHORIZER_CONCURRENCY
        self.authorizer = iot.CfnAuthorizer(self, "Authorizer", authorizer_function_arn=self.function.function_arn,
                                            signing_disabled=True, status=ACTIVE)
        invokes = Construct(self, "IotInvokes")  # IoT Core, through this authorizer only, in this account
        lambda_.CfnPermission(invokes, "Resource", action="lambda:InvokeFunction", function_name=self.function.function_arn,
                              principal="iot.amazonaws.com", source_arn=self.authorizer.attr_arn,
                              source_account=Aws.ACCOUNT_ID)
        acknowledge_lint(invokes, "ES1007", "IoT Core invokes its custom authorizer synchronously and waits for the "
                                            "policy it answers: no asynchronous invocation, so no destination.")
        self.endpoint = self._endpoint(removal_policy)

    def _endpoint(self, removal_policy: RemovalPolicy) -> str:
        """The account's IoT data endpoint (ATS), asked at deploy by CDK's AwsCustomResource (its handler's
        logs in a log group of the stack)."""
        call = cr.AwsSdkCall(service="Iot", action="describeEndpoint", parameters={"endpointType": "iot:Data-ATS"},
                             physical_resource_id=cr.PhysicalResourceId.of("iot-data-ats-endpoint"))
        handler_logs = logs.LogGroup(self, "EndpointLookupLogs", retention=HANDLER_LOG_RETENTION,
                                     removal_policy=removal_policy)
        lookup = cr.AwsCustomResource(
            self, "Endpoint", on_create=call, on_update=call, install_latest_aws_sdk=False, log_group=handler_logs,
            memory_size=LOOKUP_MEMORY_MB,
            policy=cr.AwsCustomResourcePolicy.from_statements([iam.PolicyStatement(
                actions=["iot:DescribeEndpoint"], resources=["*"])]))
        acknowledge(lookup, "AwsSolutions-IAM5[Resource::*]",
                    "iot:DescribeEndpoint supports no resource-level permissions: Resource must be '*' "
                    "(it only reads the account's endpoint address).")
        self._acknowledge_handler()
        return lookup.get_response_field("endpointAddress")

    def _acknowledge_handler(self) -> None:
        handler = Stack.of(self).node.try_find_child(CUSTOM_RESOURCE_HANDLER)
        assert handler is not None, "CDK's AwsCustomResource handler has another id"
        acknowledge(handler, "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                             "AWSLambdaBasicExecutionRole]",
                    "CDK's AwsCustomResource handler role; the AWS managed basic execution policy only lets it "
                    "write its own CloudWatch logs.")
        acknowledge(handler, "AwsSolutions-L1", "CDK's AwsCustomResource handler runtime is chosen and updated by "
                                                "aws-cdk-lib; it runs only during deployments.")

    @property
    def username(self) -> str:
        """``ingest.username``: the user name the authorizer checks, naming the authorizer IoT Core runs."""
        return f"{edge.USERNAME}?{AUTHORIZER_QUERY}={self.authorizer.ref}"

    @property
    def url(self) -> str:
        """``ingest.url``: MQTT over WebSocket at the account's IoT data endpoint."""
        return f"wss://{self.endpoint}/mqtt"
