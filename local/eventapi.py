"""A stand-in for an AWS AppSync Events API on loopback: the same protocol as AWS, for `make local`.

AppSync Events (https://docs.aws.amazon.com/appsync/latest/eventapi/) serves an Event API on two
domains; this serves each on a port of its own:

- the **HTTP domain**, ``POST /event`` with ``{"channel": "/races/<raceId>", "events": ["<json>", ...]}``
  (at most 5 events, each a string holding a JSON value). Publishing here is IAM only, as the
  deployed channel namespace is: the request must be SigV4-signed (service ``appsync``) with the
  local stack's credentials; an API key is refused (401, ``UnauthorizedException``). The answer is
  AppSync's: ``{"successful": [{"identifier", "index"}], "failed": []}``.
- the **real-time domain**, a WebSocket at ``/event/realtime`` (``websockets``, a development-only
  dependency). The client offers the subprotocols ``aws-appsync-event-ws`` and
  ``header-<base64url(JSON authorization headers)>``; for the API key those are
  ``{"host": <HTTP domain>, "x-api-key": <key>}``. A handshake without the protocol is a 400, with a
  wrong or missing key a 401. Then, as in AWS:

  ========================================  =========================================================
  client                                    server
  ========================================  =========================================================
  ``{"type": "connection_init"}``           ``{"type": "connection_ack", "connectionTimeoutMs": N}``
  ``{"type": "subscribe", "id", "channel",  ``{"type": "subscribe_success", "id"}``, or
  "authorization": {...}}``                 ``{"type": "subscribe_error", "id", "errors": [...]}``
  (an event published on the channel)      ``{"type": "data", "id", "event": "<json>"}``, one per event
  ``{"type": "unsubscribe", "id"}``         ``{"type": "unsubscribe_success", "id"}`` (or ``_error``)
  ``{"type": "publish", ...}``              ``publish_error``: viewers cannot publish (IAM only)
  anything else, or not JSON                ``{"type": "error", "errors": [...]}``
  (every ``keep_alive_seconds``)            ``{"type": "ka"}``
  ========================================  =========================================================

  Errors carry ``{"errorType", "message"}`` (``UnauthorizedException``, ``BadRequestException``).
  A channel path is ``/<namespace>/<segment>...``: at most 5 segments of 1-50 letters, digits or
  dashes; a subscription may end in ``*`` (any channel below that path).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import json
import re
import secrets
import sys
import threading
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from websockets.asyncio.server import Server

PROTOCOL = "aws-appsync-event-ws"
HEADER_PREFIX = "header-"
REALTIME_PATH = "/event/realtime"
PUBLISH_PATH = "/event"
SERVICE = "appsync"
CONNECTION_TIMEOUT_MS = 300_000  # what AppSync's connection_ack says: a client closes after 5 minutes without ka
KEEP_ALIVE_SECONDS = 60
MAX_EVENTS = 5
MAX_EVENT_BYTES = 240 * 1024
MAX_SEGMENTS = 5
SEGMENT = re.compile(r"[A-Za-z0-9-]{1,50}")
SIGNATURE_SKEW_SECONDS = 15 * 60
MAX_PUBLISH_BYTES = 1_200_000
# AppSync's quota "Subscriptions per connection" (https://docs.aws.amazon.com/general/latest/gr/appsync.html);
# past it a subscribe is refused with the errorType AppSync's real-time clients know, MaxSubscriptionsReachedError.
MAX_SUBSCRIPTIONS_PER_CONNECTION = 100
UNRECOGNIZED_KEY = "The security token included in the request is invalid."  # AWS's words for an unknown access key


def error(error_type: str, message: str) -> dict:
    return {"errorType": error_type, "message": message}


def decode_header(protocol: str) -> dict | None:
    encoded = protocol[len(HEADER_PREFIX):]
    try:
        decoded = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    except (ValueError, binascii.Error):
        return None
    return decoded if isinstance(decoded, dict) else None


def channel_segments(path, wildcard: bool) -> list[str] | None:
    """The channel's segments, or None when ``path`` is not a channel path (``*`` ends a subscription's)."""
    if not isinstance(path, str) or not path.startswith("/"):
        return None
    segments = path.strip("/").split("/")
    if not 1 <= len(segments) <= MAX_SEGMENTS:
        return None
    for position, segment in enumerate(segments):
        if segment == "*" and wildcard and position == len(segments) - 1 and position > 0:
            continue
        if not SEGMENT.fullmatch(segment):
            return None
    return segments


def matches(pattern: list[str], channel: list[str]) -> bool:
    if pattern[-1] == "*":
        return len(channel) >= len(pattern) and channel[:len(pattern) - 1] == pattern[:-1]
    return pattern == channel


class SigV4Verifier:
    """Checks a SigV4 signature as AWS would: same canonical request, same key, within 15 minutes."""

    def __init__(self, access_key: str, secret_key: str, region: str, service: str = SERVICE):
        self.access_key, self.secret_key, self.region, self.service = access_key, secret_key, region, service

    def verify(self, method: str, path: str, headers: dict[str, str], body: bytes) -> str | None:
        """None when the request is signed by our credentials for this region and service; else why not."""
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        lower = {key.lower(): value for key, value in headers.items()}
        found = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, "
                             r"SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})", lower.get("authorization", ""))
        if not found:
            return "the request is not SigV4-signed"
        access_key, day, region, service, signed, signature = found.groups()
        if access_key != self.access_key:
            return "unknown access key"
        if (region, service) != (self.region, self.service):
            return f"signed for {service} in {region}, not {self.service} in {self.region}"
        stamp = lower.get("x-amz-date", "")
        try:
            when = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        except ValueError:
            return "no valid X-Amz-Date"
        if abs(time.time() - when.timestamp()) > SIGNATURE_SKEW_SECONDS or not stamp.startswith(day):
            return "signature expired"
        names = signed.split(";")
        if "host" not in names or any(name not in lower for name in names):
            return "a signed header is missing"
        request = AWSRequest(method, f"http://{lower['host']}{path}", data=body,
                             headers={name: lower[name] for name in names})
        token = lower.get("x-amz-security-token")
        signer = SigV4Auth(Credentials(self.access_key, self.secret_key, token), self.service, self.region)
        request.context["timestamp"] = stamp
        expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
        if signer.signed_headers(signer.headers_to_sign(request)) != signed:
            return "signed headers do not match"
        return None if hmac.compare_digest(expected, signature) else "the signature does not match"


class EventApi:
    """``start()`` serves both domains on free loopback ports; ``stop()`` ends them.

    ``config`` is what a browser needs (``/config.json`` of the local stack): the real-time URL,
    the HTTP domain (the ``host`` of the authorization header) and the API key.
    """

    def __init__(self, host: str = "127.0.0.1", api_key: str | None = None, access_key: str = "local",
                 secret_key: str = "local", region: str = "us-east-1", namespaces: tuple[str, ...] = ("races",),
                 keep_alive_seconds: float = KEEP_ALIVE_SECONDS, connection_timeout_ms: int = CONNECTION_TIMEOUT_MS):
        self.host = host
        self.api_key = api_key or f"da2-local{secrets.token_hex(12)}"
        self.region = region
        self.namespaces = set(namespaces)
        self.keep_alive_seconds, self.connection_timeout_ms = keep_alive_seconds, connection_timeout_ms
        self.verifier = SigV4Verifier(access_key, secret_key, region)
        self.stats: Counter[str] = Counter()  # publish requests, events published, deliveries, bytes delivered
        self._connections: dict = {}  # connection -> {subscription id: channel pattern}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ws_server: Server | None = None
        self._http: ThreadingHTTPServer | None = None
        self.http_port = self.realtime_port = 0

    # --- endpoints ------------------------------------------------------------------------------

    @property
    def http_host(self) -> str:
        return f"{self.host}:{self.http_port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.http_host}{PUBLISH_PATH}"

    @property
    def realtime_url(self) -> str:
        return f"ws://{self.host}:{self.realtime_port}{REALTIME_PATH}"

    @property
    def config(self) -> dict:
        return {"realtime": self.realtime_url, "host": self.http_host, "apiKey": self.api_key}

    def start(self) -> EventApi:
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            self._loop = asyncio.new_event_loop()
            try:
                self._loop.run_until_complete(self._serve())
            except BaseException as exc:  # noqa: BLE001 - reported to start()
                failure.append(exc)
                ready.set()
                return
            ready.set()
            self._loop.run_forever()

        threading.Thread(target=run, name="event-api-ws", daemon=True).start()
        ready.wait(10)
        if failure:
            raise failure[0]
        handler = type("BoundPublishHandler", (PublishHandler,), {"api": self})
        self._http = ThreadingHTTPServer((self.host, 0), handler)
        self._http.daemon_threads = True
        self.http_port = self._http.server_address[1]
        threading.Thread(target=self._http.serve_forever, name="event-api-http", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._http:
            self._http.shutdown()
            self._http.server_close()
        loop, server = self._loop, self._ws_server
        if loop and server:
            async def close() -> None:
                server.close()
                await server.wait_closed()

            try:
                asyncio.run_coroutine_threadsafe(close(), loop).result(5)
            except Exception:  # noqa: BLE001 - stopping anyway
                pass
            loop.call_soon_threadsafe(loop.stop)

    async def _serve(self) -> None:
        from websockets.asyncio.server import serve
        from websockets.typing import Subprotocol

        # No permessage-deflate: the bytes a viewer gets are the bytes AppSync meters.
        self._ws_server = await serve(self._session, self.host, 0, subprotocols=[Subprotocol(PROTOCOL)],
                                      select_subprotocol=self._select_subprotocol,
                                      process_request=self._check_handshake, compression=None,
                                      ping_interval=None, max_size=MAX_PUBLISH_BYTES)
        self.realtime_port = next(iter(self._ws_server.sockets)).getsockname()[1]

    # --- the WebSocket handshake ----------------------------------------------------------------

    @staticmethod
    def _offered(request) -> list[str]:
        return [p.strip() for value in request.headers.get_all("Sec-WebSocket-Protocol") for p in value.split(",")]

    def _select_subprotocol(self, connection, subprotocols):
        return PROTOCOL if PROTOCOL in subprotocols else None

    def _check_handshake(self, connection, request):
        from http import HTTPStatus

        if request.path.split("?")[0] != REALTIME_PATH:
            return connection.respond(HTTPStatus.NOT_FOUND, "Not Found\n")
        offered = self._offered(request)
        if PROTOCOL not in offered:
            return connection.respond(HTTPStatus.BAD_REQUEST, f"the {PROTOCOL} subprotocol is required\n")
        header = next((decode_header(p) for p in offered if p.startswith(HEADER_PREFIX)), None)
        if self._unauthorized(header):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "UnauthorizedException\n")
        return None

    def _unauthorized(self, authorization) -> str | None:
        """Why an authorization object (connect or subscribe) does not pass, or None."""
        if not isinstance(authorization, dict):
            return "no authorization header"
        if authorization.get("host") != self.http_host:
            return f"host must be the API's HTTP domain, {self.http_host}"
        if not hmac.compare_digest(str(authorization.get("x-api-key", "")), self.api_key):
            return "the API key is not valid"
        return None

    # --- a connection ---------------------------------------------------------------------------

    async def _session(self, connection) -> None:
        subscriptions: dict[str, list[str]] = {}
        self._connections[connection] = subscriptions
        keep_alive = asyncio.get_running_loop().create_task(self._keep_alive(connection))
        try:
            async for raw in connection:
                reply = self._on_message(subscriptions, raw)
                if reply is not None:
                    await connection.send(json.dumps(reply))
        except Exception:  # noqa: BLE001 - a broken connection ends its session
            pass
        finally:
            keep_alive.cancel()
            self._connections.pop(connection, None)

    async def _keep_alive(self, connection) -> None:
        while True:
            await asyncio.sleep(self.keep_alive_seconds)
            await connection.send('{"type":"ka"}')

    def _on_message(self, subscriptions: dict, raw) -> dict | None:
        try:
            message = json.loads(raw)
        except (TypeError, ValueError):
            message = None
        if not isinstance(message, dict):
            return {"type": "error", "errors": [error("BadRequestException", "a message must be a JSON object")]}
        kind, sub_id = message.get("type"), message.get("id")
        if kind == "connection_init":
            return {"type": "connection_ack", "connectionTimeoutMs": self.connection_timeout_ms}
        if kind == "subscribe":
            failure = self._subscribe(subscriptions, message)
            if failure:
                return {"type": "subscribe_error", "id": sub_id, "errors": [failure]}
            return {"type": "subscribe_success", "id": sub_id}
        if kind == "unsubscribe":
            if not isinstance(sub_id, str) or sub_id not in subscriptions:
                return {"type": "unsubscribe_error", "id": sub_id,
                        "errors": [error("BadRequestException", "no subscription with this id")]}
            del subscriptions[sub_id]
            return {"type": "unsubscribe_success", "id": sub_id}
        if kind == "publish":
            return {"type": "publish_error", "id": sub_id,
                    "errors": [error("UnauthorizedException", "publishing to this namespace requires IAM")]}
        return {"type": "error", "id": sub_id, "errors": [error("BadRequestException", f"unknown message type {kind!r}")]}

    def _subscribe(self, subscriptions: dict, message: dict) -> dict | None:
        sub_id = message.get("id")
        if not isinstance(sub_id, str) or not 1 <= len(sub_id) <= 128:
            return error("BadRequestException", "a subscription needs an id (1-128 characters)")
        if sub_id in subscriptions:
            return error("BadRequestException", "a subscription with this id exists on this connection")
        if len(subscriptions) >= MAX_SUBSCRIPTIONS_PER_CONNECTION:
            return error("MaxSubscriptionsReachedError",
                         f"a connection holds at most {MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions")
        segments = channel_segments(message.get("channel"), wildcard=True)
        if segments is None:
            return error("BadRequestException", "not a valid channel path")
        if segments[0] not in self.namespaces:
            return error("BadRequestException", f"no channel namespace {segments[0]!r}")
        why = self._unauthorized(message.get("authorization"))
        if why:
            return error("UnauthorizedException", why)
        subscriptions[sub_id] = segments
        return None

    # --- publishing -----------------------------------------------------------------------------

    def publish(self, channel: str, events: list[str]) -> None:
        """Hands validated events to the real-time domain's loop (from any thread)."""
        self.stats["events"] += len(events)
        assert self._loop is not None  # started before any publish is accepted
        asyncio.run_coroutine_threadsafe(self._broadcast(channel.strip("/").split("/"), events), self._loop)

    async def _broadcast(self, channel: list[str], events: list[str]) -> None:
        for connection, subscriptions in list(self._connections.items()):
            for sub_id, pattern in list(subscriptions.items()):
                if not matches(pattern, channel):
                    continue
                for event in events:
                    text = json.dumps({"type": "data", "id": sub_id, "event": event})
                    self.stats["deliveries"] += 1
                    self.stats["delivered_bytes"] += len(text.encode())
                    try:
                        await connection.send(text)
                    except Exception:  # noqa: BLE001 - a closed viewer misses it; the rest do not
                        pass


