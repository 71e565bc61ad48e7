"""Lambda's Invoke: another function run asynchronously (the finisher, the race ticker)."""

from __future__ import annotations

import json

from alleycat.aws.clients import client


def invoke_later(function: str, event: dict) -> None:
    """``function`` invoked asynchronously with ``event`` (Lambda queues it, retries it, or gives it up
    to the function's failure destination): returns once Lambda has accepted it."""
    client("lambda").invoke(FunctionName=function, InvocationType="Event", Payload=json.dumps(event))
