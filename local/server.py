"""`make local`: the whole API on one machine, no AWS account.

AWS's DynamoDB Local (``dynamodb_local``, its data in a temporary file) holds the table, created from the
same definition the stack deploys; every contract route is served by building
the HTTP API event (payload format 2.0) the deployed API would send and calling the same handler module;
the table's stream drives the same stream handler (``streams``), which pushes race boards to a
stand-in AppSync Event API on loopback (``eventapi``: AWS's protocol, its own two ports) as the
deployed one does; ``GET /config.json`` tells the browser where it is and where to sign in: a
stand-in for the Cognito user pool (``userpool``, ``managed_login``: managed login, OAuth 2.0 and
the user pool API, on a port of its own). ``POST /local/token`` gives tools and tests a token for
any racer. The frontend is served from the same origin, as CloudFront serves
both in AWS, so no answer carries CORS headers.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
import threading
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from alleycat import settings
from alleycat.edge.routes import ROUTES
from alleycat.settings import (
    EVENT_API_URL,
    FINISH_DEAD_LETTER_ARN,
    FINISH_SCHEDULE_GROUP,
    FINISH_SCHEDULE_ROLE_ARN,
    FINISHER_ARN,
    TICKER_ARN,
    TICKER_DEAD_LETTER_ARN,
    TICKER_SCHEDULE_ROLE_ARN,
)
from alleycat.storage import dynamo
from stacks import headers
from stacks.settings import (
    API_SCOPES,
    FINISHER,
    HISTORY_BATCHING_WINDOW_SECONDS,
    HISTORY_WRITER,
    INGEST_CONSUMER,
    STREAM_PROCESSOR,
    TICKER,
    TOKEN_GROUPS,
)

from . import openapi
from .auth import JwtAuthorizer, authorizer_claims, credentials_file, is_group_name, new_credentials
from .clock import WallClock
from .dynamodb_local import EmbeddedDynamoDB, EngineUnavailable, rss_bytes
from .eventapi import EventApi
from .events import http_event, match, request_body
from .kinesis import POLLED_VARIABLE, EmbeddedKinesis, KinesisMapping
from .lambda_api import LambdaApi
from .managed_login import UserPoolServer
from .mqtt import MqttBroker
from .runtime import Runtime
from .scheduler import SchedulerApi
from .secrets_manager import SecretsManagerApi, page_token_keys
from .static import static_file
from .streams import LIST_SHARDS_SECONDS, StreamPoller, StreamTail, history_poller, stream_shards
from .userpool import UserPool

TABLE_NAME = "alleycat-local"
FINISH_GROUP = "alleycat-race-finishes"
TICK_ROLE = "alleycat-race-ticks"
FINISHER_WORKERS = 8  # started as needed: races ending within the same ~2 minutes, each finisher waiting for its end
MAX_REQUEST_BYTES = 10 * 1024 * 1024
# The worker processes' names (``ps``, ``top``, /proc/<pid>/comm; 15 bytes at most): what each runs, for whoever
# measures the stack
WORKER_NAMES = {"api": "alleycat-api", "stream": "alleycat-stream", "finisher": "alleycat-finish",
                "ticker": "alleycat-tick", "history": "alleycat-hist"}
USER_POOL_ENDPOINT = "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER"  # boto3's cognito-idp client: the stand-in


def configure_environment(dynamodb_url: str, table_name: str = TABLE_NAME) -> None:
    """The environment a deployed function sees, pointed at the embedded DynamoDB; publishing
    to an Event API off until the stack sets ``EVENT_API_URL``."""
    os.environ.pop(EVENT_API_URL, None)
    os.environ.update({
        "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_url,
        "AWS_ACCESS_KEY_ID": os.environ.get("AWS_ACCESS_KEY_ID", "local"),
        "AWS_SECRET_ACCESS_KEY": os.environ.get("AWS_SECRET_ACCESS_KEY", "local"),
        "AWS_DEFAULT_REGION": os.environ.get("AWS_DEFAULT_REGION", "us-east-1"),
        "TABLE_NAME": table_name,
        "POWERTOOLS_SERVICE_NAME": "alleycat",
        "POWERTOOLS_METRICS_NAMESPACE": "Alleycat",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": os.environ.get("POWERTOOLS_LOG_LEVEL", "WARNING"),
    })
    # The deployed stack provisions the page-token signing key; the local stack makes its own.
    os.environ.setdefault(settings.PAGE_TOKEN_KEY, secrets.token_urlsafe(32))
    # The embedded engine shares a laptop's cores with everything else: no 1.5 s read timeout here.
    os.environ.setdefault(settings.DYNAMODB_READ_TIMEOUT_SECONDS, "30")
    settings.reset()


class ApiHandler(BaseHTTPRequestHandler):
    server_version = "AlleycatLocal/1"
    users: UserPool  # the user pool stand-in: POST /local/token signs with its access token key
    authorizer: JwtAuthorizer  # the routes' JWT authorizer: the pool's issuer and app client, API_SCOPES
    runtime: Runtime
    clock: WallClock  # or a clock the tests move (local.clock)
    site_config: dict  # GET /config.json: what the frontend needs besides its own origin
    protocol_version = "HTTP/1.1"  # keep-alive: a bike's connection serves all its posts
    timeout = 60  # an idle kept-alive connection is closed after this many seconds

    def date_time_string(self, timestamp=None):
        """The ``Date`` of every answer: the stack's clock (a test's manual one), not Python's wall clock
        (``BaseHTTPRequestHandler`` reads ``time.time()``): the ride page takes its race clock from it."""
        return super().date_time_string(self.clock.now() if timestamp is None else timestamp)

    def log_message(self, fmt, *args):  # one quiet line per request
        if os.environ.get("ALLEYCAT_ACCESS_LOG") == "1":
            sys.stderr.write(f"{self.address_string()} {fmt % args}\n")

    def do_GET(self):
        self._dispatch()

    def do_PUT(self):
        self._dispatch()

    def do_POST(self):
        self._dispatch()

    def do_DELETE(self):
        self._dispatch()

    # The other methods CloudFront forwards to the API (AllowedMethods.ALLOW_ALL): no route has them, so
    # API Gateway answers 404 (HEAD of the site's files: their headers, as CloudFront and S3 do).
    do_HEAD = do_OPTIONS = do_PATCH = do_DELETE

    def send_error(self, code, message=None, explain=None):
        """http.server's own errors (malformed request line, unknown method, ...) in the contract's JSON shape."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # no request line parsed: still answer with a status line
            self.request_version = "HTTP/1.0"
        self._json(code, {"message": message or self.responses.get(code, ("Error",))[0]})

    def _dispatch(self) -> None:
        url = urlsplit(self.path)
        raw_length = self.headers.get("Content-Length") or "0"
        if not raw_length.isdigit():
            self.close_connection = True  # the body's end is unknown: do not read on from it
            return self._json(400, {"message": "Content-Length must be a whole number of bytes"})
        length = int(raw_length)
        if length > MAX_REQUEST_BYTES:
            self.close_connection = True  # its body stays unread
            return self._json(413, {"message": "Request Too Long"})
        raw = self.rfile.read(length) if length else b""
        if url.path == "/local/token" and self.command == "POST":
            return self._token(raw)
        if url.path == "/openapi.json" and self.command == "GET":
            return self._send(200, openapi.text().encode(), {"Content-Type": "application/json"})
        if url.path == "/config.json" and self.command == "GET":
            return self._send(200, json.dumps(self.site_config).encode(),
                              {"Content-Type": "application/json", "Cache-Control": headers.REVALIDATE})
        route, parameters, path_known = match(self.command, url.path)
        if route is None and self.command in ("GET", "HEAD") and not path_known:
            found = static_file(url.path)
            if found:
                return self._send(200, *found)
        if route is None:  # API Gateway: "If no routes match a request, API Gateway returns {"message":"Not Found"}"
            return self._json(404, {"message": "Not Found"})
        claims = None
        if route.protected:
            claims, why = self._claims()
            if claims is None:  # as API Gateway answers: its reason in WWW-Authenticate
                return self._send(401, b'{"message":"Unauthorized"}', {
                    "Content-Type": "application/json",
                    "WWW-Authenticate": f'Bearer scope="{" ".join(API_SCOPES)}" error="invalid_token" error_description="{why}"'})
        body, encoded = request_body(raw, self.headers.get("Content-Type"))
        event = http_event(route, url.path, parameters, url.query, self.headers.items(), body, claims,
                           self.client_address[0], now=self.clock.now(), encoded=encoded)
        try:
            response = self.runtime.invoke(route.function, event)
        except Exception as error:  # noqa: BLE001 - a function error (it raised, or its worker died: WorkerDied)
            # As an HTTP API answers one ("http-api-troubleshooting-lambda": {"message":"Internal Server Error"}), and
            # does not retry it; the next request runs in a worker replaced if this one died (local.runtime).
            sys.stderr.write(f"{route.function} failed: {error!r}\n")
            return self._json(500, {"message": "Internal Server Error"})
        self._send(response["statusCode"], (response.get("body") or "").encode(), response.get("headers") or {},
                   response.get("cookies") or ())

    def _claims(self) -> tuple[dict | None, str | None]:
        header = (self.headers.get("Authorization") or "").strip()
        if not header:
            return None, "no token"
        claims, why = self.authorizer.verify(header, API_SCOPES)
        return (authorizer_claims(claims), None) if claims else (None, why)

    def _token(self, body: bytes) -> None:
        try:
            request = json.loads(body.decode())
            sub, groups = request["sub"], request.get("groups", [])
            assert isinstance(sub, str) and sub and isinstance(groups, list)
        except (ValueError, KeyError, TypeError, AssertionError):
            return self._json(400, {"message": 'body must be {"sub": "<racerId>", "groups": [..]}'})
        refused = next((group for group in groups if not is_group_name(group)), None)
        if refused is not None:  # as Cognito: no user is in a group of that name, so no token lists it
            return self._json(400, {"message": f"groups: {json.dumps(refused)} is no Cognito group name (1-128 "
                                               "letters, marks, symbols, numbers or punctuation: no space)"})
        self._json(200, {"token": self.users.tool_token(sub, groups)})

    def _json(self, status: int, body: dict) -> None:
        self._send(status, json.dumps(body).encode(), {"Content-Type": "application/json"})

    def _send(self, status: int, payload: bytes, answer_headers: dict, cookies=()) -> None:
        # As CloudFront's response headers policy does: its security headers override the origin's.
        security = headers.security_headers(headers.connect_origins(self.site_config))
        overridden = {name.lower() for name in security}
        sent = {key: value for key, value in answer_headers.items() if key.lower() not in overridden}
        self.send_response(status)
        for key, value in {**sent, **security}.items():
            self.send_header(key, value)
        for cookie in cookies:
            self.send_header("Set-Cookie", cookie)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if payload and self.command != "HEAD":
            self.wfile.write(payload)


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # a second's burst from every bike, not Python's default of 5


