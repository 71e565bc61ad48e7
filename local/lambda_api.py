"""A stand-in for AWS Lambda's ``Invoke`` on loopback: Lambda's protocol (rest-json, SigV4), for `make local`.

``POST /2015-03-31/functions/{FunctionName}/invocations`` as botocore's ``lambda`` 2015-03-31 model
has it: the body is the event (JSON; an empty body is ``{}``), ``FunctionName`` a name
(``finisher``), a partial ARN (``123456789012:function:finisher``) or an ARN
(``arn:aws:lambda:us-east-1:123456789012:function:finisher``), any of them with ``:<qualifier>``
(or the ``Qualifier`` query parameter). Functions here have one version, ``$LATEST``.
``run(function_name, event)`` runs a function, given its plain name, and returns its result:

=============================  ==================================================================
``X-Amz-Invocation-Type``      answer
=============================  ==================================================================
``RequestResponse`` (default)  200, the result as JSON, ``X-Amz-Executed-Version: $LATEST``; when
                               the function raises, 200 too, with ``X-Amz-Function-Error:
                               Unhandled`` and ``{"errorMessage", "errorType", "stackTrace"}``
``Event``                      202, no body; the function runs on a thread of its own
``DryRun``                     204, no body; nothing runs
=============================  ==================================================================

Errors are Lambda's: ``x-amzn-ErrorType`` and ``{"Type": "User", "Message"}``. An unknown function
or qualifier is ``ResourceNotFoundException`` (404, ``Function not found: <its ARN>``), a body that
is not JSON ``InvalidRequestContentException`` (400), a name out of the model's pattern or an
unknown invocation type ``ValidationException`` (400), a request not signed (service ``lambda``)
with the stand-in's credentials 403.

``invoke_async`` is the ``Event`` invocation without HTTP: what EventBridge Scheduler does with a
Lambda target (it invokes asynchronously), so ``SchedulerApi(clock, lambda_api.invoke_async)``.
Not reproduced: Lambda's own retries of an asynchronous invocation whose function fails (two more
attempts, one and two minutes apart); the failure is logged.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import traceback
from collections.abc import Callable, Iterable
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from .eventapi import SigV4Verifier
from .restjson import ACCOUNT, RestJsonHandler, serve

LOG = logging.getLogger(__name__)
SERVICE = "lambda"
LATEST = "$LATEST"
INVOKE_PATH = re.compile(r"/2015-03-31/functions/(?P<function>[^/]+)/invocations")
INVOCATION_TYPES = ("Event", "RequestResponse", "DryRun")
# NamespacedFunctionName's pattern in botocore's model, with the name and the qualifier named.
FUNCTION_PATTERN = (r"(arn:(aws[a-zA-Z-]*)?:lambda:)?((eusc-)?[a-z]{2}((-gov)|(-iso([a-z]?)))?-[a-z]+-\d{1}:)?"
                    r"(\d{12}:)?(function:)?(?P<name>[a-zA-Z0-9-_\.]+)"
                    r"(:(?P<qualifier>\$LATEST(\.PUBLISHED)?|[a-zA-Z0-9-_]+))?")
FUNCTION = re.compile(FUNCTION_PATTERN)


class LambdaError(Exception):
    """An answer of Lambda's other than the function's: status, ``x-amzn-ErrorType``, message."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message

    def answer(self) -> tuple[int, bytes, dict[str, str]]:
        body = json.dumps({"Type": "User", "Message": self.message}).encode()
        return self.status, body, {"x-amzn-ErrorType": self.code}


def validation_error(value: str, member: str, constraint: str) -> LambdaError:
    return LambdaError(400, "ValidationException", f"1 validation error detected: Value '{value}' at '{member}' "
                                                   f"failed to satisfy constraint: Member must {constraint}")


