"""The local stack's token primitives: JSON Web Tokens it signs and checks (HS256, a key of its own),
TOTP codes (RFC 6238) and PKCE's S256 (RFC 7636), and the claims an HTTP API's JWT authorizer
passes on. The user pool stand-in (``local.userpool``) issues tokens with them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import struct


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class TokenSigner:
    """JWTs signed with HS256: Cognito signs with RS256 and a published key, which only the authorizer
    reads; the browser decodes the payload and never checks a signature, so nothing else differs."""

    HEADER = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": "local"}, separators=(",", ":")).encode())

    def __init__(self, secret: bytes | None = None):
        self._secret = secret or os.urandom(32)

    def sign(self, claims: dict) -> str:
        payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
        return f"{self.HEADER}.{payload}.{self._signature(f'{self.HEADER}.{payload}')}"

    def claims(self, token: str, now: float) -> dict | None:
        """The token's claims, or None when it is forged, malformed or expired at ``now``."""
        parts = token.split(".")
        if len(parts) != 3 or not hmac.compare_digest(parts[2].encode(), self._signature(f"{parts[0]}.{parts[1]}").encode()):
            return None
        try:
            claims = json.loads(unb64url(parts[1]))
        except ValueError:
            return None
        if not isinstance(claims, dict) or not isinstance(claims.get("exp"), int) or claims["exp"] <= now:
            return None
        return claims

    def _signature(self, signed: str) -> str:
        return b64url(hmac.new(self._secret, signed.encode(), hashlib.sha256).digest())


def s256(verifier: str) -> str:
    """PKCE's code challenge for ``verifier`` (RFC 7636 4.2: BASE64URL(SHA256(ASCII(verifier))))."""
    return b64url(hashlib.sha256(verifier.encode("ascii")).digest())


TOTP_STEP = 30


def totp(secret: str, at: float, digits: int = 6) -> str:
    """RFC 6238 with SHA-1 and 30-second steps, as authenticator apps compute it from a base32 secret."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(at // TOTP_STEP)), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return str(number % 10**digits).zfill(digits)


def totp_matches(secret: str, code: str, at: float) -> bool:
    """The code of this step or a neighbour's: a phone's clock may be a little off."""
    return any(hmac.compare_digest(totp(secret, at + drift * TOTP_STEP), code) for drift in (-1, 0, 1))


def authorizer_claims(claims: dict) -> dict:
    """Claims shaped as an HTTP API's JWT authorizer passes a Cognito token's: every value a string,
    ``cognito:groups`` as ``"[admin racers]"`` and absent for a user in no group."""
    groups = claims.get("cognito:groups") or []
    return {"sub": claims["sub"], **({"cognito:groups": f"[{' '.join(groups)}]"} if groups else {})}
