"""Clients of the AWS services (``dynamo.client`` and one per other service and process, made at its first use,
with the same configuration: ``scheduler``, ``lambdas``, ``page_keys`` use them), all from one botocore session:
a second session would load botocore's endpoint and partition data again (~30 ms of the first request that needs a
second service, ``make bench-page-keys``)."""

from __future__ import annotations

import os
import threading
from functools import cache

_making = threading.Lock()  # a botocore session is not thread-safe: one client made at a time
CREDENTIALS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN")


@cache
def _session(credentials: tuple[str | None, ...]):
    """A session per set of credentials in the environment (a session keeps the first it finds): in Lambda one
    (the execution role's, for the environment's life); the local stack and the tests change them."""
    import botocore.session

    return botocore.session.Session()


def make(service: str, config):
    """A new client of ``service`` from the process's session."""
    with _making:
        return _session(tuple(os.environ.get(name) for name in CREDENTIALS)).create_client(service, config=config)


@cache
def client(service: str):
    from alleycat.storage.dynamo import config

    return make(service, config())
