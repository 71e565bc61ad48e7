"""The race's ticker, invoked with ``{"raceId"}`` by the stream processor when the race is created (far
from its start it schedules itself), by that one-time schedule, or with ``{"raceId", "from"}`` by the
invocation it takes over from: the race's board pushed once a race second (``alleycat.flows.ticking``)."""

from alleycat.aws import events
from alleycat.flows import ticking
from alleycat.observability import end_invocation, logger, metrics


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    first = event.get("from")
    outcome = ticking.tick(event["raceId"], events.publisher(), context.invoked_function_arn, context.aws_request_id,
                           None if first is None else int(first))
    end_invocation("tick", failed=False, raceId=event["raceId"], outcome=outcome)
    return {"raceId": event["raceId"], "outcome": outcome}
