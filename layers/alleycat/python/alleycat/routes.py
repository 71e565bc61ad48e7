"""The API's routes, declared once: the CDK stack and the local stack both read this table.

``auth`` is "public" or "user" (a signed-in identity; the handler then checks who).
``actions`` are the only DynamoDB actions the route's function is granted.
``paged`` routes sign and check page tokens: only their functions get the signing key.
``query`` names the query parameters the route reads: the edge cache keys on exactly these;
``required`` those of them it cannot do without.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    function: str
    auth: str
    actions: tuple[str, ...]
    paged: bool = False
    query: tuple[str, ...] = ()
    required: tuple[str, ...] = ()

    @property
    def protected(self) -> bool:
        return self.auth != "public"

    @property
    def key(self) -> str:
        """``PUT /racers/{racerId}``: the HTTP API's route key (events, stage route settings)."""
        return f"{self.method} {self.path}"


PAGE, LIMIT = ("limit", "nextToken"), ("limit",)
QUERY, GET, PUT, UPDATE = "dynamodb:Query", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"
DELETE, BATCH_GET, BATCH_WRITE = "dynamodb:DeleteItem", "dynamodb:BatchGetItem", "dynamodb:BatchWriteItem"
CONDITION_CHECK = "dynamodb:ConditionCheckItem"
# Finishing a race (an admin's call, or the finisher at the race's end): read it, then one transaction
# marks it and its gates finished and moves its catalog card.
FINISH_ACTIONS = (QUERY, UPDATE, DELETE, PUT)

ROUTES: tuple[Route, ...] = (
    Route("PUT", "/racers/{racerId}", "put_racer", "user", (PUT,)),
    Route("GET", "/racers/{racerId}/results", "get_racer_results", "public", (QUERY,), paged=True, query=PAGE),
    Route("GET", "/racers/{racerId}/history", "get_racer_history", "public", (QUERY, GET), paged=True,
          query=("raceId", "nextToken")),
    Route("PUT", "/classes/{classId}", "put_class", "user", (PUT,)),
    Route("GET", "/classes", "get_classes", "public", (QUERY,), paged=True, query=PAGE),
    Route("GET", "/classes/{classId}/races", "get_class_races", "public", (QUERY,), paged=True, query=PAGE),
    Route("GET", "/classes/{classId}/leaderboard", "get_class_leaderboard", "public", (QUERY,), query=LIMIT),
    Route("POST", "/classes/{classId}/races", "create_race", "user", (GET, PUT, QUERY)),
    Route("GET", "/races", "get_races", "public", (QUERY,), paged=True, query=("state", "limit", "nextToken"),
          required=("state",)),
    Route("GET", "/races/{raceId}", "get_race", "public", (QUERY,)),
    Route("PUT", "/races/{raceId}/racers/{racerId}", "join_race", "user", (QUERY, GET, PUT, UPDATE)),
    Route("GET", "/races/{raceId}/leaderboard", "get_race_leaderboard", "public", (QUERY,), query=LIMIT),
    Route("POST", "/races/{raceId}/telemetry", "post_telemetry", "user", (GET, UPDATE, BATCH_GET)),
    Route("POST", "/races/{raceId}/finish", "finish_race", "user", FINISH_ACTIONS),
)


# The function on the table's stream (not a route): its table actions, declared here too.
STREAM_PROCESSOR = "stream_processor"
STREAM_PROCESSOR_ACTIONS = (QUERY, GET, PUT, UPDATE, DELETE, BATCH_GET, BATCH_WRITE, CONDITION_CHECK)
# Item types whose changes it acts on: the event source filters out every other record.
STREAM_PROCESSOR_TYPES = ("Chunk", "Race", "Class", "Racer")
# Its event source mapping, read by the stack and by the local stream poller alike. One
# invocation a second per shard at most: board writes are coalesced per invocation, so the
# window bounds the writes a race's partition sees (docs/capacity.md).
STREAM_BATCH_SIZE = 1000
STREAM_BATCHING_WINDOW_SECONDS = 1
STREAM_RETRIES = 5

# The function that finishes a race at its end, invoked by the race's one-time schedule (``ending``).
FINISHER = "finish_due_race"
TOKEN_GROUPS = "token_groups"  # the user pool's pre-token-generation trigger (functions/token_groups)
ADMIN_GROUP = "admin"  # members may act on others' resources; their tokens need TOTP (functions/token_groups)

# Memory of each function, read by the stack and by the bench's pricing. Telemetry is sized
# from a measured 1,000-sample batch (docs/capacity.md, "The telemetry function"): it needs
# ~80 MB but ~2 s of CPU, and Lambda gives one full vCPU only at 1,769 MB (256 MB: ~14 s > timeout).
DEFAULT_MEMORY_MB = 256
MEMORY_MB = {"post_telemetry": 1769, STREAM_PROCESSOR: 1024, FINISHER: 128,  # the finisher mostly waits
             # An admin's sign-in builds a boto3 client and calls AdminGetUser within Cognito's 5-second
             # limit, cold: 512 MB's CPU for that (a guess until measured in AWS); racers' pass straight through.
             TOKEN_GROUPS: 512}


def memory_mb(function: str) -> int:
    return MEMORY_MB.get(function, DEFAULT_MEMORY_MB)


# Lambda's advanced logging controls (stacks/functions.py) and Powertools' log sampling, read by the
# stack and by the bench that measures what a request writes (docs/performance.md). A healthy
# request writes its metrics line only; one in LOG_SAMPLE_RATE⁻¹ also writes its request line
# (Powertools' sampling); a request that fails (4xx, 5xx, an uncaught error) writes everything it
# buffered (Powertools' log buffer, flushed on an error). Lambda's own START/END/REPORT lines are
# INFO system logs: WARN keeps its errors (timeouts, crashes) and drops them.
LOG_FORMAT = "JSON"
APPLICATION_LOG_LEVEL = "INFO"
SYSTEM_LOG_LEVEL = "WARN"
LOG_SAMPLE_RATE = 0.01

# The HTTP API's access log: one JSON line per request (stacks/api.py), read by the bench too, which
# prices its size (about 350 bytes a bike's post: docs/performance.md). What an operator needs of a
# request API Gateway may have answered alone (401, 403, 429): who, what, when, how it ended, how
# long; the path names the race (the route is the path's shape), the time is epoch milliseconds.
# The caller's sub is the JWT authorizer's claim (empty on public routes).
ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId", "ip": "$context.identity.sourceIp", "time": "$context.requestTimeEpoch",
    "method": "$context.httpMethod", "path": "$context.path", "status": "$context.status",
    "responseLength": "$context.responseLength", "latency": "$context.responseLatency",
    "integrationLatency": "$context.integrationLatency", "integrationError": "$context.integrationErrorMessage",
    "authorizerError": "$context.authorizer.error", "sub": "$context.authorizer.claims.sub",
    "userAgent": "$context.identity.userAgent",
}
