"""The finisher: invoked by the race's one-time schedule (or at once, for a race too near its end to
schedule) with ``{"raceId": ...}``; finishes the race at its end as ``POST /races/{raceId}/finish`` does."""

from alleycat import ending
from alleycat.observability import finish, logger, metrics


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    finished = ending.finish_when_due(event["raceId"])
    finish("finish", failed=False, error=False, raceId=event["raceId"], finished=finished)
    return {"raceId": event["raceId"], "finished": finished}
