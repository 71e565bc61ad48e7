"""The board publisher, invoked asynchronously with ``{"raceId", "at"}`` by the stream processor when a
race's board changed while its next message was not yet due (``alleycat.flows.pushing``): at ``at`` (epoch
milliseconds, at most a message's interval away) it sends the race's board as it is then."""

from alleycat.aws import events
from alleycat.flows.pushing import push_later
from alleycat.observability import end_invocation, logger, metrics


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    sent = push_later(events.publisher(), event["raceId"], int(event["at"]))
    end_invocation("publish", failed=False, raceId=event["raceId"], sent=sent)
    return {"raceId": event["raceId"], "sent": sent}
