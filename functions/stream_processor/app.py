"""The table's stream: updates entries and boards after telemetry, freezes finished races.

Records are planned one by one (a record that cannot be read is reported alone); the
writes they ask for are then done per batch, and any that fail report the first record
behind them, so Lambda retries from there (``ReportBatchItemFailures``).
"""

from alleycat.observability import count, logger, metrics
from alleycat.processing import Batch


@metrics.log_metrics
@logger.inject_lambda_context
def handler(event, context):
    batch = Batch()
    unreadable = batch.add_all(event["Records"])
    failed = batch.apply()
    if failed:
        count("StreamWorkFailed", len(failed))
    return {"batchItemFailures": [{"itemIdentifier": seq} for seq in unreadable + [s for s in failed if s not in unreadable]]}