class LocalStack:
    """Embedded DynamoDB + API server; ``start()`` returns once both answer."""

    def __init__(self, port: int = 3000, host: str = "127.0.0.1", push_boards: bool = True,
                 dynamodb: EmbeddedDynamoDB | None = None, clock=None, credentials: tuple[str, str] | None = None,
                 history_window_seconds: float = HISTORY_BATCHING_WINDOW_SECONDS):
        self.host, self.port = host, port
        # The history writer's batching window: the stack's (AWS's) unless a real-clock test's stack shortens it.
        self.history_window_seconds = history_window_seconds
        # The stack's AWS credentials, made afresh unless given: its functions sign with them and its
        # stand-ins (Event API, user pool API, Lambda, Scheduler) accept no others. A shell's own AWS
        # credentials never reach the local functions.
        self.credentials = credentials or new_credentials()
        # The time of requests, schedules and functions: the wall clock, or one the tests move.
        self.clock = clock or WallClock()
        # The stand-in Event API races' tickers publish to; ALLEYCAT_PUSH=0 leaves it out
        # (no EVENT_API_URL: publishing off, the frontend polls).
        self.push = push_boards and os.environ.get("ALLEYCAT_PUSH", "1") != "0"
        self.events: EventApi | None = None
        # The stream read as ALLEYCAT_STREAM_SHARDS shards, each invoking the function concurrently.
        self.stream_shards = stream_shards()
        # A temporary database file by default, so race after race the JVM stays flat (see
        # EmbeddedDynamoDB); ALLEYCAT_DYNAMODB=memory is faster and grows with every stream record.
        # A given engine (the tests', with other JVM options) is the stack's from then on; start() starts it.
        self.dynamodb = dynamodb or EmbeddedDynamoDB(in_memory=os.environ.get("ALLEYCAT_DYNAMODB") == "memory")
        self.users: UserPoolServer | None = None
        self.stream: StreamPoller | None = None
        self.runtime: Runtime | None = None
        self.stream_runtime: Runtime | None = None
        self.history: StreamPoller | None = None
        self.history_runtime: Runtime | None = None
        self.async_runtime: Runtime | None = None
        self.ticker_runtime: Runtime | None = None
        self.functions_api: LambdaApi | None = None
        self.scheduler: SchedulerApi | None = None
        self._async_environment: dict[str, str] = {}
        self.secrets: SecretsManagerApi | None = None  # the page-token keys' secret (local.secrets_manager)
        self._http: ApiServer | None = None
        # Telemetry over MQTT (contract v1.3): a broker on a port of its own (ALLEYCAT_MQTT_PORT, default any
        # free one); ALLEYCAT_MQTT=0 leaves it out (no ingest in GET /config.json).
        self.mqtt_enabled = os.environ.get("ALLEYCAT_MQTT", "1") != "0"
        self.mqtt: MqttBroker | None = None
        # Its telemetry log, as the topic rule fills the Kinesis stream in AWS: kinesalite, and the consumer's
        # event source mapping into the API's workers (local.kinesis).
        self.kinesis: EmbeddedKinesis | None = None
        self.log: KinesisMapping | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> LocalStack:
        self.dynamodb.start()
        os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"] = self.credentials
        configure_environment(self.dynamodb.url)
        self.secrets, keys_environment = page_token_keys(self.host, *self.credentials, os.environ["AWS_DEFAULT_REGION"])
        self._async_environment.update(keys_environment)  # every worker reads its keys from it; gone with the stack
        os.environ.update(keys_environment)
        if self.push:  # verifies the publisher's SigV4 with the credentials the functions get
            self.events = EventApi(host=self.host, access_key=os.environ["AWS_ACCESS_KEY_ID"],
                                   secret_key=os.environ["AWS_SECRET_ACCESS_KEY"],
                                   region=os.environ["AWS_DEFAULT_REGION"]).start()
            os.environ[EVENT_API_URL] = self.events.http_url
            settings.reset()
        self._start_async_functions()
        self._start_user_pool()
        dynamo.client.cache_clear()  # a client made earlier in this process may point elsewhere
        self.dynamodb.create_table(TABLE_NAME)
        tail = StreamTail.of_table(self.dynamodb, TABLE_NAME, list_every=LIST_SHARDS_SECONDS)
        # The stream function in processes of its own, one per shard, as its own Lambda function would be.
        self.stream_runtime = Runtime(workers=self.stream_shards, clock=self.clock, functions=(STREAM_PROCESSOR,),
                                     name=WORKER_NAMES["stream"])
        self.stream = StreamPoller(tail, shards=self.stream_shards,
                                   invoke=lambda event: self.stream_runtime.invoke(STREAM_PROCESSOR, event)).start()
        # The history writer (the fan-in's): a second reader of the stream, in a process of its own started at its
        # first batch, its window on the stack's clock.
        self.history_runtime = Runtime(workers=1, clock=self.clock, prestart=False, functions=(HISTORY_WRITER,),
                                       name=WORKER_NAMES["history"])
        self.history = history_poller(StreamTail.of_table(self.dynamodb, TABLE_NAME, list_every=LIST_SHARDS_SECONDS),
                                      lambda event: self.history_runtime.invoke(HISTORY_WRITER, event),
                                      clock=self.clock.now, window_seconds=self.history_window_seconds).start()
        # After configure_environment: the workers inherit it.
        # (The log's consumer runs there too, imported at its first batch: most stacks the tests start never see one.)
        self.runtime = Runtime(clock=self.clock, functions=(*(route.function for route in ROUTES), TOKEN_GROUPS),
                               name=WORKER_NAMES["api"])
        assert self.users is not None  # _start_user_pool ran first
        pool = self.users.pool
        authorizer = JwtAuthorizer(lambda: pool.issuer, (pool.client_id,), self.clock.now)  # finds the keys by the issuer
        if self.mqtt_enabled:  # the broker checks tokens with IoT's custom authorizer's code, counts in the API's workers
            self.mqtt = self._start_mqtt(pool.issuer, pool.client_id)
        handler = type("BoundApiHandler", (ApiHandler,), {"users": pool, "authorizer": authorizer, "runtime": self.runtime,
                                                          "clock": self.clock, "site_config": self.site_config})
        self._http = ApiServer((self.host, self.port), handler)
        self.port = self._http.server_address[1]
        # The app client's callback and sign-out URLs: the site's root, by address or by name.
        self.users.allow_app(f"{self.url}/", *([f"http://localhost:{self.port}/"] if self.host == "127.0.0.1" else []))
        threading.Thread(target=self._http.serve_forever, name="api", daemon=True).start()
        return self

    def _start_mqtt(self, issuer: str, client_id: str) -> MqttBroker:
        """Bikes' telemetry over MQTT 3.1.1 on a WebSocket (local.mqtt), authorized by the code of IoT Core's
        custom authorizer (alleycat.edge.ingest_auth): each message put into the telemetry log as the topic rule
        puts it (alleycat.edge.mqtt), read by the consumer's mapping into the API's workers."""
        from alleycat.edge import mqtt

        from .kinesis import STREAM_NAME
        from .mqtt import Gate, authorizer

        runtime = self.runtime
        assert runtime is not None  # started first: the mapping invokes the consumer there
        self.kinesis = EmbeddedKinesis().start()
        self.kinesis.create_stream()
        log = self.kinesis.client()
        mapping = self.log = KinesisMapping(log, invoke=lambda event: runtime.invoke(INGEST_CONSUMER, event),
                                            polled=os.environ.get(POLLED_VARIABLE) == "1").start()

        def ingest(topic: str, payload: bytes, arrival: float) -> object:
            data, key = mqtt.rule_record(topic, payload, arrival)
            put = log.put_record(StreamName=STREAM_NAME, Data=data, PartitionKey=key)
            mapping.poke()
            return put

        port = int(os.environ.get("ALLEYCAT_MQTT_PORT", "0"))
        return MqttBroker(Gate(authorizer(issuer, client_id, self.clock), self.clock, ingest), host=self.host, port=port).start()

    def _start_async_functions(self) -> None:
        """The functions invoked asynchronously, as in AWS. Races finish by themselves (``alleycat.flows.ending``):
        stand-ins for EventBridge Scheduler and Lambda's Invoke, on the stack's clock, run the finisher
        in worker processes of its own (it waits for a race's end, up to ``finishing.LONGEST_WAIT``
        seconds). With push on, races' tickers (``alleycat.flows.ticking``) run in a worker process of their own,
        each invocation on a thread of it: a ticker sleeps most of each second, and a process per live race
        would hold a laptop's memory."""
        access_key, secret_key = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]
        region = os.environ["AWS_DEFAULT_REGION"]
        self.async_runtime = Runtime(workers=FINISHER_WORKERS, clock=self.clock, prestart=False, functions=(FINISHER,),
                                     name=WORKER_NAMES["finisher"])

        def run(function: str, event: dict) -> dict:
            if function == TICKER:
                assert self.ticker_runtime is not None  # started with push on, the only time a ticker is asked for
                return self.ticker_runtime.start(function, event)
            assert self.async_runtime is not None
            return self.async_runtime.invoke(function, event)

        self.functions_api = LambdaApi(run, {FINISHER, *([TICKER] if self.push else [])}, host=self.host,
                                       access_key=access_key, secret_key=secret_key, region=region).start()
        self.scheduler = SchedulerApi(self.clock, self.functions_api.invoke_async, host=self.host,
                                      groups=(FINISH_GROUP,), access_key=access_key, secret_key=secret_key,
                                      region=region).start()
        account = self.functions_api.account
        self._async_environment |= {
            "AWS_ENDPOINT_URL_SCHEDULER": self.scheduler.url, "AWS_ENDPOINT_URL_LAMBDA": self.functions_api.url,
            FINISH_SCHEDULE_GROUP: FINISH_GROUP, FINISHER_ARN: self.functions_api.arn(FINISHER),
            FINISH_SCHEDULE_ROLE_ARN: f"arn:aws:iam::{account}:role/{FINISH_GROUP}",
            FINISH_DEAD_LETTER_ARN: f"arn:aws:sqs:{region}:{account}:{FINISH_GROUP}",
            **({TICKER_ARN: self.functions_api.arn(TICKER), TICKER_SCHEDULE_ROLE_ARN: f"arn:aws:iam::{account}:role/{TICK_ROLE}",
                TICKER_DEAD_LETTER_ARN: f"arn:aws:sqs:{region}:{account}:{TICK_ROLE}"} if self.push else {})}
        os.environ.update(self._async_environment)
        settings.reset()
        if self.push:  # after the environment: its worker starts with it (with the first race)
            self.ticker_runtime = Runtime(workers=1, clock=self.clock, prestart=False, functions=(TICKER,),
                                          name=WORKER_NAMES["ticker"])

    def _start_user_pool(self) -> None:
        """Sign-up and sign-in as in AWS (stacks/users.py): the pool's tokens pass through the same
        pre-token-generation trigger, run by the API's runtime, which asks the pool as it would Cognito."""
        def pre_token(event: dict) -> dict:
            assert self.runtime is not None  # started before the first sign-in
            return self.runtime.invoke(TOKEN_GROUPS, event)

        self.users = UserPoolServer(UserPool(self.clock, region=os.environ["AWS_DEFAULT_REGION"], pre_token=pre_token),
                                    host=self.host, access_key=os.environ["AWS_ACCESS_KEY_ID"],
                                    secret_key=os.environ["AWS_SECRET_ACCESS_KEY"]).start()
        os.environ[USER_POOL_ENDPOINT] = self.users.url

    @property
    def site_config(self) -> dict:
        """``/config.json``: in AWS the site's deployment writes the same shape (stacks/site.py)."""
        return {"events": self.events.config if self.events else None, "auth": self.users.config if self.users else None,
                **({"ingest": self.mqtt.config} if self.mqtt else {})}

    def memory(self) -> str:
        """The stack's resident memory: its Python processes (server, function workers) and DynamoDB Local's JVM."""
        python = rss_bytes() + sum(runtime.rss_bytes() for runtime in (self.runtime, self.stream_runtime, self.async_runtime,
                                                                        self.ticker_runtime, self.history_runtime) if runtime)
        engine = self.dynamodb.rss_bytes()
        log = rss_bytes(self.kinesis.process.pid) if self.kinesis and self.kinesis.process else 0
        return (f"stack memory {(python + engine + log) / 2**20:,.0f} MB "
                f"(Python {python / 2**20:,.0f} MB + DynamoDB Local {engine / 2**20:,.0f} MB"
                f"{f' + kinesalite {log / 2**20:,.0f} MB' if log else ''})")

    def stop(self) -> None:
        if self._http:
            self._http.shutdown()
            self._http.server_close()
        if self.mqtt:
            self.mqtt.stop()
        if self.log:
            self.log.stop()
        if self.kinesis:
            self.kinesis.stop()
        for poller in (self.stream, self.history):
            if poller:
                poller.stop()
        for api in (self.scheduler, self.functions_api, self.users, self.secrets):
            if api:
                api.stop()
        if self.users and os.environ.get(USER_POOL_ENDPOINT) == self.users.url:
            del os.environ[USER_POOL_ENDPOINT]
        for name, value in self._async_environment.items():
            if os.environ.get(name) == value:
                del os.environ[name]
        for runtime in (self.runtime, self.stream_runtime, self.history_runtime):
            if runtime:
                runtime.stop()
        for runtime in (self.async_runtime, self.ticker_runtime):  # finishers and tickers wait for races' ends
            if runtime:
                runtime.stop(wait=False)
        if self.events:
            self.events.stop()
            if os.environ.get(EVENT_API_URL) == self.events.http_url:
                del os.environ[EVENT_API_URL]
        settings.reset()
        self.dynamodb.stop()


