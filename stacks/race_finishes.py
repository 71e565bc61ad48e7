"""Races finish by themselves: the finisher (started by the stream processor when a race is created),
the schedule group it makes each race's one-time schedule in, the role those schedules invoke it
with, and a queue for finishes that failed for good (``alleycat.flows.ending``; the timing is
``alleycat.rules.finishing``'s)."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_scheduler as scheduler
from constructs import Construct

from alleycat.edge.routes import FINISH_ACTIONS
from alleycat.flows import ending
from alleycat.rules import finishing
from alleycat.settings import FINISH_DEAD_LETTER_ARN, FINISH_SCHEDULE_GROUP, FINISH_SCHEDULE_ROLE_ARN, FINISHER_ARN

from . import acknowledge
from .failures import failure_queue, first_message_alarm
from .functions import Functions
from .settings import FINISHER, memory_mb

# The finisher waits for the race's end: at most LONGEST_WAIT seconds, then one transaction.
FINISHER_TIMEOUT = Duration.seconds(finishing.LONGEST_WAIT + 30)
SCHEDULE_PREFIX = ending.schedule_name("")


class RaceFinishes(Construct):
    def __init__(self, scope: Construct, id: str, *, functions: Functions, removal_policy: RemovalPolicy) -> None:
        super().__init__(scope, id)
        stack = Stack.of(self)
        self.failures = failure_queue(self, "Failures", removal_policy=removal_policy,
                                      holds="races' finish schedules and the finisher's asynchronous invocations")
        self.function = functions.add(FINISHER, "Finishes a race at its end (its one-time schedule)", FINISH_ACTIONS,
                                      timeout=FINISHER_TIMEOUT, memory_size=memory_mb(FINISHER))
        # Invoked asynchronously (by its schedule, or at once): retried twice by Lambda, then kept here.
        self.function.configure_async_invoke(on_failure=destinations.SqsDestination(self.failures),
                                             max_event_age=Duration.hours(1), retry_attempts=2)
        # Deleted with the stack, whatever else is kept: it holds only the one-time schedules of races
        # to come, worthless without this stack's finisher, and CDK gives it a fixed name, so a group
        # left behind (by a failed first deploy or a destroy) would fail every later create of the stack.
        self.group = scheduler.ScheduleGroup(self, "Schedules", removal_policy=RemovalPolicy.DESTROY)
        self.schedules_arn = stack.format_arn(service="scheduler", resource="schedule",
                                              resource_name=f"{self.group.schedule_group_name}/{SCHEDULE_PREFIX}*")
        # What the schedules run as: invoke the finisher, or give up on it into the failure queue; nothing else.
        self.role = iam.Role(self, "ScheduleRole", description="Races' finish schedules: invoke the finisher",
                             assumed_by=iam.ServicePrincipal("scheduler.amazonaws.com", conditions={
                                 "StringEquals": {"aws:SourceAccount": stack.account},
                                 "ArnEquals": {"aws:SourceArn": self.group.schedule_group_arn}}))
        self.role.add_to_policy(iam.PolicyStatement(actions=["lambda:InvokeFunction"],
                                                    resources=[self.function.function_arn]))
        self.role.add_to_policy(iam.PolicyStatement(actions=["sqs:SendMessage"], resources=[self.failures.queue_arn]))
        self._allow_scheduling()
        self.alarms = [first_message_alarm(self, "FailuresAlarm", self.failures,
                                           "A race's finish failed for good: finish it by hand (POST /races/{raceId}/finish)")]

    def allow_starting(self, starter: lambda_.Function) -> None:
        """``starter`` (the stream processor) invokes the finisher when a race is created."""
        starter.add_to_role_policy(iam.PolicyStatement(actions=["lambda:InvokeFunction"],
                                                       resources=[self.function.function_arn]))
        starter.add_environment(FINISHER_ARN, self.function.function_arn)

    def _allow_scheduling(self) -> None:
        """The finisher makes its race's one-time schedule (in the group, named finish-<raceId>) with the role."""
        self.function.add_to_role_policy(iam.PolicyStatement(actions=["scheduler:CreateSchedule"],
                                                             resources=[self.schedules_arn]))
        self.function.add_to_role_policy(iam.PolicyStatement(
            actions=["iam:PassRole"], resources=[self.role.role_arn],
            conditions={"StringEquals": {"iam:PassedToService": "scheduler.amazonaws.com"}}))
        for name, value in ((FINISH_SCHEDULE_GROUP, self.group.schedule_group_name),
                            (FINISH_SCHEDULE_ROLE_ARN, self.role.role_arn),
                            (FINISH_DEAD_LETTER_ARN, self.failures.queue_arn)):
            self.function.add_environment(name, value)
        acknowledge(self.function.role, "AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:"
                                        f"<AWS::AccountId>:schedule/{self.group.schedule_group_name}/{SCHEDULE_PREFIX}*]",
                    f"One schedule per race, named {SCHEDULE_PREFIX}<raceId>: only schedules of this group with that prefix.")
