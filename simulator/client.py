"""A small JSON client for the Alleycat API that retries what is safe to retry."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

RETRIES = 5
FIRST_BACKOFF_SECONDS = 0.25
TIMEOUT_SECONDS = 30


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
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt == self.retries:
                    raise
            self.retried += 1
            self._sleep(self.backoff * 2 ** attempt)

    def _once(self, method: str, path: str, body, headers: dict):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        for key, value in headers.items():
            request.add_header(key, value)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raw = error.read()
            try:
                payload = json.loads(raw or b"null")
            except ValueError:
                payload = raw.decode("utf-8", "replace")
            raise ApiError(error.code, payload) from None

    def local_token(self, sub: str, groups: tuple[str, ...] = ()) -> str:
        """A token from the local stack's ``POST /local/token`` (absent in AWS)."""
        return self.call("POST", "/local/token", {"sub": sub, "groups": list(groups)})["token"]

    def local_admin_token(self) -> str:
        return self.local_token("simulator", ("admin",))

    def as_racer(self, racer_id: str) -> "ApiClient":
        """A client signed in as the racer (a bike's own token), from the local stack."""
        return ApiClient(self.base_url, self.local_token(racer_id), retries=self.retries,
                         backoff=self.backoff, sleep=self._sleep)
