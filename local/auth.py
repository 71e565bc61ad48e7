"""The local stand-in for the Cognito authorizer: signed, expiring bearer tokens."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import time

TOKEN_SECONDS = 12 * 3600


class TokenIssuer:
    def __init__(self, secret: bytes | None = None, clock=time.time):
        self._secret = secret or os.urandom(32)
        self._clock = clock

    def issue(self, sub: str, groups: list[str]) -> str:
        claims = {"sub": sub, "groups": list(groups), "exp": int(self._clock()) + TOKEN_SECONDS}
        payload = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).decode().rstrip("=")
        return f"{payload}.{self._sign(payload)}"

    def verify(self, token: str) -> dict | None:
        """The token's claims, or None when it is forged, malformed or expired."""
        payload, _, signature = token.partition(".")
        if not payload or not hmac.compare_digest(signature.encode(), self._sign(payload).encode()):
            return None
        try:
            claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        except ValueError:
            return None
        if not isinstance(claims, dict) or claims.get("exp", 0) < self._clock():
            return None
        return claims

    def _sign(self, payload: str) -> str:
        digest = hmac.new(self._secret, payload.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def authorizer_claims(claims: dict) -> dict:
    """Claims shaped as an HTTP API's JWT authorizer passes a Cognito token's: every value a string,
    ``cognito:groups`` as ``"[admin racers]"`` and absent for a user in no group."""
    groups = claims.get("groups", [])
    return {"sub": claims["sub"], **({"cognito:groups": f"[{' '.join(groups)}]"} if groups else {})}
