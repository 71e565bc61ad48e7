"""Live race boards pushed to browsers: an AppSync Events API with one channel namespace, ``races``.

Each race's ticker publishes its board on ``/races/<raceId>`` once a race second (``alleycat.flows.ticking``,
timed by ``alleycat.rules.ticking``; the message is ``alleycat.edge.push``'s) over the API's HTTP endpoint, signed
with its own role (IAM). The stream processor starts a race's ticker when the race is created and tells
viewers of a settled race's review decisions. Browsers subscribe over the real-time WebSocket endpoint
with an API key.

**Who may do what.** Connecting and subscribing take the API key, and only the API key; publishing
takes IAM, and only IAM (the API's defaults and the namespace's modes say the same), and the only
roles granted ``appsync:EventPublish`` are the stream processor's and the ticker's, on this namespace alone. A browser
holding the key can read race boards, which are public anyway (``GET /races/{raceId}/leaderboard``
is a public route), and cannot publish: its key is not an auth mode publishing accepts.

**Why an API key, not a Cognito identity pool's unauthenticated role.** Both let an anonymous
viewer subscribe and not publish. The key is the least a browser needs: one header in the
subprotocol list, no AWS credentials in the browser at all, no SigV4 signer in the bundle, no
round trips to Cognito before the first message, and nothing more in the CSP than the real-time
endpoint. An unauthenticated role would hand every visitor temporary AWS credentials, whose worth
is only as narrow as that role's policy stays, for nothing the key does not give. The key's costs:
it is public (by design here), and AppSync keys expire: each deploy sets it to expire 364 days after
the deploy's day (AppSync allows at most 365), so a stack not deployed for 364 days loses its live
boards (the page then polls, as without push) until its next deploy. AppSync deletes a key 60 days
after it expired, and a deleted key cannot be updated (``ApiKey``, AppSync API reference): a deploy
extending it would fail. So the key is replaced by a new one (a new logical id) at the first deploy of
each ``KEY_GENERATION_DAYS`` period, which a stack idle for 364 + 60 days always reaches (docs/deploy.md).
"""

from __future__ import annotations

import time

from aws_cdk import Duration, Expiration, RemovalPolicy, Stack
from aws_cdk import aws_appsync as appsync
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_logs as logs
from aws_cdk import aws_scheduler as scheduler
from constructs import Construct

from alleycat.edge.push import NAMESPACE
from alleycat.flows import ticking
from alleycat.rules import ticking as rules_ticking
from alleycat.settings import (
    EVENT_API_URL,
    FINISH_SCHEDULE_GROUP,
    TICKER_ARN,
    TICKER_DEAD_LETTER_ARN,
    TICKER_SCHEDULE_ROLE_ARN,
)

from . import acknowledge
from .failures import failure_queue, first_message_alarm
from .functions import Functions
from .settings import TICKER, TICKER_ACTIONS, memory_mb

API_KEY = appsync.AppSyncAuthorizationType.API_KEY
IAM = appsync.AppSyncAuthorizationType.IAM
KEY_LIFETIME_DAYS = 364  # AppSync allows 1 to 365 days from the deploy
# A key of the same logical id as the last deploy's is extended; once per period a new one replaces
# it. At most the key's lifetime: the next deploy of a stack whose key AppSync deleted (60 days after
# it expired) is in a later period.
KEY_GENERATION_DAYS = KEY_LIFETIME_DAYS
TICK_SCHEDULE_PREFIX = ticking.schedule_name("")


def key_expiry(now: float | None = None) -> Expiration:
    """364 days from the start of today (UTC): the key is renewed by every deploy, and the template
    changes once a day, not at every synth."""
    today = int(time.time() if now is None else now) // 86_400 * 86_400
    return Expiration.at_timestamp((today + KEY_LIFETIME_DAYS * 86_400) * 1000)


def key_name(now: float | None = None) -> str:
    """The viewers' key of this period (its logical id derives from it): ``viewers<period>``."""
    return f"viewers{int(time.time() if now is None else now) // 86_400 // KEY_GENERATION_DAYS}"


