"""One Lambda function per route, all built by the same helper.

Each function gets its own role with only: writes to its own log group, X-Ray
segments, and the DynamoDB actions its route declares in ``alleycat.edge.routes``; a paged route's
function, the reading of the page-token keys' secret too (``_page_token_keys``).
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from alleycat import settings
from alleycat.edge.routes import QUERY, ROUTES, Route
from alleycat.storage.schema import INVERTED_INDEX

from . import FUNCTIONS_DIR, acknowledge, acknowledge_lint, logical_id, pascal
from .bytecode import TASK_ROOT, compiled_code
from .layers import layers
from .settings import (
    APPLICATION_LOG_LEVEL,
    KEY_ROTATOR,
    LOG_FORMAT,
    LOG_SAMPLE_RATE,
    PAGE_TOKEN_ROTATION_DAYS,
    SYSTEM_LOG_LEVEL,
    memory_mb,
)

RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_DYNAMODB"

XRAY_WILDCARD = ("X-Ray PutTraceSegments/PutTelemetryRecords (added by tracing=ACTIVE) and, for the "
                 "stream processor, dynamodb:ListStreams (added by its event source) support no "
                 "resource-level permissions; Resource must be '*'.")
RUNTIME_PINNED = ("Pinned to python3.13: the dependencies layer is built for exactly this runtime "
                  "(pip --python-version 3.13); upgrade the runtime and that layer together.")
API_TIMEOUT_SECONDS = 10
# Traced only when the caller's request was sampled upstream (the telemetry route's X-Ray sampling
# rule, stacks/api.py): Lambda's own sampling of an Active function is fixed (1 a second + 5 %, not
# configurable), ~50 traces a second of a full race, each showing only what the Duration metric shows.
PASS_THROUGH_TRACING = ("post_telemetry",)
PASS_THROUGH_REASON = ("Traced when its caller's request was sampled (the telemetry route's X-Ray sampling "
                       "rule): Lambda's fixed Active sampling would record ~50 traces a second of a race "
                       "(docs/performance.md prices it); every other function stays Active.")
# What a paged function may do with the page-token keys' secret: read its current value (alleycat.aws.page_keys).
READ_KEYS = ("secretsmanager:GetSecretValue",)
# What the rotation function does to it (alleycat.aws.page_keys.rotate; AWS's rotation template does the same):
# new keys come from Python's secrets module, so no secretsmanager:GetRandomPassword (which takes no resource).
ROTATE_KEYS = ("secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue", "secretsmanager:PutSecretValue",
               "secretsmanager:UpdateSecretVersionStage")


def table_statements(actions: tuple[str, ...], table: dynamodb.ITable) -> list[iam.PolicyStatement]:
    """The declared actions on the table; Query also on the inverted index.

    ``routes.py`` does not say which queries use the index, so every Query route may query
    the one named index (``<table>/index/inverted``, no ``index/*`` wildcard).
    """
    statements = [iam.PolicyStatement(actions=list(actions), resources=[table.table_arn])]
    if QUERY in actions:
        index_arn = f"{table.table_arn}/index/{INVERTED_INDEX}"
        statements.append(iam.PolicyStatement(actions=[QUERY], resources=[index_arn]))
    return statements


class Functions(Construct):
    """Builds every route's function; ``self.by_name[route.function]`` is the function."""

    def __init__(self, scope: Construct, id: str, *, table: dynamodb.ITable,
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
                 routes: tuple[Route, ...] = ROUTES) -> None:
        super().__init__(scope, id)
        self._table = table
        self._removal_policy = removal_policy
        self._layers = layers(self, RUNTIME, ARCHITECTURE)
        self.page_token_keys = self._page_token_keys()
        self.by_name = {route.function: self.add(
            route.function, f"{route.method} {route.path}", route.actions,
            memory_size=memory_mb(route.function),
            environment=self._paged_environment() if route.paged else None)
            for route in routes}
        for route in routes:
            if route.paged:
                self.by_name[route.function].add_to_role_policy(
                    iam.PolicyStatement(actions=list(READ_KEYS), resources=[self.page_token_keys.secret_arn]))

    def _paged_environment(self) -> dict[str, str]:
        """The secret's ARN, and PAGE_TOKEN_KEY empty (unset, to botocore and alleycat.settings), declared so that
        `sam local invoke --env-vars events/env.json` may give a key (SAM overrides only declared variables)."""
        return {settings.PAGE_TOKEN_SECRET: self.page_token_keys.secret_arn, settings.PAGE_TOKEN_KEY: ""}

    def _page_token_keys(self) -> secretsmanager.Secret:
        """The secret the page-token keys are read from at run time (alleycat.aws.page_keys), its first key
        generated by CloudFormation (never in the template), rotated every PAGE_TOKEN_ROTATION_DAYS by
        ``functions/rotate_page_token_key``, which only Secrets Manager may invoke, for this secret only."""
        secret = secretsmanager.Secret(
            self, "PageTokenKeys", description="HMAC keys of the API's page tokens (previous, current, next)",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template="{}", generate_string_key="current", password_length=48,
                exclude_punctuation=True))
        rotator = self.key_rotator = self.add(KEY_ROTATOR, "Rotates the page-token keys", (),
                                              memory_size=memory_mb(KEY_ROTATOR))
        rotator.add_to_role_policy(iam.PolicyStatement(actions=list(ROTATE_KEYS), resources=[secret.secret_arn]))
        rotator.add_permission("SecretsManager", principal=iam.ServicePrincipal("secretsmanager.amazonaws.com"),
                               source_arn=secret.secret_arn, source_account=Stack.of(self).account)
        schedule = secretsmanager.CfnRotationSchedule(
            self, "PageTokenKeysRotation", secret_id=secret.secret_arn, rotation_lambda_arn=rotator.function_arn,
            rotation_rules=secretsmanager.CfnRotationSchedule.RotationRulesProperty(
                automatically_after_days=PAGE_TOKEN_ROTATION_DAYS),
            rotate_immediately_on_update=True)
        schedule.node.add_dependency(rotator.node.scope)  # its role's policy and Secrets Manager's permission first
        return secret

    def add(self, name: str, description: str, actions: tuple[str, ...], *,
            timeout: Duration | None = None, memory_size: int = 256,
            environment: dict | None = None) -> lambda_.Function:
        """The function in ``functions/<name>``, with its own role and only ``actions`` on the table."""
        scope = Construct(self, pascal(name))
        log_group = logs.LogGroup(scope, "Logs", retention=logs.RetentionDays.ONE_MONTH,
                                  removal_policy=self._removal_policy)
        role = iam.Role(scope, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
                        description=f"{description} ({name})")
        log_group.grant_write(role)
        for statement in table_statements(actions, self._table) if actions else ():
            role.add_to_policy(statement)

        function = lambda_.Function(
            scope, "Function",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler="app.handler",
            code=compiled_code(FUNCTIONS_DIR / name, TASK_ROOT),
            memory_size=memory_size,
            timeout=timeout or Duration.seconds(API_TIMEOUT_SECONDS),
            tracing=lambda_.Tracing.PASS_THROUGH if name in PASS_THROUGH_TRACING else lambda_.Tracing.ACTIVE,
            log_group=log_group,
            # Lambda's advanced logging controls: JSON lines, the application's INFO and up (a
            # healthy request writes none: alleycat.observability), Lambda's own WARN and up (no
            # START/END/REPORT lines; timeouts and crashes are still written).
            logging_format=lambda_.LoggingFormat(LOG_FORMAT),
            application_log_level_v2=lambda_.ApplicationLogLevel(APPLICATION_LOG_LEVEL),
            system_log_level_v2=lambda_.SystemLogLevel(SYSTEM_LOG_LEVEL),
            role=role,
            layers=self._layers,
            description=description,
            environment={
                settings.FUNCTION: name,  # what it needs (alleycat.settings.NEEDS) is checked at its cold start
                settings.TABLE_NAME: self._table.table_name,
                "POWERTOOLS_SERVICE_NAME": "alleycat",
                "POWERTOOLS_METRICS_NAMESPACE": "Alleycat",
                "POWERTOOLS_LOGGER_SAMPLE_RATE": str(LOG_SAMPLE_RATE),  # the level comes from Lambda's controls
                # Empty (botocore: unset) in AWS; declared so `sam local invoke --env-vars` may
                # point it at a local DynamoDB (SAM overrides only variables the template declares).
                ENDPOINT_VARIABLE: "",
                **(environment or {}),
            },
        )
        # Stable, readable logical id: `sam local invoke GetRaceLeaderboardFunction` works.
        function.node.default_child.override_logical_id(logical_id(name))
        acknowledge(role, "AwsSolutions-IAM5[Resource::*]", XRAY_WILDCARD)
        acknowledge(function, "AwsSolutions-L1", RUNTIME_PINNED)
        if name in PASS_THROUGH_TRACING:
            acknowledge_lint(function, "WS1000", PASS_THROUGH_REASON)
        return function
