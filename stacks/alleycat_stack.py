"""The Alleycat stack: table, functions, user pool (sign-up, managed login), HTTP API and the site (CloudFront in front of the
frontend and the API), plus the outputs clients need."""

from __future__ import annotations

from aws_cdk import CfnOutput, RemovalPolicy, Stack
from constructs import Construct

from .api import Api
from .board_events import BoardEvents
from .functions import Functions
from .ingest import IngestLog
from .ingest_auth import IngestAuth
from .monitoring import Monitoring
from .race_finishes import RaceFinishes
from .settings import (
    AUTHORIZER,
    FINISHER,
    HISTORY_WRITER,
    INGEST_CONSUMER,
    KEY_ROTATOR,
    STREAM_PROCESSOR,
    TICKER,
    TOKEN_GROUPS,
)
from .site import Site
from .stream import HistoryWriter, StreamProcessor
from .table import AlleycatTable
from .users import Users

# What a racer publishes to: the telemetry topic rule's Basic Ingest topic. Until the rule is in this stack
# (stacks/ingest.py, issue 53's telemetry log), a name it will be given; then its own ``topic``.


class AlleycatStack(Stack):
    def __init__(self, scope: Construct, id: str, *, throwaway: bool = False, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        # What the stack keeps when it is deleted or a resource is replaced or removed (logs, failure
        # queues): RetainExceptOnCreate, so a first deploy that fails and rolls back deletes what it
        # made rather than leaving it behind. The table, the user pool and the buckets are plain Retain
        # (stacks/table.py, users.py, site.py say why); nothing kept has a name of its own that a
        # later create would need (tests/infrastructure/test_deploy.py).
        removal = RemovalPolicy.DESTROY if throwaway else RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE

        table = AlleycatTable(self, "Data", throwaway=throwaway).table
        functions = Functions(self, "Functions", table=table, removal_policy=removal)
        stream = StreamProcessor(self, "Stream", table=table, functions=functions, removal_policy=removal)
        history = HistoryWriter(self, "History", table=table, functions=functions, removal_policy=removal)
        finishes = RaceFinishes(self, "Finishes", functions=functions, removal_policy=removal)
        finishes.allow_starting(stream.function)
        ingest = IngestLog(self, "Ingest", functions=functions, removal_policy=removal)
        users = Users(self, "Users", functions=functions, throwaway=throwaway)
        api = Api(self, "Api", functions=functions.by_name, users=users, removal_policy=removal)
        boards = BoardEvents(self, "Boards", stream=stream.function, functions=functions, schedules=finishes.group,
                             removal_policy=removal)
        ingest_auth = IngestAuth(self, "IngestAuth", functions=functions, issuer=users.user_pool.user_pool_provider_url,
                                 client_id=users.client.user_pool_client_id, topic=ingest.topic, removal_policy=removal)
        site = Site(self, "Site", api_domain=api.domain_name, removal_policy=removal,
                    config={**boards.site_config, "auth": users.site_config,
                            "ingest": {"url": ingest_auth.url, "username": ingest_auth.username, "topic": ingest.topic}},
                    connect=(f"wss://{boards.api.realtime_dns}", users.domain_url, users.api_url.rstrip("/"),
                             f"wss://{ingest_auth.endpoint}"))
        users.serve(site.url)
        monitoring = Monitoring(self, "Monitoring", api=api, stream=stream, finishes=finishes, boards=boards, alarms=[*ingest.alarms, *history.alarms],
                                functions={**functions.by_name, STREAM_PROCESSOR: stream.function, FINISHER: finishes.function,
                                           TOKEN_GROUPS: users.trigger, TICKER: boards.ticker,
                                           AUTHORIZER: ingest_auth.function, INGEST_CONSUMER: ingest.function,
                                           HISTORY_WRITER: history.function, KEY_ROTATOR: functions.key_rotator})

        CfnOutput(self, "ApiUrl", value=api.url,
                  description="The HTTP API's own endpoint, for bikes and scripts (no CloudFront request fee)")
        CfnOutput(self, "UserPoolId", value=users.user_pool.user_pool_id)
        CfnOutput(self, "UserPoolClientId", value=users.client.user_pool_client_id)
        CfnOutput(self, "SignInUrl", value=users.domain_url,
                  description="Managed login: where the site sends people to sign up and sign in")
        CfnOutput(self, "TableName", value=table.table_name)
        CfnOutput(self, "StreamFailureQueueUrl", value=stream.failures.queue_url)
        CfnOutput(self, "HistoryFailureQueueUrl", value=history.failures.queue_url,
                  description="Second block records the history writer gave up on")
        CfnOutput(self, "IngestTopic", value=ingest.topic,
                  description="Where bikes publish their telemetry over MQTT (IoT Core's Basic Ingest topic of the telemetry rule)")
        CfnOutput(self, "IngestFailureQueueUrl", value=ingest.failures.queue_url,
                  description="Telemetry messages the rule could not put into the log, or the consumer gave up on")
        CfnOutput(self, "FinishFailureQueueUrl", value=finishes.failures.queue_url,
                  description="Races whose finish at their end failed for good (finish them with POST /races/{raceId}/finish)")
        CfnOutput(self, "SiteUrl", value=site.url,
                  description="The frontend and, on the same origin, the API with cached public reads (CloudFront)")
        CfnOutput(self, "BoardEventsHttpUrl", value=boards.http_url,
                  description="AppSync Events: where races' tickers publish race boards (IAM)")
        CfnOutput(self, "BoardEventsRealtimeUrl", value=boards.realtime_url,
                  description="AppSync Events: where browsers subscribe to /races/<raceId> (API key)")
        CfnOutput(self, "IngestUrl", value=ingest_auth.url,
                  description="Telemetry over MQTT: IoT Core's data endpoint (user name and topic: GET /config.json's ingest)")
        CfnOutput(self, "AlarmTopicArn", value=monitoring.topic.topic_arn,
                  description="Every alarm notifies this topic (-c alarmEmail=... subscribes an address)")
