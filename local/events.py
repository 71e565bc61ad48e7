"""API Gateway HTTP API events (payload format 2.0), shaped as the deployed API sends them."""

from __future__ import annotations

import base64
import copy
import json
import re
import time
import uuid
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from urllib.parse import parse_qs, urlencode

from alleycat.edge.routes import ROUTES, Route


def _pattern(route: Route) -> re.Pattern:
    return re.compile("^" + re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(route.path)) + "$")


_MATCHERS = [(route, _pattern(route)) for route in ROUTES]


def match(method: str, path: str) -> tuple[Route | None, dict, bool]:
    """The route for a request, its path parameters, and whether the path exists at all."""
    path_known = False
    for route, pattern in _MATCHERS:
        found = pattern.match(path)
        if found:
            path_known = True
            if route.method == method:
                return route, found.groupdict(), True
    return None, {}, path_known


def _query_parameters(query: str) -> dict | None:
    """A name given twice arrives once, its values joined by commas (as HTTP APIs do)."""
    parsed = parse_qs(query, keep_blank_values=True) if query else {}
    return {name: ",".join(values) for name, values in parsed.items()} or None


def _headers(headers: Iterable[tuple[str, str]]) -> tuple[dict, list[str] | None]:
    """Lower-case names, repeated headers joined by commas, and cookies moved to their own list."""
    joined: dict[str, str] = {}
    for name, value in headers:
        name = name.lower()
        joined[name] = f"{joined[name]},{value}" if name in joined else value
    cookie = joined.pop("cookie", None)
    return joined, [c.strip() for c in cookie.split(";") if c.strip()] if cookie else None


# The content types whose bodies an HTTP API passes as text; every other body (no content type, a form's,
# application/octet-stream, ...) arrives base64-encoded with ``isBase64Encoded``. AWS documents only "if
# the content type of the request is binary, the body is base64-encoded"; this split is what live AWS
# does (observed by ministack, github.com/ministackorg/ministack pull 766).
TEXT_TYPES = ("application/json", "application/xml", "application/javascript")


def request_body(raw: bytes, content_type: str | None) -> tuple[str | None, bool]:
    """The body as the HTTP API puts it in the event: (body, isBase64Encoded). Bytes that are not UTF-8
    under a text type go base64-encoded too: they reach the function as sent, never with U+FFFD in
    place of what could not be read (AWS does not document that case)."""
    if not raw:
        return None, False
    media_type = (content_type or "").split(";", 1)[0].strip().lower()
    if media_type.startswith("text/") or media_type in TEXT_TYPES:
        try:
            return raw.decode("utf-8"), False
        except UnicodeDecodeError:
            pass
    return base64.b64encode(raw).decode("ascii"), True


def _authorizer(claims: dict | None) -> dict | None:
    return {"jwt": {"claims": claims, "scopes": None}} if claims else None


def http_event(route: Route, path: str, path_parameters: dict, query: str, headers: Iterable[tuple[str, str]],
               body: str | None, claims: dict | None, source_ip: str = "127.0.0.1", now: float | None = None,
               encoded: bool = False) -> dict:
    """The event the HTTP API sends ``route``'s function; ``headers`` as (name, value) pairs, as received;
    ``now``: when the request arrived (epoch seconds; the wall clock's time if not given); ``encoded``:
    ``body`` is base64 (``request_body``)."""
    lowered, cookies = _headers(headers)
    now = time.time() if now is None else now
    event: dict = {
        "version": "2.0",
        "routeKey": route.key,
        "rawPath": path,
        "rawQueryString": query or "",
        "headers": lowered,
        "queryStringParameters": _query_parameters(query),
        "pathParameters": path_parameters or None,
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "authorizer": _authorizer(claims),
            "domainName": lowered.get("host", "localhost"),
            "domainPrefix": lowered.get("host", "localhost").split(".")[0],
            "http": {"method": route.method, "path": path, "protocol": "HTTP/1.1",
                     "sourceIp": source_ip, "userAgent": lowered.get("user-agent", "")},
            "requestId": str(uuid.uuid4()),
            "routeKey": route.key,
            "stage": "$default",
            "time": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
            "timeEpoch": int(now * 1000),
        },
        "body": body,
        "isBase64Encoded": encoded,
    }
    if cookies:
        event["cookies"] = cookies
    return event


def with_header(event: dict, name: str, value: str) -> dict:
    """``event`` with one more request header, named as an HTTP API passes it (lower case)."""
    event["headers"][name.lower()] = value
    return event


SAMPLES = Path(__file__).resolve().parent.parent / "events"


@cache
def _sample(function: str) -> dict:
    return json.loads((SAMPLES / f"{function}.json").read_text())


def sample_event(function: str, path_parameters: dict | None = None, body=..., query=..., claims=...) -> dict:
    """The function's sample event (``events/<function>.json``) with what a caller overrides.

    ``...`` keeps the sample's value; ``body`` may be a dict (sent as JSON), text or None;
    ``query`` a dict of single values or None; ``claims=None`` removes the authorizer.
    """
    event = copy.deepcopy(_sample(function))
    if path_parameters:
        event["pathParameters"].update(path_parameters)
        path = event["routeKey"].split(" ", 1)[1]
        for name, value in event["pathParameters"].items():
            path = path.replace("{" + name + "}", value)
        event["rawPath"] = event["requestContext"]["http"]["path"] = path
    if body is not ...:
        event["body"] = body if body is None or isinstance(body, str) else json.dumps(body)
    if query is not ...:
        event["queryStringParameters"] = query or None
        event["rawQueryString"] = urlencode(query or {})
    if claims is not ...:
        event["requestContext"]["authorizer"] = _authorizer(claims)
    return event
