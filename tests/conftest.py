"""Shared test setup: the layer on the import path (as in Lambda) and no real AWS."""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "layers" / "alleycat" / "python"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

os.environ.setdefault("PAGE_TOKEN_KEY", "test-page-token-key")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Alleycat")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "alleycat")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")


@pytest.fixture(scope="session")
def dynamodb_local():
    """AWS's DynamoDB Local for the whole session: one JVM, a fresh table per test."""
    from local.dynamodb_local import EmbeddedDynamoDB

    engine = EmbeddedDynamoDB().start()
    yield engine
    engine.stop()
