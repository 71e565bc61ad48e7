"""The REST API, generated from ``alleycat.routes``, and the Cognito user pool guarding it."""

from __future__ import annotations

import re

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from alleycat.routes import ROUTES, Route

from . import acknowledge

ADMIN_GROUP = "admin"  # alleycat.http.ADMIN: members may act on others' resources
CORS_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key"]
CORS_METHODS = ["GET", "PUT", "POST", "OPTIONS"]
STAGE = "prod"
PUBLIC_READ = "Public read route: race data, leaderboards and results are public per the API contract."


def path_parameters(path: str) -> dict[str, bool]:
    """``/races/{raceId}`` -> ``{"method.request.path.raceId": True}`` (required)."""
    return {f"method.request.path.{name}": True for name in re.findall(r"\{(\w+)\}", path)}


class UserPool(Construct):
    """Admin-created accounts only, strong passwords, TOTP required, an ``admin`` group.

    The app client signs in with SRP only: no OAuth flows, no hosted UI, no callback URLs.
    """

    def __init__(self, scope: Construct, id: str, *, throwaway: bool = False) -> None:
        super().__init__(scope, id)
        self.user_pool = cognito.UserPool(
            self, "UserPool",
            self_sign_up_enabled=False,
            sign_in_aliases=cognito.SignInAliases(email=True),
            auto_verify=cognito.AutoVerifiedAttrs(email=True),
            password_policy=cognito.PasswordPolicy(
                min_length=12, require_lowercase=True, require_uppercase=True,
                require_digits=True, require_symbols=True,
                temp_password_validity=Duration.days(3)),
            # Admins may do every write and Cognito cannot require a factor per group:
            # every account gets TOTP (accounts are admin-created; no SMS cost or SIM swap).
            mfa=cognito.Mfa.REQUIRED,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.ESSENTIALS,
            deletion_protection=not throwaway,
            removal_policy=RemovalPolicy.DESTROY if throwaway else RemovalPolicy.RETAIN,
        )
        self.client = self.user_pool.add_client(
            "AppClient",
            auth_flows=cognito.AuthFlow(user_srp=True),
            generate_secret=False,
            prevent_user_existence_errors=True,
            disable_o_auth=True,  # CDK's default would allow the implicit grant to https://example.com
        )
        cognito.CfnUserPoolGroup(self, "AdminGroup", user_pool_id=self.user_pool.user_pool_id,
                                 group_name=ADMIN_GROUP, description="Alleycat administrators")
        acknowledge(self.user_pool, "AwsSolutions-COG8",
                    "Plus feature plan (threat protection) is a per-MAU cost not justified yet: "
                    "no self sign-up, strong passwords, TOTP required. Revisit when sign-up opens.")


class Api(Construct):
    """One method per route, Lambda proxy integration, Cognito on every non-public route."""

    def __init__(self, scope: Construct, id: str, *, functions: dict[str, lambda_.IFunction],
                 user_pool: cognito.IUserPool, routes: tuple[Route, ...] = ROUTES,
                 removal_policy: RemovalPolicy = RemovalPolicy.RETAIN,
                 allowed_origin: str = "*") -> None:
        super().__init__(scope, id)
        access_logs = logs.LogGroup(self, "AccessLogs", retention=logs.RetentionDays.ONE_MONTH,
                                    removal_policy=removal_policy)
        self.rest_api = apigw.RestApi(
            self, "RestApi",
            rest_api_name=f"{Stack.of(self).stack_name}-api",
            description="Alleycat racing API",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            # The account's API Gateway logging role is an account-wide singleton: not this
            # stack's to overwrite (stacks/account.py sets it once where an account has none).
            cloud_watch_role=False,
            default_cors_preflight_options=apigw.CorsOptions(
                allow_origins=[allowed_origin], allow_methods=CORS_METHODS,
                allow_headers=CORS_HEADERS, max_age=Duration.minutes(5)),
            deploy_options=apigw.StageOptions(
                stage_name=STAGE,
                throttling_rate_limit=1000,
                throttling_burst_limit=2000,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                    caller=True, http_method=True, ip=True, protocol=True, request_time=True,
                    resource_path=True, response_length=True, status=True, user=True),
                tracing_enabled=True,
                metrics_enabled=True,
                logging_level=apigw.MethodLoggingLevel.INFO,
                data_trace_enabled=False,  # never log request/response bodies
            ),
        )
        self.rest_api.node.try_remove_child("Endpoint")  # the stack exports ApiUrl instead
        # The group API Gateway writes execution logs to, owned here so it has a retention;
        # the stage waits for it, so API Gateway never creates it first.
        execution_logs = logs.LogGroup(
            self, "ExecutionLogs", log_group_name=f"API-Gateway-Execution-Logs_{self.rest_api.rest_api_id}/{STAGE}",
            retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal_policy)
        self.rest_api.deployment_stage.node.add_dependency(execution_logs)
        # API Gateway's own errors (401 from the authorizer, 400 from validation, 429, 5xx)
        # carry CORS headers too, so browsers can read them.
        for response_type in (apigw.ResponseType.DEFAULT_4_XX, apigw.ResponseType.DEFAULT_5_XX):
            self.rest_api.add_gateway_response(
                response_type.response_type, type=response_type,
                response_headers={"Access-Control-Allow-Origin": f"'{allowed_origin}'"})
        # Path parameters are enforced here; bodies are validated by the handlers' JSON schemas
        # (the validator also checks bodies against any model attached later).
        validator = self.rest_api.add_request_validator(
            "RequestValidator", validate_request_parameters=True, validate_request_body=True)
        authorizer = apigw.CognitoUserPoolsAuthorizer(self, "Authorizer", cognito_user_pools=[user_pool])

        for route in routes:
            resource = self.rest_api.root.resource_for_path(route.path)
            auth = (dict(authorizer=authorizer, authorization_type=apigw.AuthorizationType.COGNITO)
                    if route.protected else dict(authorization_type=apigw.AuthorizationType.NONE))
            method = resource.add_method(
                route.method,
                apigw.LambdaIntegration(functions[route.function], allow_test_invoke=False),
                request_parameters=path_parameters(route.path),
                request_validator=validator,
                **auth,
            )
            if not route.protected:
                for rule in ("AwsSolutions-APIG4", "AwsSolutions-COG4"):
                    acknowledge(method, rule, PUBLIC_READ)

        self._acknowledge()

    def _acknowledge(self) -> None:
        acknowledge(self.rest_api.deployment_stage, "AwsSolutions-APIG3",
                    "No WAFv2 web ACL yet (fixed + per-request cost); stage throttling (1000 rps, "
                    "burst 2000) bounds abuse. Attach a web ACL before high-traffic public use.")

    @property
    def url(self) -> str:
        return self.rest_api.url

    @property
    def origin(self) -> str:
        """``https://<api id>.execute-api.<region>.<suffix>``: from the API alone, not its stage,
        so the site's headers policy can name it without a dependency cycle."""
        stack = Stack.of(self)
        return f"https://{self.rest_api.rest_api_id}.execute-api.{stack.region}.{stack.url_suffix}"
