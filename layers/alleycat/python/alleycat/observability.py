"""Logger, Tracer and Metrics, created once per process and shared by every function."""

from aws_lambda_powertools import Logger, Metrics, Tracer

logger = Logger()
tracer = Tracer()
metrics = Metrics()