class PublishHandler(BaseHTTPRequestHandler):
    """``POST /event`` on the HTTP domain."""

    api: EventApi
    protocol_version = "HTTP/1.1"
    server_version = "AppSyncEventsLocal/1"

    def log_message(self, fmt, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if 0 < length <= MAX_PUBLISH_BYTES else b""
        if self.path.split("?")[0] != PUBLISH_PATH:
            return self._answer(404, {"errors": [error("NotFoundException", "not found")]})
        if length > MAX_PUBLISH_BYTES:
            self.close_connection = True
            return self._answer(413, {"errors": [error("BadRequestException", "the request is too large")]})
        if "x-api-key" in {key.lower() for key in self.headers} and "Authorization" not in self.headers:
            return self._answer(401, {"errors": [error("UnauthorizedException",
                                                       "publishing to this namespace requires IAM")]})
        why = self.api.verifier.verify("POST", self.path, dict(self.headers.items()), body)
        if why == "unknown access key":  # as AWS answers a key it does not know
            return self._answer(401, {"errors": [error("UnrecognizedClientException", UNRECOGNIZED_KEY)]})
        if why:
            return self._answer(401, {"errors": [error("UnauthorizedException", why)]})
        try:
            request = json.loads(body)
            channel, events = request["channel"], request["events"]
            assert isinstance(events, list) and 1 <= len(events) <= MAX_EVENTS
            assert all(isinstance(event, str) and len(event.encode()) <= MAX_EVENT_BYTES for event in events)
            for event in events:
                json.loads(event)
        except (ValueError, KeyError, TypeError, AssertionError):
            return self._answer(400, {"errors": [error(
                "BadRequestException", f'body must be {{"channel", "events"}}: 1-{MAX_EVENTS} strings of JSON')]})
        segments = channel_segments(channel, wildcard=False)
        if segments is None or segments[0] not in self.api.namespaces:
            return self._answer(400, {"errors": [error("BadRequestException", "not a channel of this API")]})
        self.api.stats["publish_requests"] += 1
        self.api.publish(channel, events)
        self._answer(200, {"failed": [], "successful": [{"identifier": str(uuid.uuid4()), "index": index}
                                                        for index in range(len(events))]})

    def do_GET(self):
        self._answer(405, {"errors": [error("BadRequestException", "publishing (POST) is the only action here")]})

    def _answer(self, status: int, body: dict) -> None:
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def main() -> None:  # python -m local.eventapi: the stand-in alone
    api = EventApi().start()
    sys.stdout.write(f"Event API: publish {api.http_url} (SigV4, access key 'local', secret 'local'), "
                     f"subscribe {api.realtime_url}, API key {api.api_key}\n")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        api.stop()


if __name__ == "__main__":
    main()