class BoardEvents(Construct):
    def __init__(self, scope: Construct, id: str, *, stream: lambda_.Function, functions: Functions,
                 schedules: scheduler.ScheduleGroup, removal_policy: RemovalPolicy = RemovalPolicy.RETAIN) -> None:
        super().__init__(scope, id)
        self.ticker = self._ticker(stream, functions, schedules, removal_policy)
        # Errors only (a refused publish or subscription), into a log group of the stack's own,
        # written by a role that may write there and nowhere else (not AWS's managed policy).
        logs_role = iam.Role(self, "LogsRole", assumed_by=iam.ServicePrincipal("appsync.amazonaws.com"),
                             description="AppSync Events writes the race-board API's error logs")
        now = time.time()
        self.key_name = key_name(now)
        viewers = appsync.AppSyncAuthProvider(
            authorization_type=API_KEY,
            api_key_config=appsync.AppSyncApiKeyConfig(
                name=self.key_name, description="Anonymous viewers: connect and subscribe to race boards only",
                expires=key_expiry(now)))
        self.api = appsync.EventApi(
            self, "Api", api_name=f"{Stack.of(self).stack_name}-boards",
            authorization_config=appsync.EventApiAuthConfig(
                auth_providers=[viewers, appsync.AppSyncAuthProvider(authorization_type=IAM)],
                connection_auth_mode_types=[API_KEY],
                default_subscribe_auth_mode_types=[API_KEY],
                default_publish_auth_mode_types=[IAM]))
        # Set on the resource, not through ``log_config``: the L2 would add a LogRetention custom
        # resource (a Lambda function with AWS managed policies) to a log group this stack owns anyway.
        self.api.node.default_child.add_property_override("EventConfig.LogConfig", {
            "CloudWatchLogsRoleArn": logs_role.role_arn, "LogLevel": "ERROR"})
        self.logs = logs.LogGroup(self, "Logs", log_group_name=f"/aws/appsync/apis/{self.api.api_id}",
                                  retention=logs.RetentionDays.ONE_MONTH, removal_policy=removal_policy)
        self.logs.grant_write(logs_role)
        self.namespace = self.api.add_channel_namespace(
            "Races", channel_namespace_name=NAMESPACE,
            authorization_config=appsync.NamespaceAuthConfig(publish_auth_mode_types=[IAM],
                                                             subscribe_auth_mode_types=[API_KEY]))
        for publisher in (stream, self.ticker):
            self.namespace.grant_publish(publisher)
            publisher.add_environment(EVENT_API_URL, self.http_url)

    def _ticker(self, stream: lambda_.Function, functions: Functions, schedules: scheduler.ScheduleGroup,
                removal_policy: RemovalPolicy) -> lambda_.Function:
        """A race's ticker: started by the stream processor for each race created, by its one-time schedule
        (in the finishes' group, named tick-<raceId>) when the start is far, and by itself, handing over."""
        stack = Stack.of(self)
        ticker = functions.add(TICKER, "Pushes a race's board once a race second", TICKER_ACTIONS,
                               timeout=Duration.seconds(rules_ticking.RUN_SECONDS + 30), memory_size=memory_mb(TICKER))
        self.failures = failure_queue(self, "TickerFailures", removal_policy=removal_policy,
                                      holds="races' tick schedules and the ticker's asynchronous invocations")
        self.alarms = [first_message_alarm(self, "TickerFailuresAlarm", self.failures,
                                           "A race's ticker failed for good: its viewers' boards are not pushed (they poll on reconnecting)")]
        # A ticker that failed resumes from the race's current second (missed ticks are skipped), so Lambda's
        # retries are worth it; one older than a few minutes is not.
        ticker.configure_async_invoke(on_failure=destinations.SqsDestination(self.failures),
                                      max_event_age=Duration.minutes(5), retry_attempts=2)
        stream.add_to_role_policy(iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[ticker.function_arn]))
        stream.add_environment(TICKER_ARN, ticker.function_arn)
        # Its own hand-over: a policy of its own, not the role's default one, which the function depends on.
        iam.Policy(self, "HandOver", roles=[ticker.role], statements=[iam.PolicyStatement(
            actions=["lambda:InvokeFunction"], resources=[ticker.function_arn])])
        role = iam.Role(self, "TickScheduleRole", description="Races' tick schedules: invoke the ticker",
                        assumed_by=iam.ServicePrincipal("scheduler.amazonaws.com", conditions={
                            "StringEquals": {"aws:SourceAccount": stack.account},
                            "ArnEquals": {"aws:SourceArn": schedules.schedule_group_arn}}))
        role.add_to_policy(iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[ticker.function_arn]))
        role.add_to_policy(iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[self.failures.queue_arn]))
        schedules_arn = stack.format_arn(service="scheduler", resource="schedule",
                                         resource_name=f"{schedules.schedule_group_name}/{TICK_SCHEDULE_PREFIX}*")
        ticker.add_to_role_policy(iam.PolicyStatement(actions=["scheduler:CreateSchedule"], resources=[schedules_arn]))
        ticker.add_to_role_policy(iam.PolicyStatement(
            actions=["iam:PassRole"], resources=[role.role_arn],
            conditions={"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}}))
        for name, value in ((FINISH_SCHEDULE_GROUP, schedules.schedule_group_name), (TICKER_SCHEDULE_ROLE_ARN, role.role_arn),
                            (TICKER_DEAD_LETTER_ARN, self.failures.queue_arn)):
            ticker.add_environment(name, value)
        acknowledge(ticker.role, "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:"
                                 f"<AWS::AccountId>:schedule/{schedules.schedule_group_name}/{TICK_SCHEDULE_PREFIX}*]",
                    f"One schedule per race, named {TICK_SCHEDULE_PREFIX}<raceId>: only schedules of this group with that prefix.")
        return ticker

    @property
    def http_url(self) -> str:
        """``https://<id>.appsync-api.<region>.amazonaws.com/event``: where the stream processor publishes."""
        return f"https://{self.api.http_dns}/event"

    @property
    def realtime_url(self) -> str:
        return f"wss://{self.api.realtime_dns}/event/realtime"

    @property
    def site_config(self) -> dict:
        """What the browser needs (``/config.json``, deployed with the site; the local stack serves the same)."""
        return {"events": {"realtime": self.realtime_url, "host": self.api.http_dns,
                           "apiKey": self.api.api_keys[self.key_name].attr_api_key}}
