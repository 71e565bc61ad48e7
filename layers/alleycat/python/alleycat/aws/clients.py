"""Clients of the AWS services besides DynamoDB (``dynamo.client``): one per service and process, made
at its first use, with the same configuration."""

from __future__ import annotations

import json
from functools import lru_cache


@lru_cache(maxsize=None)
def client(service: str):
    import botocore.session

    from alleycat.storage.dynamo import config

    return botocore.session.Session().create_client(service, config=config())


def invoke_later(function: str, event: dict) -> None:
    """``function`` invoked asynchronously with ``event`` (Lambda queues it, retries it, or gives it up
    to the function's failure destination): returns once Lambda has accepted it."""
    client("lambda").invoke(FunctionName=function, InvocationType="Event", Payload=json.dumps(event))
