"""One Lambda function per route, all built by the same helper.

Each function gets its own role with only: writes to its own log group, X-Ray
segments, and the DynamoDB actions its route declares in ``alleycat.routes``.
"""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from alleycat.routes import QUERY, ROUTES, Route
from alleycat.schema import INVERTED_INDEX

from . import FUNCTIONS_DIR, acknowledge, pascal
from .layers import ASSET_EXCLUDES, layers

RUNTIME = lambda_.Runtime.PYTHON_3_13
ARCHITECTURE = lambda_.Architecture.ARM_64
ENDPOINT_VARIABLE = "AWS_ENDPOINT_URL_DYNAMODB"

XRAY_WILDCARD = ("X-Ray PutTraceSegments/PutTelemetryRecords (added by tracing=ACTIVE) and, for the "
                 "stream processor, dynamodb:ListStreams (added by its event source) support no "
                 "resource-level permissions; Resource must be '*'.")
RUNTIME_PINNED = ("Pinned to python3.13: the dependencies layer is built for exactly this runtime "
                  "(pip --python-version 3.13); upgrade the runtime and that layer together.")


def logical_id(function: str) -> str:
    """The Lambda function's CloudFormation logical id, e.g. ``GetRaceLeaderboardFunction``."""
    return f"{pascal(function)}Function"


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
                 routes: tuple[Route, ...] = ROUTES, allowed_origin: str = "*") -> None:
        super().__init__(scope, id)
        self._table = table
        self._allowed_origin = allowed_origin
        self._removal_policy = removal_policy
        self._layers = layers(self, RUNTIME, ARCHITECTURE)
        self.by_name = {route.function: self.add(route.function, f"{route.method} {route.path}", route.actions)
                        for route in routes}

    def add(self, name: str, description: str, actions: tuple[str, ...], *,
            timeout: Duration = Duration.seconds(10), memory_size: int = 256) -> lambda_.Function:
        """The function in ``functions/<name>``, with its own role and only ``actions`` on the table."""
        scope = Construct(self, pascal(name))
        log_group = logs.LogGroup(scope, "Logs", retention=logs.RetentionDays.ONE_MONTH,
                                  removal_policy=self._removal_policy)
        role = iam.Role(scope, "Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
                        description=f"{description} ({name})")
        log_group.grant_write(role)
        for statement in table_statements(actions, self._table):
            role.add_to_policy(statement)

        function = lambda_.Function(
            scope, "Function",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler="app.handler",
            code=lambda_.Code.from_asset(str(FUNCTIONS_DIR / name), exclude=ASSET_EXCLUDES),
            memory_size=memory_size,
            timeout=timeout,
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            role=role,
            layers=self._layers,
            description=description,
            environment={
                "TABLE_NAME": self._table.table_name,
                "POWERTOOLS_SERVICE_NAME": "alleycat",
                "POWERTOOLS_METRICS_NAMESPACE": "Alleycat",
                "LOG_LEVEL": "INFO",
                "ALLOWED_ORIGIN": self._allowed_origin,  # CORS: the frontend's origin
                # Empty (botocore: unset) in AWS; declared so `sam local invoke --env-vars` may
                # point it at a local DynamoDB (SAM overrides only variables the template declares).
                ENDPOINT_VARIABLE: "",
            },
        )
        # Stable, readable logical id: `sam local invoke GetRaceLeaderboardFunction` works.
        function.node.default_child.override_logical_id(logical_id(name))
        acknowledge(role, "AwsSolutions-IAM5[Resource::*]", XRAY_WILDCARD)
        acknowledge(function, "AwsSolutions-L1", RUNTIME_PINNED)
        return function
