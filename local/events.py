"""API Gateway REST (proxy integration) events, shaped as the deployed API sends them."""

from __future__ import annotations

import re
import time
import uuid
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
