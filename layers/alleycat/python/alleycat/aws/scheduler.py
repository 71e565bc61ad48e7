"""EventBridge Scheduler: one-time schedules that invoke a Lambda function once, in the minute they name."""

from __future__ import annotations

import json

from alleycat import clock
from alleycat.aws.clients import client


def create_one_time_schedule(name: str, group: str, minute: float, description: str, target_arn: str, role_arn: str,
                             event: dict, retries: int, max_event_age_seconds: int, dead_letter_arn: str) -> bool:
    """A schedule that invokes ``target_arn`` with ``event`` (as ``role_arn``) somewhere in ``minute`` (epoch
    seconds of a whole UTC minute) and deletes itself once it has run; failed invocations are retried
    ``retries`` times, then sent to ``dead_letter_arn``. False when ``group`` holds a schedule of that name."""
    scheduler = client("scheduler")
    try:
        scheduler.create_schedule(
            Name=name, GroupName=group,
            ScheduleExpression=f"at({clock.iso(minute)[:-1]})", ScheduleExpressionTimezone="UTC",
            FlexibleTimeWindow={"Mode": "OFF"}, ActionAfterCompletion="DELETE", Description=description[:512],
            Target={"Arn": target_arn, "RoleArn": role_arn, "Input": json.dumps(event),
                    "RetryPolicy": {"MaximumRetryAttempts": retries, "MaximumEventAgeInSeconds": max_event_age_seconds},
                    "DeadLetterConfig": {"Arn": dead_letter_arn}})
    except scheduler.exceptions.ConflictException:
        return False
    return True
