"""The finisher, invoked with ``{"raceId": ...}``: by the stream processor when the race is created
(far from its end it schedules itself), then by that one-time schedule (or at once, near the end)
to finish the race at its end as ``POST /races/{raceId}/finish`` does (``alleycat.flows.ending``)."""

from alleycat.flows import ending
from alleycat.observability import end_invocation, logger, metrics


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    outcome = ending.finish_when_due(event["raceId"], context.invoked_function_arn)
    end_invocation("finish", failed=False, raceId=event["raceId"], outcome=outcome)
    return {"raceId": event["raceId"], "outcome": outcome}
