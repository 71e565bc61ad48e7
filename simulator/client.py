"""A small JSON client for the Alleycat API that retries what is safe to retry."""

from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.parse import urlsplit

RETRIES = 5
FIRST_BACKOFF_SECONDS = 0.25
TIMEOUT_SECONDS = 30


_CONNECTIONS = threading.local()  # base URL -> this thread's kept-alive connection


class ApiError(Exception):
    def __init__(self, status: int, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status, self.body = status, body


class ApiClient:
    """Every call is retried with exponential backoff on 5xx and connection errors.

    Only idempotent requests go through it: PUTs, joins, telemetry (each second is
    accepted once), finish, and race creation with an ``Idempotency-Key``.
    """

    def __init__(self, base_url: str, token: str | None = None, *, retries: int = RETRIES,
                 backoff: float = FIRST_BACKOFF_SECONDS, sleep=time.sleep):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.retries, self.backoff, self._sleep = retries, backoff, sleep
        self.retried = 0

    def call(self, method: str, path: str, body=None, headers: dict | None = None):
        for attempt in range(self.retries + 1):
            try:
                return self._once(method, path, body, headers or {})
            except ApiError as error:
                if error.status < 500 or attempt == self.retries:
                    raise
            except (OSError, http.client.HTTPException):
                self._forget_connection()
                if attempt == self.retries:
                    raise
            self.retried += 1
            self._sleep(self.backoff * 2 ** attempt)

    def _once(self, method: str, path: str, body, headers: dict):
        data = json.dumps(body).encode() if body is not None else None
        sent = {"Content-Type": "application/json", **headers}
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        connection = self._connection()
        connection.request(method, urlsplit(self.base_url).path + path, body=data, headers=sent)
        response = connection.getresponse()
        raw = response.read()
        if response.will_close:
            self._forget_connection()
        if response.status < 400:
            return json.loads(raw or b"null")
        try:
            payload = json.loads(raw or b"null")
        except ValueError:
            payload = raw.decode("utf-8", "replace")
        raise ApiError(response.status, payload)

    def _connection(self) -> http.client.HTTPConnection:
        """This thread's kept-alive connection to the base URL (shared by every client in the thread)."""
        pool = _CONNECTIONS.__dict__
        if self.base_url not in pool:
            url = urlsplit(self.base_url)
            kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
            pool[self.base_url] = kind(url.hostname or "", url.port, timeout=TIMEOUT_SECONDS)
        return pool[self.base_url]

    def _forget_connection(self) -> None:
        connection = _CONNECTIONS.__dict__.pop(self.base_url, None)
        if connection is not None:
            connection.close()

    def local_token(self, sub: str, groups: tuple[str, ...] = ()) -> str:
        """A token from the local stack's ``POST /local/token`` (absent in AWS)."""
        return self.call("POST", "/local/token", {"sub": sub, "groups": list(groups)})["token"]

    def local_admin_token(self) -> str:
        return self.local_token("simulator", ("admin",))

    def as_racer(self, racer_id: str) -> ApiClient:
        """A client signed in as the racer (a bike's own token), from the local stack."""
        return ApiClient(self.base_url, self.local_token(racer_id), retries=self.retries,
                         backoff=self.backoff, sleep=self._sleep)
