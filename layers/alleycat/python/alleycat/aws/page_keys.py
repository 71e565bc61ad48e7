"""The page-token keys (``alleycat.storage.tokens`` signs with them): where they are kept, and their rotation.

Deployed, they are one Secrets Manager secret (``PAGE_TOKEN_SECRET`` names it), read on the first page token a
process signs or checks, never at a cold start, and read again once ``REFRESH_SECONDS`` have passed. Its value
is a ``KeyRing`` as JSON: tokens are signed with ``current`` and accepted under ``previous``, ``current`` and
``next``. A rotation (``rotate``: Secrets Manager's four steps) shifts the ring by one key, so the new
``current`` was already accepted everywhere: a process that read the ring before the rotation takes the tokens
of one that read it after (the new ``current`` is its ``next``), and the other way round (its ``current`` is
their ``previous``). A token stays valid for at least one rotation period after it was signed.

Not deployed (the tests, ``make local`` without the stand-in, ``sam local invoke``): ``PAGE_TOKEN_KEY``, one key.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from alleycat import settings

REFRESH_SECONDS = 3600.0  # far below the rotation period (stacks.settings.PAGE_TOKEN_ROTATION_DAYS)
KEY_BYTES = 32
CURRENT, PENDING = "AWSCURRENT", "AWSPENDING"


@dataclass(frozen=True)
class KeyRing:
    """The keys tokens are signed with (``current``) and accepted under (``accepted``)."""

    current: str
    previous: str | None = None
    next: str | None = None

    @property
    def accepted(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(key for key in (self.current, self.next, self.previous) if key))

    def rotated(self, new_key: str) -> KeyRing:
        """The ring one rotation later: ``next`` signs, ``current`` is still accepted, ``new_key`` will sign next."""
        return KeyRing(current=self.next or self.current, previous=self.current, next=new_key)

    def to_json(self) -> str:
        return json.dumps({"previous": self.previous, "current": self.current, "next": self.next})

    @classmethod
    def from_json(cls, text: str) -> KeyRing:
        value = json.loads(text)
        if not isinstance(value, dict) or not isinstance(value.get("current"), str) or not value["current"]:
            raise ValueError("the page-token secret holds no current key")
        return cls(value["current"], value.get("previous") or None, value.get("next") or None)


_read: tuple[str, KeyRing, float] | None = None  # (secret id, its ring, when it was read: time.monotonic)


def keys() -> KeyRing:
    """The process's page-token keys: the secret's, read at the first call and again every ``REFRESH_SECONDS``
    (a refresh that fails keeps the ring read before: it is valid for a rotation period); else PAGE_TOKEN_KEY."""
    global _read
    secret_id = settings.load().page_token_secret
    if secret_id is None:
        return KeyRing(settings.load().needed(settings.PAGE_TOKEN_KEY))
    now = time.monotonic()
    if _read is None or _read[0] != secret_id or now - _read[2] >= REFRESH_SECONDS:
        try:
            _read = (secret_id, _secret(secret_id), now)
        except Exception:  # any failure of a refresh (it re-raises when no ring was read): the ring read still holds
            if _read is None or _read[0] != secret_id:
                raise
            _read = (secret_id, _read[1], now)
    return _read[1]


def forget() -> None:
    """The next ``keys()`` reads the secret again (a test, after a rotation it made)."""
    global _read
    _read = None


def _secret(secret_id: str, **version) -> KeyRing:
    from alleycat.aws.clients import client

    return KeyRing.from_json(client("secretsmanager").get_secret_value(SecretId=secret_id, **version)["SecretString"])


def new_key() -> str:
    import secrets

    return secrets.token_urlsafe(KEY_BYTES)


def rotate(secret_id: str, version: str, step: str) -> None:
    """One step of Secrets Manager's rotation of the secret (its "Lambda rotation functions" page: createSecret,
    setSecret, testSecret, finishSecret), for the new version ``version`` that Secrets Manager made AWSPENDING.
    Each step may run again (Secrets Manager retries a failed one): each does what is left, nothing twice."""
    from alleycat.aws.clients import client

    manager = client("secretsmanager")
    stages = manager.describe_secret(SecretId=secret_id).get("VersionIdsToStages", {})
    if version not in stages:
        raise ValueError(f"version {version} of the page-token secret is not being rotated")
    if CURRENT in stages[version]:
        return  # finished already
    if PENDING not in stages[version]:
        raise ValueError(f"version {version} of the page-token secret is not {PENDING}")
    if step == "createSecret":
        current = _secret(secret_id, VersionStage=CURRENT)
        try:
            _secret(secret_id, VersionId=version, VersionStage=PENDING)
        except manager.exceptions.ResourceNotFoundException:
            manager.put_secret_value(SecretId=secret_id, ClientRequestToken=version,
                                     SecretString=current.rotated(new_key()).to_json(), VersionStages=[PENDING])
    elif step == "testSecret":  # no service holds the keys: a new ring is good when it reads as one
        _secret(secret_id, VersionId=version, VersionStage=PENDING)
    elif step == "finishSecret":
        (was,) = (name for name, labels in stages.items() if CURRENT in labels)
        manager.update_secret_version_stage(SecretId=secret_id, VersionStage=CURRENT, MoveToVersionId=version,
                                            RemoveFromVersionId=was)
    elif step != "setSecret":  # setSecret: no service to tell
        raise ValueError(f"{step!r} is not a step of a rotation")