def wait_for_ctrl_c(stop: threading.Event | None = None) -> None:
    """Blocks until Ctrl-C, SIGTERM or ``stop`` is set."""
    stop = stop or threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass


def start_or_explain(port: int) -> LocalStack:
    """The started stack, or exit with a sentence saying what is missing (Java, npm packages) or wrong."""
    try:
        stack = LocalStack(port=port)
    except ValueError as error:  # a bad ALLEYCAT_* setting
        sys.exit(f"cannot start the local stack: {error}")
    try:
        return stack.start()
    except EngineUnavailable as error:
        sys.exit(f"cannot start the local stack: {error}")
    except OSError as error:
        sys.exit(f"cannot start the local stack on port {port}: {error.strerror} (PORT= picks another)")


def main() -> None:
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    port = int(os.environ.get("PORT", "3000"))
    stack = start_or_explain(port)
    print(f"Alleycat local stack ready at {stack.url}  (Ctrl-C stops it)", flush=True)
    assert stack.users is not None  # started
    print(f"  sign-in (Cognito user pool stand-in): {stack.users.domain}  (codes Cognito would email print here)", flush=True)
    saved = credentials_file(stack.port)  # for `make admin SITE=...`
    with open(os.open(saved, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
        json.dump(dict(zip(("accessKeyId", "secretAccessKey"), stack.credentials, strict=True)), file)
    print(f"  its AWS credentials (the stand-ins accept no others): {saved}", flush=True)
    print(f"  DynamoDB Local: {stack.dynamodb.url} table {TABLE_NAME}", flush=True)
    if stack.mqtt:
        print(f"  telemetry over MQTT: {stack.mqtt.url} (user name {stack.mqtt.config['username']!r}, "
              f"password an access token; topic {stack.mqtt.config['topic']})", flush=True)
    if stack.events:
        print(f"  live boards (AppSync Events stand-in): publish {stack.events.http_url}, "
              f"subscribe {stack.events.realtime_url}", flush=True)
    try:
        wait_for_ctrl_c()
    finally:
        stack.stop()
        print("stopped", flush=True)


if __name__ == "__main__":
    main()
