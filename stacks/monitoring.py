"""Race day at a glance: alarms that notify someone, and one dashboard.

Every alarm of the stack goes to one SNS topic (``-c alarmEmail=ops@example.org``
subscribes an address); the dashboard shows requests, errors, throttles and latency
per route, the stream's iterator age and the failure queue.
"""

from __future__ import annotations

from aws_cdk import ArnFormat, Duration, Stack
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from alleycat.edge.routes import ROUTES, Route

from . import pascal
from .api import Api
from .board_events import BoardEvents
from .race_finishes import RaceFinishes
from .stream import StreamProcessor

PERIOD = Duration.minutes(1)
ALARM_PERIOD = Duration.minutes(5)
THIRD = 8
EMAIL_CONTEXT = "alarmEmail"


def at_least_one(scope: Construct, id: str, metric: cloudwatch.IMetric, description: str) -> cloudwatch.Alarm:
    """Alarms on any occurrence within five minutes (a 5xx, an error or a throttle is never normal)."""
    return cloudwatch.Alarm(scope, id, metric=metric, alarm_description=description,
                            threshold=1, evaluation_periods=1,
                            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING)


def alarm_topic(scope: Construct) -> sns.Topic:
    """The topic every alarm notifies; ``-c alarmEmail=...`` subscribes that address.

    Not KMS-encrypted: notifications carry alarm names, states and metric values, no customer
    data, and CloudWatch cannot publish to a topic under the AWS-managed aws/sns key.
    """
    topic = sns.Topic(scope, "Alarms", display_name="Alleycat alarms", enforce_ssl=True)
    # enforce_ssl gives the topic a policy of its own, which replaces SNS's default one: without this
    # statement CloudWatch may not publish, and no alarm would reach anyone. AWS's statement for alarms
    # (CloudWatch's principal, sns:Publish), held to this account's alarms in this Region.
    stack = Stack.of(scope)
    topic.add_to_resource_policy(iam.PolicyStatement(
        sid="AllowThisAccountsAlarmsToPublish", actions=["sns:Publish"], resources=[topic.topic_arn],
        principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
        conditions={"StringEquals": {"aws:SourceAccount": stack.account},
                    "ArnLike": {"aws:SourceArn": stack.format_arn(service="cloudwatch", resource="alarm",
                                                                  resource_name="*",
                                                                  arn_format=ArnFormat.COLON_RESOURCE_NAME)}}))
    email = scope.node.try_get_context(EMAIL_CONTEXT)
    if email:
        topic.add_subscription(subscriptions.EmailSubscription(email))
    return topic


class Monitoring(Construct):
    def __init__(self, scope: Construct, id: str, *, functions: dict[str, lambda_.Function],
                 api: Api, stream: StreamProcessor, finishes: RaceFinishes, boards: BoardEvents, routes: tuple[Route, ...] = ROUTES,
                 alarms: list[cloudwatch.Alarm] | None = None) -> None:
        super().__init__(scope, id)
        self.topic = alarm_topic(self)

        self._api, self._routes, self._functions = api, routes, functions
        self.alarms = [*stream.alarms, *finishes.alarms, *boards.alarms, *(alarms or ()), at_least_one(
            self, "Api5xxAlarm", api.stage.metric_server_error(period=ALARM_PERIOD, statistic="Sum"),
            "The API answered 5xx (a bug, a timeout or a throttled function)")]
        for name, function in functions.items():
            self.alarms += [
                at_least_one(self, f"{pascal(name)}ErrorsAlarm",
                             function.metric_errors(period=ALARM_PERIOD, statistic="Sum"),
                             f"{name} failed (an unhandled error or a timeout)"),
                at_least_one(self, f"{pascal(name)}ThrottlesAlarm",
                             function.metric_throttles(period=ALARM_PERIOD, statistic="Sum"),
                             f"{name} was throttled (account or reserved concurrency reached)"),
            ]
        for alarm in self.alarms:
            alarm.add_alarm_action(actions.SnsAction(self.topic))
            alarm.add_ok_action(actions.SnsAction(self.topic))

        self.dashboard = cloudwatch.Dashboard(
            self, "Dashboard", dashboard_name=f"{Stack.of(self).stack_name}-race-day",
            default_interval=Duration.hours(3))
        self.dashboard.add_widgets(*self._api_row())
        self.dashboard.add_widgets(*self._function_row())
        self.dashboard.add_widgets(*self._stream_row(stream))

    def _per_route(self, metric_name: str, statistic: str) -> list[cloudwatch.Metric]:
        """The HTTP API's per-route metric (detailed metrics are on), one line per route."""
        return [cloudwatch.Metric(
            namespace="AWS/ApiGateway", metric_name=metric_name, statistic=statistic, period=PERIOD,
            label=route.key,
            dimensions_map={"ApiId": self._api.http_api.api_id, "Stage": self._api.stage.stage_name,
                            "Method": route.method, "Resource": route.path})
            for route in self._routes]

    def _per_function(self, metric_name: str, statistic: str) -> list[cloudwatch.IMetric]:
        return [function.metric(metric_name, statistic=statistic, period=PERIOD, label=name)
                for name, function in self._functions.items()]

    def _api_row(self) -> list[cloudwatch.IWidget]:
        stage = self._api.stage
        return [
            cloudwatch.GraphWidget(title="Requests per route (per minute)", width=THIRD, stacked=True,
                                   left=self._per_route("Count", "Sum")),
            cloudwatch.GraphWidget(title="API errors (per minute)", width=THIRD, left=[
                stage.metric_client_error(period=PERIOD, statistic="Sum", label="4xx"),
                stage.metric_server_error(period=PERIOD, statistic="Sum", label="5xx")]),
            cloudwatch.GraphWidget(title="Latency per route, p99 (ms)", width=THIRD,
                                   left=self._per_route("Latency", "p99")),
        ]

    def _function_row(self) -> list[cloudwatch.IWidget]:
        return [
            cloudwatch.GraphWidget(title="Function errors (per minute)", width=THIRD,
                                   left=self._per_function("Errors", "Sum")),
            cloudwatch.GraphWidget(title="Function throttles (per minute)", width=THIRD,
                                   left=self._per_function("Throttles", "Sum")),
            cloudwatch.GraphWidget(title="Function duration, p99 (ms)", width=THIRD,
                                   left=self._per_function("Duration", "p99")),
        ]

    def _stream_row(self, stream: StreamProcessor) -> list[cloudwatch.IWidget]:
        return [
            cloudwatch.GraphWidget(title="Stream iterator age, max (ms)", width=THIRD,
                                   left=[stream.iterator_age]),
            cloudwatch.GraphWidget(title="Failure queue: records waiting", width=THIRD,
                                   left=[stream.failures_waiting]),
            cloudwatch.AlarmStatusWidget(title="Alarms", width=THIRD, alarms=self.alarms),
        ]
