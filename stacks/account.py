"""API Gateway's CloudWatch logging role: one per account and region, shared by every API.

The Alleycat stack logs its API (access and execution logs), which needs this account
setting, but never manages it: ``AWS::ApiGateway::Account`` is a singleton, and whichever
stack owns it overwrites the role every other API in the account relies on. Deploy this
stack once, only in an account and region whose API Gateway settings have no CloudWatch
role yet: ``npx cdk deploy AlleycatApiGatewayAccount``.
"""

from __future__ import annotations

from aws_cdk import Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from constructs import Construct

from . import acknowledge

MANAGED_POLICY = "service-role/AmazonAPIGatewayPushToCloudWatchLogs"


class ApiGatewayAccountStack(Stack):
    def __init__(self, scope: Construct, id: str, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        role = iam.Role(self, "CloudWatchRole", assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
                        managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(MANAGED_POLICY)],
                        description="API Gateway writes the account's API logs to CloudWatch")
        apigw.CfnAccount(self, "Account", cloud_watch_role_arn=role.role_arn)
        acknowledge(role, f"AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{MANAGED_POLICY}]",
                    "The account-level role API Gateway uses to write access and execution logs; the AWS "
                    "managed policy is the documented, minimal policy for exactly this purpose.")
