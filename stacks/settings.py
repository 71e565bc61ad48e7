"""The deployment's settings: the functions that serve no route, each function's memory, what the
functions log, the HTTP API's access log, the stream's event source mapping.

Read by the stack, and by the local stack (the stream poller as the mapping) without the CDK (the
bench reads what it prices, memory, logs and access logs, from the synthesized template): nothing here, nor in ``stacks/__init__``,
imports ``aws_cdk``. What the functions read at runtime is in the layer: the routes
(``alleycat.edge.routes``), the admin group (``alleycat.edge.contract``), the stream's item types
(``alleycat.storage.schema``).
"""

from __future__ import annotations

from alleycat.edge.routes import (
    BATCH_GET,
    BATCH_WRITE,
    CONDITION_CHECK,
    DELETE,
    GET,
    PUT,
    QUERY,
    ROUTES,
    UPDATE,
    by_function,
)

# The scopes a "user" route's JWT authorizer requires, one of which a token must carry: the user pool
# client's access tokens carry it (managed login grants the client's scopes; an SDK sign-in only this
# one), its ID tokens no scope at all, so an ID token is refused. stacks/api.py and the local API
# server (local/server.py) read it here.
API_SCOPES = ("aws.cognito.signin.user.admin",)

# The user pool's password policy: stacks/users.py builds the deployed pool's from it; the local
# stand-in (local/userpool.py) checks passwords against it and lists its rules on managed login's
# pages. Each kind is one a Cognito password policy can require (CloudFormation's PasswordPolicy:
# RequireLowercase, RequireUppercase, RequireNumbers, RequireSymbols).
PASSWORD_MIN_LENGTH = 12
PASSWORD_REQUIRES = ("lowercase", "uppercase", "numbers", "symbols")
TEMPORARY_PASSWORD_DAYS = 3  # an operator's AdminCreateUser password, unused, expires then

# The functions that serve no route (functions/<name>), besides one per route.
STREAM_PROCESSOR = "stream_processor"  # on the table's stream
FINISHER = "finish_due_race"  # finishes a race at its end, invoked by the race's one-time schedule (``ending``)
TOKEN_GROUPS = "token_groups"  # the user pool's pre-token-generation trigger
TICKER = "tick_race"  # pushes a race's board once a race second (``alleycat.flows.ticking``)
AUTHORIZER = "authorize_ingest"  # IoT Core's custom authorizer: who may send telemetry over MQTT (stacks/ingest_auth.py)
INGEST_CONSUMER = "ingest_telemetry"  # the telemetry log's consumer: bikes' MQTT messages, counted (stacks/ingest.py)
HISTORY_WRITER = "write_history"  # the fan-in's blocks -> racers' history chunks, on the table's stream (stacks/stream.py)
KEY_ROTATOR = "rotate_page_token_key"  # Secrets Manager's rotation of the page-token keys (alleycat.aws.page_keys)
NOT_ROUTES = (STREAM_PROCESSOR, FINISHER, TOKEN_GROUPS, TICKER, AUTHORIZER, INGEST_CONSUMER, HISTORY_WRITER, KEY_ROTATOR)
# Between rotations of the page-token keys: a token stays valid at least this long (alleycat.aws.page_keys).
PAGE_TOKEN_ROTATION_DAYS = 30
FUNCTIONS = (*(route.function for route in ROUTES), *NOT_ROUTES)

