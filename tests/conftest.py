"""Shared test setup: the layer on the import path (as in Lambda), no real AWS, and the Node
that make gives its recipes."""

import os
import subprocess
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

# jsii (started by `import aws_cdk`) and the CDK CLI the tests run use the Node tools/node-path
# chooses, as under make (which has put it first on PATH already; pytest run directly gets it here).
_node = subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True, text=True)
if _node.returncode == 0:
    os.environ["PATH"] = _node.stdout.strip()


@pytest.fixture(scope="session")
def dynamodb_local():
    """AWS's DynamoDB Local for the whole session: one JVM, a fresh table per test."""
    from local.dynamodb_local import EmbeddedDynamoDB

    engine = EmbeddedDynamoDB().start()
    yield engine
    engine.stop()
