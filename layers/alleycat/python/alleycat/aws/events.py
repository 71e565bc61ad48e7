"""AppSync Events: publishing on a channel, over HTTP, signed with SigV4.

Publishing is AppSync Events' HTTP publish (``POST https://<http domain>/event``), signed
with SigV4 by botocore for the ``appsync`` service with the function's own credentials: the
channel namespace lets IAM, and only IAM, publish. ``EVENT_API_URL`` names the endpoint;
when it is unset publishing is off.

Nothing here is imported on the cold path but the standard library: botocore's signer is
imported at the first publish.
"""

from __future__ import annotations

import json
import threading
from urllib.parse import urlsplit

from alleycat import settings

SERVICE = "appsync"  # SigV4 service name of Event API publishes
TIMEOUT_SECONDS = 2.0


def endpoint(environ=None) -> str | None:
    return (settings.load() if environ is None else settings.read(environ)).event_api_url


def _dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Publisher:
    """Signs and sends publishes to one Event API endpoint, keeping its connections between invocations."""

    def __init__(self, url: str, region: str | None = None, credentials=None, timeout: float = TIMEOUT_SECONDS):
        self.url = url
        parts = urlsplit(url)
        self._scheme, self._host, self._port, self._path = parts.scheme, parts.hostname or "", parts.port, parts.path or "/"
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
        """Publishes ``events`` (at most 5, AppSync's batch; each as JSON) on ``channel_path``; AppSync's
        answer, or an exception when it refused or did not answer in time."""
        import http.client

        body = _dumps({"channel": channel_path, "events": [_dumps(event) for event in events]}).encode()
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
