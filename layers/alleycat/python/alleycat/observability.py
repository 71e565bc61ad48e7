"""Logger and Metrics, created once per process and shared by every function.

No tracer: Lambda's active tracing (CDK ``Tracing.ACTIVE``) records each invocation's
segment without an SDK, and the X-Ray SDK alone cost ~300 ms of cold start.
"""

import os
import warnings

from aws_lambda_powertools import Logger, Metrics

logger = Logger()
metrics = Metrics()

# Powertools warns on every invocation that counted nothing (a read, a quiet stream batch, any
# function with metrics disabled): a line of noise per request in the logs and the local stack.
warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)

# Disabled metrics are still buffered by Powertools (and printed every 100 values): skip them.
METRICS_ENABLED = os.environ.get("POWERTOOLS_METRICS_DISABLED", "false").lower() != "true"


def count(name: str, value: int) -> None:
    if METRICS_ENABLED:
        metrics.add_metric(name=name, unit="Count", value=value)
