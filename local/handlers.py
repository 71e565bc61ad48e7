"""Loads the functions' handler modules, the layer's package (``alleycat``) importable as in Lambda:
the venv has it installed (``pip install -e layers/alleycat``), Lambda has it in ``/opt/python``.

``invoke`` runs one event at a time per process, as a Lambda execution environment does:
Powertools keeps the current API event on a class, process-wide. The local server runs
concurrent requests in worker processes (``local.runtime``).
"""

from __future__ import annotations

import importlib.util
import os
import secrets
import threading
import uuid
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@cache
def handler(function: str):
    path = ROOT / "functions" / function / "app.py"
    spec = importlib.util.spec_from_file_location(f"alleycat_functions.{function}", path)
    assert spec is not None and spec.loader is not None  # a path ending in .py always has a loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.handler


class LambdaContext:
    """The parts of Lambda's context object that Powertools reads."""

    def __init__(self, function: str):
        self.function_name = function
        self.function_version = "$LATEST"
        self.memory_limit_in_mb = 256
        region = os.environ.get("AWS_DEFAULT_REGION", "us-east-1")
        self.invoked_function_arn = f"arn:aws:lambda:{region}:000000000000:function:{function}"
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function}"
        self.log_stream_name = "local"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 10_000


def invoke(function: str, event: dict) -> dict:
    # Lambda sets the invocation's trace header in the environment, sampled or not (Powertools'
    # log buffer is kept per trace id).
    os.environ["_X_AMZN_TRACE_ID"] = f"Root=1-{secrets.token_hex(4)}-{secrets.token_hex(12)};Parent={secrets.token_hex(8)};Sampled=0"
    return handler(function)(event, LambdaContext(function))


def start(function: str, event: dict) -> None:
    """``invoke`` on a thread of its own (daemon: it ends with the worker)."""
    threading.Thread(target=invoke, args=(function, event), name=f"{function}-{event.get('raceId', '')}", daemon=True).start()
