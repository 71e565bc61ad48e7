"""Live race boards pushed to viewers over AppSync Events: the message and its sender.

When a race's next message is due (``push_gate``: at most a few a second, however many stream
shards write the board) the board publisher sends, on the race's channel ``/races/<raceId>``,
what changed (``stream.pushing``): the top rows and every racer on a board shard written since the
last message, with their ranks, as many as fit in ``MAX_MESSAGE_BYTES``
(``more`` counts the changed racers left out, all ranked below every row sent). Viewers
merge a message into the board they read over HTTP (a racer's row only moves forwards:
scores and seconds never go down in an open race), and re-read the board after a
reconnect, so a message lost, late or out of order costs freshness, never correctness.

Publishing is AppSync Events' HTTP publish (``POST https://<http domain>/event``), signed
with SigV4 by botocore for the ``appsync`` service with the function's own credentials: the
channel namespace lets IAM, and only IAM, publish. ``EVENT_API_URL`` names the endpoint;
when it is unset publishing is off. A failed publish is logged and counted, never raised:
the board in DynamoDB is the truth, and viewers read it again when they reconnect.

Nothing here is imported on the cold path but the standard library: botocore's signer is
imported at the first publish.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
import time
from urllib.parse import urlsplit

from alleycat import settings
from alleycat.rules import board

URL_VARIABLE = "EVENT_API_URL"
NAMESPACE = "races"
SERVICE = "appsync"  # SigV4 service name of Event API publishes
# Under AppSync's 5 KB metering increment with its delivery envelope (~120 bytes: the message is a JSON
# string in a data frame; base64 rows need no escaping): one operation per delivery.
MAX_MESSAGE_BYTES = 4800
TOP_ROWS = 10  # always sent, changed or not: a viewer's first rows heal from any missed message
SLACK_BYTES = 16  # for ``more``'s digits
TIMEOUT_SECONDS = 2.0
# 3: rows [rank, racerId, score, lastSecond, equipment, review, name?], gzip-compressed, base64 (``z``);
# 2 the same without equipment and review; 1 sent them as JSON (``rows``)
MESSAGE_VERSION = 3


def channel(race_id: str) -> str:
    """The race's channel, ``/races/<raceId>`` (a ULID: letters and digits, as channel segments must be)."""
    return f"/{NAMESPACE}/{race_id}"