class LambdaApi:
    """``start()`` serves Invoke on a loopback port (``url``, for ``AWS_ENDPOINT_URL_LAMBDA``); ``stop()`` ends it."""

    def __init__(self, run: Callable[[str, Any], Any], functions: Iterable[str], *, host: str = "127.0.0.1",
                 port: int = 0, access_key: str = "local", secret_key: str = "local", region: str = "us-east-1",
                 account: str = ACCOUNT):
        self.run = run
        self.functions = set(functions)
        self.invoked: list[tuple[str, Any]] = []  # (function, event) of every invocation accepted, for tests
        self.host, self.port, self.region, self.account = host, port, region, account
        self.verifier = SigV4Verifier(access_key, secret_key, region, SERVICE)
        self._http: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LambdaApi:
        self._http = serve(self.host, self.port, InvokeHandler, self)
        self.port = self._http.server_address[1]
        return self

    def stop(self) -> None:
        if self._http:
            self._http.shutdown()
            self._http.server_close()

    def arn(self, name: str, qualifier: str | None = None) -> str:
        return f"arn:aws:lambda:{self.region}:{self.account}:function:{name}" + (f":{qualifier}" if qualifier else "")

    def invoke(self, function: str, payload: bytes | str, invocation_type: str = "RequestResponse",
               qualifier: str | None = None) -> tuple[int, bytes, dict[str, str]]:
        """Invoke without HTTP: ``(status, body, headers)`` as Lambda answers; raises ``LambdaError``."""
        found = FUNCTION.fullmatch(function) if len(function) <= 256 else None
        if not found:
            raise validation_error(function, "functionName", f"satisfy regular expression pattern: {FUNCTION_PATTERN}")
        if invocation_type not in INVOCATION_TYPES:
            raise validation_error(invocation_type, "invocationType",
                                   f"satisfy enum value set: [{', '.join(INVOCATION_TYPES)}]")
        name, qualifier = found["name"], found["qualifier"] or qualifier
        if name not in self.functions or qualifier not in (None, LATEST):
            raise LambdaError(404, "ResourceNotFoundException", f"Function not found: {self.arn(name, qualifier)}")
        try:
            event = json.loads(payload) if payload else {}
        except ValueError as error:
            raise LambdaError(400, "InvalidRequestContentException",
                              f"Could not parse request body into json: {error}") from None
        if invocation_type == "DryRun":
            return 204, b"", {}
        self.invoked.append((name, event))
        if invocation_type == "Event":
            threading.Thread(target=self._run_async, args=(name, event), name=f"lambda-{name}", daemon=True).start()
            return 202, b"", {}
        headers = {"X-Amz-Executed-Version": LATEST}
        try:
            return 200, json.dumps(self.run(name, event)).encode(), headers
        except Exception as error:  # noqa: BLE001 - the function's error is its answer, as in Lambda
            failure = {"errorMessage": str(error), "errorType": type(error).__name__,
                       "stackTrace": traceback.format_tb(error.__traceback__)}
            return 200, json.dumps(failure).encode(), {**headers, "X-Amz-Function-Error": "Unhandled"}

    def invoke_async(self, function: str, payload: bytes | str) -> None:
        """An ``Event`` invocation: returns once the event is accepted, raises ``LambdaError`` when it is not."""
        self.invoke(function, payload, "Event")

    def _run_async(self, name: str, event: Any) -> None:
        try:
            self.run(name, event)
        except Exception:  # nobody waits for an asynchronous invocation's answer
            LOG.exception("asynchronous invocation of %s failed", name)


class InvokeHandler(RestJsonHandler):
    """``POST /2015-03-31/functions/{FunctionName}/invocations``; any other request is refused."""

    server_version = "LambdaLocal/1"

    def do_POST(self):
        try:
            self.answer(*self._invoke(self.body()))
        except LambdaError as error:
            self.answer(*error.answer())

    do_GET = do_PUT = do_DELETE = do_POST

    def _invoke(self, body: bytes) -> tuple[int, bytes, dict[str, str]]:
        refused = self.refusal(body)
        if refused:
            raise LambdaError(403, *refused)
        url = urlsplit(self.path)
        found = INVOKE_PATH.fullmatch(url.path)
        if self.command != "POST" or not found:
            raise LambdaError(404, "UnknownOperationException", "only Invoke is served locally")
        qualifier = parse_qs(url.query).get("Qualifier", [None])[0]
        invocation_type = self.headers.get("X-Amz-Invocation-Type", "RequestResponse")
        return self.api.invoke(unquote(found["function"]), body, invocation_type, qualifier)
