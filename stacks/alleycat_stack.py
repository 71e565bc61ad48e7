"""The Alleycat stack: table, functions, user pool, API and frontend site, plus the outputs clients need."""

from __future__ import annotations

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from constructs import Construct

from alleycat.routes import STREAM_PROCESSOR

from .api import Api, UserPool
from .functions import Functions
from .monitoring import Monitoring
from .site import Site
from .stream import StreamProcessor
from .table import AlleycatTable


class AlleycatStack(Stack):
    def __init__(self, scope: Construct, id: str, *, throwaway: bool = False, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        removal = RemovalPolicy.DESTROY if throwaway else RemovalPolicy.RETAIN

        table = AlleycatTable(self, "Data", throwaway=throwaway).table
        site = Site(self, "Site", removal_policy=removal)
        functions = Functions(self, "Functions", table=table, removal_policy=removal,
                              allowed_origin=site.origin)
        stream = StreamProcessor(self, "Stream", table=table, functions=functions, removal_policy=removal)
        users = UserPool(self, "Users", throwaway=throwaway)
        api = Api(self, "Api", functions=functions.by_name, user_pool=users.user_pool,
                  removal_policy=removal, allowed_origin=site.origin)
        site.publish(api.url, api.origin)
        monitoring = Monitoring(self, "Monitoring", functions={**functions.by_name, STREAM_PROCESSOR: stream.function},
                                api=api.rest_api, stream=stream)

        CfnOutput(self, "ApiUrl", value=api.url, description="Base URL of the prod stage")
        CfnOutput(self, "UserPoolId", value=users.user_pool.user_pool_id)
        CfnOutput(self, "UserPoolClientId", value=users.client.user_pool_client_id)
        CfnOutput(self, "TableName", value=table.table_name)
        CfnOutput(self, "StreamFailureQueueUrl", value=stream.failures.queue_url)
        CfnOutput(self, "SiteUrl", value=site.url, description="The frontend (CloudFront)")
        CfnOutput(self, "AlarmTopicArn", value=monitoring.topic.topic_arn,
                  description="Every alarm notifies this topic (-c alarmEmail=... subscribes an address)")
