"""The HTTP API (API Gateway v2), generated from ``alleycat.edge.routes``, guarded by the user pool (stacks/users.py)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from aws_cdk import RemovalPolicy, Stack
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_xray as xray
from aws_cdk.aws_apigatewayv2_authorizers import HttpUserPoolAuthorizer
from aws_cdk.aws_apigatewayv2_integrations import HttpLambdaIntegration
from constructs import Construct

from alleycat.edge.routes import ROUTES, Route

from . import acknowledge, pascal
from .settings import ACCESS_LOG_FIELDS, API_SCOPES
from .users import Users

STAGE = "$default"  # served at the API's root: CloudFront forwards /races/... unchanged


@dataclass(frozen=True)
class Throttle:
    rate: int  # requests per second, steady
    burst: int  # requests at once


# Per-route throttles from docs/capacity.md ("Throttles"): 2x the traffic of a 1,000-racer race.
RACERS = 1_000  # the largest race; each racer's bike posts its own sample once a second
HEADROOM = 2
# A mass start (issue 53): 10,000 racers joining one race in its last 20 s, 500 joins a second, with half as
# much again of room: 750/s lets 10,000 joins through in 13.3 s and keeps the partition a join shares with the
# race's other joins (the inverted index's RACE#<race>, 1 WCU a join) at 75 % of its 1,000 WCU/s.
MASS_START, MASS_START_SECONDS = 10_000, 20
JOINS = MASS_START // MASS_START_SECONDS * 3 // 2
# Public reads that get past CloudFront: with Origin Shield about one per second per cached
# answer; 100/s leaves room for dozens of races and caps a cache-busting caller at
# 100 x 9.5 RCU = 950 RCU/s on a race partition (a third of its 3,000).
EDGE_MISSES = 100
PUBLIC_READS = Throttle(EDGE_MISSES, EDGE_MISSES * 2)  # every public route's
ADMIN_WRITES = Throttle(5, 10)  # every other user route's; also the stage's default, for a route without settings
THROTTLES: dict[str, Throttle] = {  # the user routes racers call
    "post_telemetry": Throttle(RACERS * HEADROOM, RACERS * HEADROOM),  # every bike in the same tick
    "join_race": Throttle(JOINS, JOINS),
    "put_racer": Throttle(20, 40),  # a rename fans out to every entry and best of the racer
}


def throttle(route: Route) -> Throttle:
    return THROTTLES.get(route.function) or (ADMIN_WRITES if route.protected else PUBLIC_READS)


PUBLIC_READ = "Public read route: race data, leaderboards and results are public per the API contract."
ACCESS_LOG_FORMAT = json.dumps(ACCESS_LOG_FIELDS)  # the bench prices its size, from the template


# X-Ray sampling for the telemetry route (1,000 posts a second in a full race): one trace a second
# and 1 % of the rest, where X-Ray's centralized sampling decides (an X-Ray or OpenTelemetry SDK in
# a caller, in the function, or an API Gateway REST stage). The function itself is PassThrough
# (stacks/functions.py): it traces the requests such a sampler chose, and no others.
TELEMETRY_SAMPLING = {"reservoir": 1, "fixed_rate": 0.01, "priority": 100}


class Api(Construct):
    """One route per table entry, each its own Lambda integration (payload format 2.0), the
    Cognito JWT authorizer on every "user" route (requiring an access token's scope, settings.API_SCOPES,
    so ID tokens are refused), a throttle per route, access logs.

    No CORS: the browser reaches the API through the site's CloudFront distribution (one origin).
    """

    def __init__(self, scope: Construct, id: str, *, functions: dict[str, lambda_.IFunction],
                 users: Users, routes: tuple[Route, ...] = ROUTES,
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, id)
        self.routes = routes
        self.http_api = apigwv2.HttpApi(
            self, "HttpApi", api_name=f"{Stack.of(self).stack_name}-api",
            description="Alleycat racing API", create_default_stage=False)
        authorizer = HttpUserPoolAuthorizer("Authorizer", users.user_pool, user_pool_clients=[users.client])
        added = []
        for route in routes:
            [http_route] = self.http_api.add_routes(
                path=route.path, methods=[apigwv2.HttpMethod(route.method)],
                integration=HttpLambdaIntegration(f"{pascal(route.function)}Integration", functions[route.function]),
                authorizer=authorizer if route.protected else apigwv2.HttpNoneAuthorizer(),
                authorization_scopes=list(API_SCOPES) if route.protected else None)
            if not route.protected:
                acknowledge(http_route, "AwsSolutions-APIG4", PUBLIC_READ)
            added.append(http_route)
        self.stage = self._stage(removal_policy)
        self.stage.node.add_dependency(*added)  # route settings name routes that must exist first
        telemetry = next(route for route in routes if route.function == "post_telemetry")
        self.telemetry_sampling = xray.CfnSamplingRule(self, "TelemetrySampling", sampling_rule=xray.CfnSamplingRule.SamplingRuleProperty(
            rule_name=f"{Stack.of(self).stack_name[:20]}-telemetry", priority=TELEMETRY_SAMPLING["priority"],
            reservoir_size=TELEMETRY_SAMPLING["reservoir"], fixed_rate=TELEMETRY_SAMPLING["fixed_rate"],
            service_name="*", service_type="*", host="*", resource_arn="*", version=1,
            http_method=telemetry.method, url_path=re.sub(r"\{[^}]+\}", "*", telemetry.path)))

    def _stage(self, removal_policy: RemovalPolicy) -> apigwv2.HttpStage:
        access_logs = logs.LogGroup(self, "AccessLogs", retention=logs.RetentionDays.ONE_MONTH,
                                    removal_policy=removal_policy)
        stage = apigwv2.HttpStage(self, "Stage", http_api=self.http_api, stage_name=STAGE, auto_deploy=True,
                                  detailed_metrics_enabled=True,  # per-route metrics for the dashboard
                                  throttle=apigwv2.ThrottleSettings(rate_limit=ADMIN_WRITES.rate,
                                                                    burst_limit=ADMIN_WRITES.burst))
        cfn: apigwv2.CfnStage = stage.node.default_child
        cfn.access_log_settings = apigwv2.CfnStage.AccessLogSettingsProperty(
            destination_arn=access_logs.log_group_arn, format=ACCESS_LOG_FORMAT)
        cfn.route_settings = {route.key: {"ThrottlingRateLimit": throttle(route).rate,
                                          "ThrottlingBurstLimit": throttle(route).burst,
                                          "DetailedMetricsEnabled": True}
                              for route in self.routes}
        return stage

    @property
    def url(self) -> str:
        """The API's own endpoint, ``https://<api id>.execute-api.<region>.<suffix>/``: bikes and scripts."""
        return f"{self.http_api.api_endpoint}/"

    @property
    def domain_name(self) -> str:
        """``<api id>.execute-api.<region>.<suffix>``: the site's CloudFront origin for the API paths."""
        stack = Stack.of(self)
        return f"{self.http_api.api_id}.execute-api.{stack.region}.{stack.url_suffix}"
