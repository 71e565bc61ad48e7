"""AWS IoT Core's custom authorizer for bikes' MQTT connections (``alleycat.edge.ingest_auth``): the racer's
access token as MQTT's password, a policy to publish to their own telemetry topics only. Signing is off
(a browser cannot keep a key), so anyone can make it run: its reserved concurrency caps that (stacks/ingest_auth.py)."""

import logging

from alleycat.edge.ingest_auth import Config, IngestAuthorizer

LOG = logging.getLogger(__name__)  # Lambda's JSON log format; no Powertools on every connection's path
AUTHORIZER = IngestAuthorizer(Config.from_environment())  # its JWKS kept for the instance's life


def handler(event, context):
    verdict = AUTHORIZER.authorize(event)
    if not verdict.authenticated:
        LOG.info("MQTT connection refused: %s", verdict.why,
                 extra={"connection": (event.get("connectionMetadata") or {}).get("id")})
    return verdict.response()
