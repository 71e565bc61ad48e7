"""Clients of the AWS services besides DynamoDB (``dynamo.client``): one per service and process, made
at its first use, with the same configuration (``scheduler``, ``lambdas`` use them)."""

from __future__ import annotations

from functools import cache


@cache
def client(service: str):
    import botocore.session

    from alleycat.storage.dynamo import config

    return botocore.session.Session().create_client(service, config=config())