# The stream processor's table actions (the finisher's are a route's: routes.FINISH_ACTIONS).
STREAM_PROCESSOR_ACTIONS = (QUERY, GET, PUT, UPDATE, DELETE, BATCH_GET, BATCH_WRITE, CONDITION_CHECK)
# The log consumer's: what counting a racer's own batch does (the telemetry route's), and a Query of each slice's
# roster a batch touches (``flows.telemetry``: its tags, not each racer's entry).
INGEST_CONSUMER_ACTIONS = (*by_function("post_telemetry").actions, QUERY)
# The ticker's: the race (GetItem), then a race second's claim (UpdateItem) and its board (one Query).
TICKER_ACTIONS = (GET, UPDATE, QUERY)
# Its event source mapping, read by the stack and by the local stream poller alike. One
# invocation a second per shard at most: board writes are coalesced per invocation, so the
# window bounds the writes a race's partition sees (docs/capacity.md).
STREAM_BATCH_SIZE = 1000
STREAM_BATCHING_WINDOW_SECONDS = 1
STREAM_RETRIES = 5
# The history writer's mapping of the same stream (a shard takes two readers: docs/fan-in.md), filtered to second
# blocks. Its window coalesces a slice's half-minute of block records into one write a (racer, 30-s chunk): the
# history and an open race's results lag the board by up to that. A record carries both images of a block
# (~3 KB for 100 racers): 1,000 of them stay well inside an invocation's 6 MB.
HISTORY_BATCH_SIZE = 1000
HISTORY_BATCHING_WINDOW_SECONDS = 30
HISTORY_RETRIES = 5
# Its table actions: the race (a Query), the slice's tags (a Query), the chunk writes (UpdateItem; a refused one
# reads the chunk: GetItem).
HISTORY_WRITER_ACTIONS = (QUERY, GET, UPDATE)
# The telemetry log (stacks/ingest.py; locally local/kinesis.py): its provisioned shards, and its consumer's
# event source mapping, read by the stack and the local mapping alike (docs/capacity.md, "The telemetry log").
# No batching window: a record waits for nothing but its shard's next read (about a second in AWS), since the
# table's stream already coalesces board writes a second (STREAM_BATCHING_WINDOW_SECONDS); a batch is what a
# lane took since its last batch, up to INGEST_BATCH_SIZE messages. Each batch writes each slice it carries once
# (a block update, a board read and write), so a slice's writes a second are its lane's batches: at 1,000 a batch
# (the mapping allows 10,000; ~0.7 KB a record in the event, under an invocation's 6 MB) a lane's second of a
# 10,000-rider race's group (625 records) needs no second batch (at 100 it took 7, and the race's partition 1,354
# WCU/s). A standard iterator's lane takes about one batch a second (Lambda polls a shard once a second); pushed
# records (enhanced fan-out) would come in batches back to back (docs/capacity.md, "The fan-in at scale").
# A shard takes 1,000 records a second, and is read by the most batches at once Lambda allows, each partition
# key's records in order (ParallelizationFactor). A record that fails is retried from there, the batch halved on
# a function error (not counted as a retry), and after INGEST_RETRIES it goes to the failure queue.
INGEST_SHARDS = 2
INGEST_BATCH_SIZE = 1000
INGEST_BATCHING_WINDOW_SECONDS = 0
INGEST_PARALLELIZATION = 10
INGEST_RETRIES = 5

# The MQTT authorizer's reserved concurrency. Anyone can make it run (token signing is off), so this caps what
# a flood of connects costs and keeps it from the account's other functions (1,000 concurrent by default;
# Lambda keeps 100 unreserved). A warm call is ~2.5 ms of CPU at 256 MB (make bench-authorizer, extrapolated),
# so 100 instances answer thousands of connects a second, past IoT Core's 500 connects a second per account
# (its default quota), and a mass start's first second of cold instances (~0.3 s each) still about 300
# (docs/security.md, "Telemetry over MQTT").
AUTHORIZER_CONCURRENCY = 100
# Reserved for the two functions a flood of telemetry or connects must never starve (issue 54): each is also
# its own cap. The table stream's processor reads each stream shard one batch at a time (ParallelizationFactor 1),
# so it runs at most once a shard: 100 races of 1,000 write ~15,400 WCU/s, 16 partitions and so 16 stream shards
# (docs/capacity.md, "The fan-in at scale"); twice that, for a split partition's parent read while its children
# start. The pre-token trigger runs once a sign-in or refresh, which Cognito itself limits to 120 a second
# (UserAuthentication, its default quota: docs/security.md), each ~0.3 s cold: 36 at once at most.
STREAM_PROCESSOR_CONCURRENCY = 32
TOKEN_GROUPS_CONCURRENCY = 40

