"""Logger, Tracer and Metrics, created once per process and shared by every function."""

import os

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
tracer = Tracer()
metrics = Metrics()

# Disabled metrics are still buffered by Powertools (and printed every 100 values): skip them.
METRICS_ENABLED = os.environ.get("POWERTOOLS_METRICS_DISABLED", "false").lower() != "true"


def count(name: str, value: int) -> None:
    if METRICS_ENABLED:
        metrics.add_metric(name=name, unit="Count", value=value)
