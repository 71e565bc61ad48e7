"""The table's stream: live boards after telemetry, settled races, names after renames.

Records are planned one by one (a record that cannot be read is reported alone); the
work they ask for is then done per batch (``alleycat.stream``), and any that fails reports
the first record behind it, so Lambda retries from there (``ReportBatchItemFailures``).
"""

from alleycat.aws import events
from alleycat.observability import count, end_invocation, logger, metrics
from alleycat.stream.plan import Plan
from alleycat.stream.reactions import react


def samples_accepted(records: list[dict]) -> int:
    """Seconds the batch's chunk records added (``s<second>`` attributes new in the image): the
    samples telemetry accepted, counted here once per batch instead of once per request."""
    added = 0
    for record in records:
        change = record.get("dynamodb", {})
        new, old = change.get("NewImage") or {}, change.get("OldImage") or {}
        if new.get("type", {}).get("S") == "Chunk":
            added += sum(1 for name in new if name.startswith("s") and name[1:].isdigit() and name not in old)
    return added


@metrics.log_metrics
@logger.inject_lambda_context(flush_buffer_on_uncaught_error=True)
def handler(event, context):
    accepted = samples_accepted(event["Records"])
    if accepted:
        count("SamplesAccepted", accepted)
    plan, unreadable = Plan.of(event["Records"])
    failed = react(plan, events.publisher())
    if failed:
        count("StreamWorkFailed", len(failed))
    end_invocation("batch", failed=bool(unreadable or failed), error=bool(unreadable or failed),
                   records=len(event["Records"]), failed_records=len(set(unreadable) | set(failed)))
    return {"batchItemFailures": [{"itemIdentifier": seq} for seq in unreadable + [s for s in failed if s not in unreadable]]}