# Memory of each function. Telemetry is sized
# from a measured 1,000-sample batch (docs/capacity.md, "The telemetry function"): it needs
# ~80 MB but ~2 s of CPU, and Lambda gives one full vCPU only at 1,769 MB (256 MB: ~14 s > timeout).
DEFAULT_MEMORY_MB = 256
# The MQTT path's three are chosen by bench/memory.py from `make bench`'s figures (BENCH_ONLY=mqtt; docs/performance.md,
# section 5): the smallest size that holds the function's peak memory twice and meets its one need of CPU, which
# Lambda gives in proportion to memory (a vCPU at 1,769 MB). Measured 2026-11-29 under a load average of ~12 on
# 2 cores, so the CPU figures are high.
MEMORY_MB = {"post_telemetry": 1769, STREAM_PROCESSOR: 1024, FINISHER: 128,  # the finisher mostly waits
             # A tick of a 1,000-racer race (its claim, the board's Query, the message) is ~66 ms of one vCPU: within
             # 100 ms at 1,536 MB, so the board leaves at its phase (at 128 MB it took ~0.9 s, a second's message late).
             # It sleeps the rest of each second, billed all the same: ~$0.008 a race at 1,536 MB against $0.0006.
             TICKER: 1536,
             # An RS256 check: ~0.2 ms of one vCPU warm, a 18 MB peak: ~3 ms at 128 MB. CPU-bound work costs the
             # same GB-seconds at any size, so the least.
             AUTHORIZER: 128,
             # An admin's sign-in builds a boto3 client and calls AdminGetUser within Cognito's 5-second
             # limit, cold: 512 MB's CPU for that (a guess until measured in AWS); racers' pass straight through.
             TOKEN_GROUPS: 512,
             # A 1,000-racer replay is ~150 ms of one vCPU (make bench-replay): 256 MB's share would take ~1 s a miss
             "get_race_replay": 1024,
             # ~4.0 ms of one vCPU a record and two round trips (~5 ms each in AWS); a lane of a 1,000-racer race takes
             # 50 records a second (2 shards × 10 lanes): 50 × (4.0 × 1.73 + 10) ≈ 850 ms of each second at 1,024 MB, 1.2 s
             # at 512 MB (falls behind); a 49 MB peak
             INGEST_CONSUMER: 1024}


def memory_mb(function: str) -> int:
    return MEMORY_MB.get(function, DEFAULT_MEMORY_MB)


# Lambda's advanced logging controls (stacks/functions.py) and Powertools' log sampling (the bench
# measures what a request writes with them: docs/performance.md). A healthy
# request writes its metrics line only; one in LOG_SAMPLE_RATE⁻¹ also writes its request line
# (Powertools' sampling); a request that fails (4xx, 5xx, an uncaught error) writes everything it
# buffered (Powertools' log buffer, flushed on an error). Lambda's own START/END/REPORT lines are
# INFO system logs: WARN keeps its errors (timeouts, crashes) and drops them.
LOG_FORMAT = "JSON"
APPLICATION_LOG_LEVEL = "INFO"
SYSTEM_LOG_LEVEL = "WARN"
LOG_SAMPLE_RATE = 0.01

# The HTTP API's access log: one JSON line per request (stacks/api.py); the bench prices its size
# (about 350 bytes a bike's post: docs/performance.md). What an operator needs of a request API
# Gateway may have answered alone (401, 403, 429): who, what, when, how it ended, how long; the path
# names the race (the route is the path's shape), the time is epoch milliseconds. The caller's sub
# is the JWT authorizer's claim (empty on public routes).
ACCESS_LOG_FIELDS = {
    "requestId": "$context.requestId", "ip": "$context.identity.sourceIp", "time": "$context.requestTimeEpoch",
    "method": "$context.httpMethod", "path": "$context.path", "status": "$context.status",
    "responseLength": "$context.responseLength", "latency": "$context.responseLatency",
    "integrationLatency": "$context.integrationLatency", "integrationError": "$context.integrationErrorMessage",
    "authorizerError": "$context.authorizer.error", "sub": "$context.authorizer.claims.sub",
    "userAgent": "$context.identity.userAgent",
}

# CloudFront's Origin Shield in front of the API (stacks/site.py, docs/edge.md). CloudFront offers it
# only in the Regions where it has a regional edge cache, and says which of them to choose for an
# origin in another Region ("Choosing the AWS Region for Origin Shield", CloudFront Developer Guide):
# the stack's own Region when it is one of these, else the one the table below names. A Region in
# neither has no documented choice: deploy with `-c originShieldRegion=<one of these>`, or `off`.
ORIGIN_SHIELD_CONTEXT = "originShieldRegion"
ORIGIN_SHIELD_OFF = "off"
ORIGIN_SHIELD_REGIONS = ("us-east-2", "us-east-1", "us-west-2", "ap-south-1", "ap-northeast-2", "ap-southeast-1",
                         "ap-southeast-2", "ap-northeast-1", "eu-central-1", "eu-west-1", "eu-west-2", "sa-east-1")
ORIGIN_SHIELD_FOR_OTHER_REGIONS = {"us-west-1": "us-west-2", "af-south-1": "eu-west-1", "ap-east-1": "ap-southeast-1",
                                   "ca-central-1": "us-east-1", "eu-south-1": "eu-central-1", "eu-west-3": "eu-west-2",
                                   "eu-north-1": "eu-west-2", "me-south-1": "ap-south-1"}


def origin_shield_region(region: str) -> str | None:
    """Where Origin Shield runs for an API in ``region``, as AWS documents it (None: no documented choice)."""
    return region if region in ORIGIN_SHIELD_REGIONS else ORIGIN_SHIELD_FOR_OTHER_REGIONS.get(region)
