"""Logger and Metrics, created once per process and shared by every function.

No tracer: Lambda's active tracing (CDK ``Tracing.ACTIVE``) records each invocation's
segment without an SDK, and the X-Ray SDK alone cost ~300 ms of cold start.

What an invocation writes (``stacks/settings.py``: LOG_SAMPLE_RATE and Lambda's log levels):
INFO and DEBUG lines go to Powertools' log buffer, not to the log; ``end_invocation`` writes the
buffer when the invocation failed (or always, in a sampled invocation: Powertools' log
sampling sets DEBUG for that share of invocations) and drops it otherwise. A healthy
request's log is then its metrics line alone; a failed one keeps every line it logged.
"""

import logging
import warnings

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.buffer import LoggerBufferConfig

from alleycat import settings

# Sampling from POWERTOOLS_LOGGER_SAMPLE_RATE (the stack sets stacks.settings.LOG_SAMPLE_RATE); the
# buffer holds INFO and DEBUG lines of the current invocation (keyed by its X-Ray trace id,
# which Lambda sets for every invocation) and is written on the first error line.
logger = Logger(buffer_config=LoggerBufferConfig(max_bytes=20480, buffer_at_verbosity="INFO",
                                                 flush_on_error_log=True))
metrics = Metrics()

# Powertools warns on every invocation that counted nothing (a read, a quiet stream batch, any
# function with metrics disabled): a line of noise per request in the logs and the local stack.
warnings.filterwarnings("ignore", message="No application metrics to publish", category=UserWarning)

# Disabled metrics are still buffered by Powertools (and printed every 100 values): skip them.
# Asked at each call: a process that sets its environment after importing this (the bench, the
# local stack's workers) must see the setting it made (after ``settings.reset``).
def metrics_enabled() -> bool:
    return settings.load().metrics_enabled


METRICS_ENABLED = metrics_enabled()  # at import: whether a cold start is counted


def count(name: str, value: int) -> None:
    if metrics_enabled():
        metrics.add_metric(name=name, unit="Count", value=value)


def seconds(name: str, value: float) -> None:
    if metrics_enabled():
        metrics.add_metric(name=name, unit="Seconds", value=value)


def sampled() -> bool:
    """Whether this invocation writes its buffered lines although it went well (log sampling)."""
    return logger.log_level <= logging.DEBUG


def end_invocation(message: str, failed: bool, error: bool = False, **details) -> None:
    """The invocation's closing line: buffered, then written with the whole buffer if the
    invocation failed — a caller's error (4xx) as a warning, the service's (5xx, a stream batch
    with failed work) as an error — or was sampled; dropped otherwise."""
    if failed or error:
        (logger.error if error else logger.warning)(message, extra=details, stacklevel=3)
        logger.flush_buffer()
        return
    logger.info(message, extra=details, stacklevel=3)
    if sampled():
        logger.flush_buffer()
    else:
        logger.clear_buffer()
