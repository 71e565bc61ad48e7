"""The API functions' router: the part of Powertools' REST/HTTP resolver the handlers use.

Any import from ``aws_lambda_powertools.event_handler`` runs that package's ``__init__``: every
resolver (AppSync's pulls in asyncio) and every event data class, ~35 ms of cold start for a
function that serves one route API Gateway has already matched (docs/cold-start.md). This
keeps the same shape: ``@app.route``, one handler per exception type, ``not_found``,
``Response`` and ``app.current_event``, for the HTTP API's payload format 2.0
(``requestContext.http.method``, ``rawPath``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import Any

APPLICATION_JSON = "application/json"
# What a path parameter may hold: Powertools' set (RFC 3986 unreserved, sub-delims, ':' and
# '@', and the unsafe characters a client may send unescaped), so routing answers as before.
_PARAMETER = r"[-._~()'!*:@,;=+&$%<> \[\]{}|^\w]+"


class BodyNotText(ValueError):
    """The request's body is not UTF-8 text: what API Gateway base64-encodes (any content type but
    text/*, JSON, XML and JavaScript) holds bytes that are not UTF-8."""


class Response:
    def __init__(self, status_code: int, content_type: str | None = None, body: str = "",
                 headers: dict[str, str | list[str]] | None = None):
        self.status_code = status_code
        self.body = body
        self.headers = dict(headers or {})
        if content_type:
            self.headers.setdefault("Content-Type", content_type)


class Headers(dict):
    """Request headers by name in any case (HTTP API lower-cases names; REST keeps the caller's)."""

    def __init__(self, raw: dict[str, str] | None):
        super().__init__((name.lower(), value) for name, value in (raw or {}).items())

    def get(self, name: str, default=None):
        return super().get(name.lower(), default)

    def __getitem__(self, name: str):
        return super().__getitem__(name.lower())

    def __contains__(self, name) -> bool:
        return isinstance(name, str) and super().__contains__(name.lower())


class Authorizer(dict):
    """``requestContext.authorizer`` of the HTTP API's JWT authorizer."""

    @property
    def jwt_claim(self) -> dict:
        return (self.get("jwt") or {}).get("claims") or {}


class RequestContext:
    def __init__(self, raw: dict):
        self.authorizer = Authorizer(raw.get("authorizer") or {})
        self.time_epoch = raw.get("timeEpoch")  # when the request reached the API, epoch milliseconds


class Request:
    """One HTTP API event (payload format 2.0), as the handlers read it."""

    def __init__(self, event: dict):
        self.raw_event = event
        context = event.get("requestContext") or {}
        self.http_method, self.path = context["http"]["method"], event["rawPath"]
        stage = context.get("stage") or "$default"
        if stage != "$default" and self.path.startswith(f"/{stage}/"):  # a named stage leads rawPath
            self.path = self.path[len(stage) + 1:]
        self.headers = Headers(event.get("headers"))
        self.query_string_parameters: dict[str, str] = event.get("queryStringParameters") or {}
        self.request_context = RequestContext(context)

    def get_query_string_value(self, name: str, default_value: str | None = None) -> str | None:
        return self.query_string_parameters.get(name, default_value)

    @property
    def decoded_body(self) -> str | None:
        return self.text_body()

    def text_body(self) -> str | None:
        """The body as text, base64-decoded when the API encoded it; ``BodyNotText`` when it is not UTF-8."""
        body = self.raw_event.get("body")
        if not body or not self.raw_event.get("isBase64Encoded"):
            return body
        try:
            return base64.b64decode(body, validate=True).decode()
        except binascii.Error:
            raise BodyNotText("the body is marked base64 but is not") from None
        except UnicodeDecodeError as error:
            raise BodyNotText(f"the body is not UTF-8 text (byte {error.start + 1} is not): "
                              "send JSON, with Content-Type: application/json") from None


class Resolver:
    """Routes one event to its view; the exceptions it has a handler for become responses."""

    def __init__(self):
        self._routes: list[tuple[str, re.Pattern, Callable[..., Response]]] = []
        self._exception_handlers: dict[type, Callable[[Exception], Response]] = {}
        self._not_found: Callable[[Exception], Response] = lambda _error: Response(404, APPLICATION_JSON, '{"message":"Not found"}')
        self._event: Request | None = None
        self.lambda_context: Any = None

    @property
    def current_event(self) -> Request:
        """The event being resolved."""
        if self._event is None:
            raise RuntimeError("no event is being resolved")
        return self._event

    def route(self, path: str, method: str):
        """Registers a view for ``method path``; ``{name}`` in the path is passed as the argument ``name``."""
        pattern = re.compile("^" + re.sub(r"\\\{(\w+)\\\}", lambda m: f"(?P<{m[1]}>{_PARAMETER})", re.escape(path)) + "$")

        def register(view):
            self._routes.append((method.upper(), pattern, view))
            return view
        return register

    def exception_handler(self, error_type: type[Exception]):
        def register(handler):
            self._exception_handlers[error_type] = handler
            return handler
        return register

    def not_found(self, handler: Callable[[Exception], Response]):
        self._not_found = handler
        return handler

    def resolve(self, event: dict, context: Any) -> dict:
        request = self._event = Request(event)
        self.lambda_context = context
        try:
            response = self._dispatch(request)
        except Exception as error:
            handler = next((self._exception_handlers[t] for t in type(error).__mro__ if t in self._exception_handlers), None)
            if handler is None:
                raise  # a bug: Lambda reports it, API Gateway answers 5xx
            response = handler(error)
        return self._serialize(response)

    def _dispatch(self, request: Request) -> Response:
        request.text_body()  # a body that is not text is refused on every route, those that read none too
        for method, pattern, view in self._routes:
            found = pattern.match(request.path) if method == request.http_method.upper() else None
            if found:
                return view(**found.groupdict())
        return self._not_found(LookupError(f"no route for {request.http_method} {request.path}"))

    @staticmethod
    def _serialize(response: Response) -> dict:
        headers = {name: ",".join(value) if isinstance(value, list) else value for name, value in response.headers.items()}
        return {"statusCode": response.status_code, "headers": headers, "body": response.body, "isBase64Encoded": False}
