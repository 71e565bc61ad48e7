"""What every API function shares: the resolver, its error mapping, identity and input rules.

A handler module is ``app = http.create_app()``, its routes, and
``handler = http.lambda_handler(app)``; everything else lives here once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from aws_lambda_powertools.logging import correlation_paths

from alleycat import clock
from alleycat.edge import caching
from alleycat.edge.contract import ADMIN_GROUP
from alleycat.edge.resolver import APPLICATION_JSON, BodyNotText, Resolver, Response
from alleycat.edge.routes import by_function
from alleycat.errors import AlleycatError, BadRequest, Forbidden, NotFound, PayloadTooLarge, Unauthorized
from alleycat.observability import METRICS_ENABLED, end_invocation, logger, metrics

MAX_BODY_BYTES = 256 * 1024
MAX_BODY_DEPTH = 32  # arrays and objects within each other; the contract's deepest body has 3
TOO_DEEP = f"the body nests arrays or objects more than {MAX_BODY_DEPTH} levels deep"
NOT_UNICODE = "holds text that is not valid Unicode (a lone surrogate such as \\ud800)"
ADMIN = ADMIN_GROUP
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RACE_ID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def _error(app: Resolver, status: int, message: str, headers: dict | None = None) -> Response:
    cache = caching.error(app.current_event.http_method, status)
    return Response(status_code=status, content_type=APPLICATION_JSON,
                    body=json.dumps({"message": message}), headers={"Cache-Control": cache, **(headers or {})})


def create_app() -> Resolver:
    # No CORS: in AWS the site and the API share CloudFront's origin, locally the server's.
    app = Resolver()

    @app.exception_handler(AlleycatError)
    def domain_error(error: AlleycatError) -> Response:
        if error.status >= 500:
            logger.warning("service error", extra={"error": error.message})
        retry_after = getattr(error, "retry_after_seconds", None)
        return _error(app, error.status, error.message, {"Retry-After": str(retry_after)} if retry_after else None)

    @app.exception_handler(BodyNotText)
    def body_not_text(error: BodyNotText) -> Response:
        return _error(app, 400, str(error))

    @app.not_found
    def not_found(_error_) -> Response:
        return _error(app, 404, "no such route")

    return app


def lambda_handler(app: Resolver):
    """The function's handler: Powertools' context and metrics around the resolver; the request's
    log line is written in full only when it failed (any 4xx or 5xx) or is sampled (observability)."""
    @metrics.log_metrics(capture_cold_start_metric=METRICS_ENABLED)
    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP,
                                  flush_buffer_on_uncaught_error=True)
    def handler(event, context):
        response = app.resolve(event, context)
        status = response.get("statusCode", 500)
        end_invocation("request", failed=status >= 400, error=status >= 500, route=event.get("routeKey"), status=status)
        return response

    return handler


def route(app: Resolver, function: str):
    """Registers a view for the route the route table gives this function."""
    declared = by_function(function)
    return app.route(declared.path, method=declared.method)


def respond(body: dict, status: int = 200, cache: str = caching.NO_STORE) -> Response:
    """A JSON answer; ``cache`` is its Cache-Control, one of ``alleycat.edge.caching``'s (writes keep the default)."""
    return Response(status_code=status, content_type=APPLICATION_JSON,
                    body=json.dumps(body, separators=(",", ":")), headers={"Cache-Control": cache})


# --- identity -------------------------------------------------------------------

@dataclass(frozen=True)
class Identity:
    sub: str
    groups: frozenset[str]

    @property
    def is_admin(self) -> bool:
        return ADMIN in self.groups


def _groups(raw) -> frozenset[str]:
    """``cognito:groups``, each group a whole name (contract v1.3: group ``admin`` means exactly that name,
    one of the groups the token lists).

    An HTTP API's JWT authorizer hands the function the token's claims in ``requestContext.authorizer.jwt.claims``
    (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html), a list claim
    as one string, its elements space separated between brackets: ``["admin", "racers"]`` arrives as
    ``"[admin racers]"``. AWS's pages do not spell that form out; it is what deployments receive (e.g.
    aws-solutions-library-samples/guidance-for-claude-code-with-amazon-bedrock#803, "API Gateway HTTP API JWT
    authorizer serializes array claims as bracketed space-separated strings") and what ``local.auth.authorizer_claims``
    and the events/ samples reproduce. It is split only as it was made: the outer brackets once, then at
    spaces, which no Cognito group name holds (``GroupName``: 1-128 characters, each a letter, mark, symbol,
    number or punctuation: https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_CreateGroup.html);
    so ``"[racers,admin]"`` is the one group ``racers,admin`` and ``"[[admin]]"`` the group ``[admin]``. A list
    (a REST API's JWT authorizer passes claims with their JSON types) is taken element by element; any other
    string is one group."""
    if isinstance(raw, list):
        return frozenset(map(str, raw))
    text = str(raw or "")
    if len(text) >= 2 and text[0] == "[" and text[-1] == "]":
        return frozenset(group for group in text[1:-1].split(" ") if group)
    return frozenset((text,) if text else ())


def identity(app: Resolver) -> Identity:
    """The caller, from the JWT authorizer's claims (``requestContext.authorizer.jwt.claims``); 401 without."""
    claims = app.current_event.request_context.authorizer.jwt_claim
    sub = claims.get("sub")
    if not sub:
        raise Unauthorized("sign in to do this")
    return Identity(sub, _groups(claims.get("cognito:groups")))


