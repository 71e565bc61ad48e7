"""API Gateway REST (proxy integration) events, shaped as the deployed API sends them."""

from __future__ import annotations

import copy
import json
import re
import time
import uuid
from functools import lru_cache
from pathlib import Path
from urllib.parse import parse_qs

from alleycat.routes import ROUTES, Route


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


def rest_event(route: Route, path: str, path_parameters: dict, query: str, headers: dict,
               body: str | None, claims: dict | None, source_ip: str = "127.0.0.1") -> dict:
    multi_query = {k: v for k, v in parse_qs(query, keep_blank_values=True).items()} if query else None
    authorizer = {"claims": claims} if claims else None
    return {
        "resource": route.path,
        "path": path,
        "httpMethod": route.method,
        "headers": dict(headers),
        "multiValueHeaders": {k: [v] for k, v in headers.items()},
        "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} if multi_query else None,
        "multiValueQueryStringParameters": multi_query,
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": route.path,
            "httpMethod": route.method,
            "path": f"/local{path}",
            "stage": "local",
            "accountId": "000000000000",
            "apiId": "local",
            "requestId": str(uuid.uuid4()),
            "requestTimeEpoch": int(time.time() * 1000),
            "protocol": "HTTP/1.1",
            "identity": {"sourceIp": source_ip, "userAgent": headers.get("User-Agent")},
            "authorizer": authorizer,
        },
        "body": body,
        "isBase64Encoded": False,
    }


SAMPLES = Path(__file__).resolve().parent.parent / "events"


@lru_cache(maxsize=None)
def _sample(function: str) -> dict:
    return json.loads((SAMPLES / f"{function}.json").read_text())


def sample_event(function: str, path_parameters: dict | None = None, body=..., query=..., claims=...) -> dict:
    """The function's sample event (``events/<function>.json``) with what a caller overrides.

    ``...`` keeps the sample's value; ``body`` may be a dict (sent as JSON), text or None;
    ``claims=None`` removes the authorizer.
    """
    event = copy.deepcopy(_sample(function))
    if path_parameters:
        event["pathParameters"].update(path_parameters)
        path = event["resource"]
        for name, value in event["pathParameters"].items():
            path = path.replace("{" + name + "}", value)
        event["path"] = path
    if body is not ...:
        event["body"] = body if body is None or isinstance(body, str) else json.dumps(body)
    if query is not ...:
        event["queryStringParameters"] = query
        event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()} if query else None
    if claims is not ...:
        event["requestContext"]["authorizer"] = {"claims": claims} if claims else None
    return event