def endpoint(environ=None) -> str | None:
    return (settings.load() if environ is None else settings.read(environ)).event_api_url


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def board_message(race_id: str, boards, changed, status: str = "open", max_bytes: int = MAX_MESSAGE_BYTES,
                  now: float | None = None) -> dict:
    """The message for the race's board (``RaceBoard`` shards as stored) after ``changed`` racers' writes;
    ``status`` the race's when it was read with them (a live board pushed as written is "open").

    ``rows`` are the board's delta (``board.Board.delta``): the top ``TOP_ROWS`` always, then the
    changed racers ranked below them, while the message as sent (``encoded``) stays within ``max_bytes``.
    """
    ranked = board.Board.from_shards(boards)
    message = {"v": MESSAGE_VERSION, "raceId": race_id, "status": status, "racers": len(ranked),
               "at": round((time.time() if now is None else now) * 1000), "rows": [], "more": 0}
    budget = max_bytes - SLACK_BYTES - len(_dumps(encoded(message)).encode()) + len(_packed([]))
    rows, more = ranked.delta(changed, 2**31, TOP_ROWS)
    sent, packed = len(rows), _packed(rows)
    while len(packed) > budget:  # a few rounds: the rows compress alike
        sent = min(sent - 1, sent * budget // len(packed))
        packed = _packed(rows[:sent])
    changed = set(changed)
    message["rows"], message["more"] = rows[:sent], more + sum(1 for row in rows[sent:] if row[1] in changed)
    return message


def encoded(message: dict) -> dict:
    """The message as published: its rows as compact JSON, gzip-compressed, base64 (``z``). A board's racer
    ids and figures repeat their shapes: 100 rows of Cognito ids take ~70 % of their JSON, the bench's ~35 %."""
    if "rows" not in message:
        return message
    return {**{key: value for key, value in message.items() if key != "rows"}, "z": _packed(message["rows"])}


def decoded(event: dict) -> dict:
    """A published message with its rows read back (``rows``), as a viewer reads it."""
    if "z" not in event:
        return event
    rows = json.loads(gzip.decompress(base64.b64decode(event["z"])))
    return {**{key: value for key, value in event.items() if key != "z"}, "rows": rows}


def _packed(rows: list) -> str:
    return base64.b64encode(gzip.compress(_dumps(rows).encode(), mtime=0)).decode()


def finished_message(race_id: str, now: float | None = None) -> dict:
    """The race is finished: viewers read the final board over HTTP."""
    return {"v": MESSAGE_VERSION, "raceId": race_id, "status": "finished", "racers": None,
            "at": round((time.time() if now is None else now) * 1000), "rows": [], "more": 0}


class Publisher:
    """Signs and sends publishes to one Event API endpoint, keeping its connections between invocations."""

    def __init__(self, url: str, region: str | None = None, credentials=None, timeout: float = TIMEOUT_SECONDS):
        self.url = url
        parts = urlsplit(url)
        self._scheme, self._host, self._port, self._path = parts.scheme, parts.hostname, parts.port, parts.path or "/"
        self.region = region or settings.load().region
        self._credentials = credentials
        self.timeout = timeout
        self._idle: list = []  # kept-alive connections, shared by the threads publishing races in parallel
        self._lock = threading.Lock()

    def credentials(self):
        if self._credentials is None:
            from botocore.session import get_session

            self._credentials = get_session().get_credentials()
        return self._credentials

    def signed_headers(self, body: bytes) -> dict[str, str]:
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest

        request = AWSRequest("POST", self.url, data=body, headers={"content-type": "application/json"})
        SigV4Auth(self.credentials().get_frozen_credentials(), SERVICE, self.region).add_auth(request)
        return dict(request.headers.items())

    def publish(self, channel_path: str, events: list[dict]) -> dict:
        """Publishes ``events`` (at most 5, AppSync's batch; each ``encoded``) on ``channel_path``; AppSync's
        answer, or an exception when it refused or did not answer in time."""
        import http.client

        body = _dumps({"channel": channel_path, "events": [_dumps(encoded(event)) for event in events]}).encode()
        headers = self.signed_headers(body)
        for attempt in (1, 2):
            connection, reused = self._connection(fresh=attempt == 2)
            try:
                connection.request("POST", self._path, body=body, headers=headers)
                response = connection.getresponse()
                payload = response.read()
                break
            except (OSError, http.client.HTTPException):
                connection.close()
                if not reused:  # only a kept connection the server closed meanwhile is tried again
                    raise
        if response.will_close:
            connection.close()
        else:
            with self._lock:
                self._idle.append(connection)
        answer = json.loads(payload or b"{}")
        if response.status != 200 or answer.get("failed"):
            raise PublishError(f"{response.status}: {payload[:300]!r}")
        return answer

    def _connection(self, fresh: bool = False):
        """(An idle kept-alive connection, True): a warm invocation reuses its TLS session; else (a new one, False)."""
        import http.client

        with self._lock:
            if self._idle and not fresh:
                return self._idle.pop(), True
        kind = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
        return kind(self._host, self._port, timeout=self.timeout), False


class PublishError(Exception):
    pass


_publishers: dict[str, Publisher] = {}


def publisher(environ=None) -> Publisher | None:
    """The process's publisher for ``EVENT_API_URL``, or None when publishing is off."""
    url = endpoint(environ)
    if url is None:
        return None
    if url not in _publishers:
        _publishers[url] = Publisher(url)
    return _publishers[url]