def require_admin(app: Resolver) -> Identity:
    caller = identity(app)
    if not caller.is_admin:
        raise Forbidden("only an admin may do this")
    return caller


def require_self_or_admin(app: Resolver, racer_id: str) -> Identity:
    caller = identity(app)
    if caller.sub != racer_id and not caller.is_admin:
        raise Forbidden(f"you may not act for racer {racer_id}")
    return caller


# --- input ----------------------------------------------------------------------

def entity_id(name: str, value: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise BadRequest(f"{name} must be 1-64 characters of letters, digits, '_' or '-'")
    return value


def race_id(value: str) -> str:
    """A raceId we could have issued; anything else names no race."""
    if not isinstance(value, str) or not _RACE_ID.match(value):
        raise NotFound(f"race {value} does not exist")
    return value


def limit(app: Resolver, default: int, maximum: int) -> int:
    raw = app.current_event.get_query_string_value("limit")
    if raw is None:
        return default
    if not re.fullmatch(r"[0-9]{1,5}", raw) or not 1 <= int(raw) <= maximum:
        raise BadRequest(f"limit must be a whole number from 1 to {maximum}")
    return int(raw)


def one_of(app: Resolver, name: str, allowed: tuple[str, ...]) -> str:
    """A required query parameter that takes one of ``allowed``."""
    value = app.current_event.get_query_string_value(name)
    if value not in allowed:
        given = "is missing" if value is None else f"may not be {value[:40]!r}"
        raise BadRequest(f"{name} {given}: it must be one of {', '.join(allowed)}")
    return value


def request_time(app: Resolver) -> float:
    """When the request reached the API (epoch seconds): the HTTP API's ``requestContext.timeEpoch``."""
    epoch_ms = app.current_event.request_context.time_epoch
    return epoch_ms / 1000 if isinstance(epoch_ms, int) else clock.now()


def next_token(app: Resolver) -> str | None:
    token = app.current_event.get_query_string_value("nextToken")
    if token is not None and not token:
        raise BadRequest("nextToken must not be empty")
    return token


def idempotency_key(app: Resolver) -> str | None:
    """The caller's Idempotency-Key header: a retry with the same key gets the first answer."""
    key = app.current_event.headers.get("Idempotency-Key")
    return None if key is None else entity_id("Idempotency-Key", key)


def body(app: Resolver, schema: dict | None, optional: bool = False) -> dict:
    """The JSON body, checked for size and against the route's JSON schema; ``optional``: no body is ``{}``."""
    if schema is None:
        raise TypeError("this route's record declares no request body")
    raw = app.current_event.decoded_body or ""
    if optional and not raw.strip():
        return {}
    if len(raw.encode() if isinstance(raw, str) else raw) > MAX_BODY_BYTES:
        raise PayloadTooLarge("the body is larger than 256 KiB")
    try:
        parsed = json.loads(raw, parse_constant=_no_constants)
    except ValueError:
        raise BadRequest("the body is not valid JSON") from None
    except RecursionError:  # deeper than the parser goes: far deeper than TOO_DEEP
        raise BadRequest(f"invalid body: {TOO_DEEP}") from None
    problem = _shape_problem(parsed)
    if problem:
        raise BadRequest(f"invalid body: {problem}")
    import fastjsonschema

    try:
        _validator(json.dumps(schema, sort_keys=True))(parsed)
    except fastjsonschema.JsonSchemaValueException as error:
        message = re.sub(r"^data\.", "", error.message)
        raise BadRequest("invalid body: " + re.sub(r"^data\b", "the body", message)) from None
    return parsed


def _shape_problem(body) -> str | None:
    """What no schema catches, or None: nesting deeper than ``MAX_BODY_DEPTH``, or a string (or an
    object's name) that UTF-8 cannot encode (JSON lets ``"\\ud800"`` through as text DynamoDB
    refuses).

    The body is walked with a list of its own, never by recursion: python3.13's parser takes
    bodies nested thousands deep, far past Python's recursion limit. A place is kept as a link to
    its parent's, so only the one reported is ever spelled out.
    """
    pending: list[tuple[Any, Any, int]] = [(body, None, 0)]  # (value, place, depth): place is None for the body, else (parent place, key or index)
    while pending:
        value, place, depth = pending.pop()
        if place is not None and isinstance(place[1], str) and not _encodes(place[1]):
            return f"a field name in {_spelled(place[0])} {NOT_UNICODE}"
        if isinstance(value, str):
            if not _encodes(value):
                return f"{_spelled(place)} {NOT_UNICODE}"
        elif isinstance(value, (list, dict)):
            if depth == MAX_BODY_DEPTH:
                return TOO_DEEP
            steps = enumerate(value) if isinstance(value, list) else ((name, value[name]) for name in value)
            pending.extend(reversed([(inner, (place, step), depth + 1) for step, inner in steps]))
    return None


def _encodes(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _spelled(place) -> str:
    """``the body``, ``name``, ``samples[3].racerId``: a place as the caller wrote it."""
    steps = []
    while place is not None:
        place, step = place
        steps.append(step)
    where = "the body"
    for step in reversed(steps):
        if isinstance(step, int):
            where = f"{where}[{step}]"
        else:
            where = step if where == "the body" else f"{where}.{step}"
    return where


def _no_constants(name: str):
    raise ValueError(f"{name} is not a JSON number")


@cache
def _validator(schema_json: str):
    """The schema compiled once per process (the validation Powertools does, without recompiling)."""
    import fastjsonschema

    return fastjsonschema.compile(json.loads(schema_json))
