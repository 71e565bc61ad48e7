"""What a function's cold start imports: each handler imported in a fresh interpreter, as in Lambda."""

import json
import subprocess
import sys

import pytest

from local.handlers import ROOT

FUNCTIONS = sorted(p.parent.name for p in (ROOT / "functions").glob("*/app.py"))
# Never on the cold path: the X-Ray SDK (Lambda's active tracing needs none), Powertools'
# event handler and batch packages (their __init__ loads every resolver and event class, and
# asyncio). Deferred to the call that needs them: JSON-schema validation (write routes, at
# their first body) and page tokens (paged reads, at a page that has a next one).
NEVER = ("aws_xray_sdk", "aws_lambda_powertools.event_handler", "aws_lambda_powertools.utilities.batch",
         "aws_lambda_powertools.utilities.data_classes", "asyncio")
DEFERRED = ("fastjsonschema", "alleycat.tokens")

IMPORT_HANDLER = """
import json, sys
from local import handlers
handlers.handler(sys.argv[1])
print(json.dumps(sorted(sys.modules)))
"""


def imported_by(function: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", IMPORT_HANDLER, function], cwd=ROOT, capture_output=True, text=True,
                          check=True, env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"})
    return set(json.loads(done.stdout))


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_handler_imports_neither_the_xray_sdk_nor_what_it_defers(function):
    # Given a fresh interpreter with the layer on sys.path
    # When the function's handler module is imported
    modules = imported_by(function)
    # Then nothing it must never load, nor anything deferred to the call that needs it, is loaded
    assert sorted(m for m in modules if m.startswith(NEVER + DEFERRED)) == []
    # And the observability it keeps is there (the check above cannot pass by importing nothing)
    assert {"aws_lambda_powertools.logging.logger", "aws_lambda_powertools.metrics"} <= modules
