"""The local stack's token primitives: JSON Web Tokens signed as Cognito signs them (RS256, a key
pair per token kind, each named by the ``kid`` in the token's header, the public halves published
as a JWKS), the checks an HTTP API's JWT authorizer makes on them, TOTP codes (RFC 6238), PKCE's
S256 (RFC 7636), and the claims the authorizer passes on. The user pool stand-in
(``local.userpool``) issues tokens with them; the local API server checks them with
``JwtAuthorizer``, which knows the pool only by its issuer URL, as API Gateway does."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import struct
import tempfile
import threading
import unicodedata
import urllib.request
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _compact(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


def _unsigned_int(number: int) -> str:
    return b64url(number.to_bytes((number.bit_length() + 7) // 8, "big"))


class SigningKey:
    """One RSA key pair of the pool (2048 bits, as Cognito's): ``sign`` makes an RS256 JWT whose
    header names the key (``{"kid", "alg"}``, Cognito's header), ``jwk`` is its public half as the
    pool's ``jwks.json`` lists it. The ``kid`` is the base64 SHA-256 of the public key."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        self._private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = self._private.public_key()
        der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        self.kid = base64.b64encode(hashlib.sha256(der).digest()).decode()
        numbers = public.public_numbers()
        self.jwk = {"alg": "RS256", "e": _unsigned_int(numbers.e), "kid": self.kid, "kty": "RSA",
                    "n": _unsigned_int(numbers.n), "use": "sig"}
        self._header = b64url(_compact({"kid": self.kid, "alg": "RS256"}))

    def sign(self, claims: dict) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        signed = f"{self._header}.{b64url(_compact(claims))}"
        return f"{signed}.{b64url(self._private.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256()))}"


def public_key(jwk: dict) -> RSAPublicKey | None:
    """The RSA public key of a JWKS entry, or None when it is not an RSA signing key."""
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

    if jwk.get("kty") != "RSA" or jwk.get("use", "sig") != "sig":
        return None
    try:
        return RSAPublicNumbers(int.from_bytes(unb64url(jwk["e"]), "big"),
                                int.from_bytes(unb64url(jwk["n"]), "big")).public_key()
    except (KeyError, TypeError, ValueError):
        return None


def fetch_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


class JwtAuthorizer:
    """An HTTP API's JWT authorizer, as API Gateway documents its checks
    (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-jwt-authorizer.html):

    1. the token (``Bearer`` optional) is decoded;
    2. its algorithm and signature are checked with the public key fetched from the issuer's
       ``jwks_uri`` (found in ``<issuer>/.well-known/openid-configuration``); RSA only; the key named
       by the header's ``kid``. Keys are kept (API Gateway: up to two hours) and fetched again when a
       token names a ``kid`` they lack;
    3. ``iss`` is the configured issuer; ``aud``, or ``client_id`` when there is no ``aud``, is one
       of the configured audiences; ``exp`` is after now, ``nbf`` and ``iat`` (when present) before;
    4. when the route has authorization scopes, ``scope`` (or ``scp``) holds at least one of them.

    ``verify`` answers (claims, None) or (None, why): ``why`` as API Gateway's ``WWW-Authenticate``
    ``error_description`` says it. ``now``: the stack's clock (a test's, which it moves)."""

    KEYS_SECONDS = 2 * 3600

    def __init__(self, issuer: str | Callable[[], str], audience: tuple[str, ...], now: Callable[[], float],
                 fetch: Callable[[str], dict] = fetch_json):
        self._issuer, self.audience, self.now, self.fetch = issuer, audience, now, fetch
        self._keys: dict[str, RSAPublicKey] = {}
        self._fetched_at: float | None = None
        self._lock = threading.Lock()

    @property
    def issuer(self) -> str:
        return self._issuer() if callable(self._issuer) else self._issuer

    def verify(self, token: str, scopes: tuple[str, ...] = ()) -> tuple[dict | None, str | None]:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding

        token = token.strip()
        parts = (token[len("bearer "):] if token[:len("bearer ")].lower() == "bearer " else token).strip().split(".")
        try:
            header, claims = json.loads(unb64url(parts[0])), json.loads(unb64url(parts[1]))
            signature = unb64url(parts[2])
        except (IndexError, ValueError, UnicodeDecodeError):
            return None, "the token is not a JWT"
        if len(parts) != 3 or not isinstance(header, dict) or not isinstance(claims, dict):
            return None, "the token is not a JWT"
        if header.get("alg") != "RS256":
            return None, "the token's algorithm is not supported"
        key = self._key(str(header.get("kid", "")))
        if key is None:
            return None, "the token's kid does not match a key of the issuer's jwks_uri"
        try:
            key.verify(signature, f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return None, "the token's signature is not valid"
        return self._claims_problem(claims, scopes)

    def _claims_problem(self, claims: dict, scopes: tuple[str, ...]) -> tuple[dict | None, str | None]:
        now = self.now()
        if claims.get("iss") != self.issuer:
            return None, "the token does not have a valid issuer"
        audience = claims["aud"] if "aud" in claims else claims.get("client_id")
        if not (set(audience) if isinstance(audience, list) else {audience}) & set(self.audience):
            return None, "the token does not have a valid audience"
        if not isinstance(claims.get("exp"), int | float) or claims["exp"] <= now:
            return None, "the token has expired"
        for name in ("nbf", "iat"):
            if name in claims and (not isinstance(claims[name], int | float) or claims[name] > now):
                return None, f"the token's {name} is in the future"
        if scopes:
            granted = claims.get("scope", claims.get("scp", ""))
            granted = set(granted.split() if isinstance(granted, str) else granted or ())
            if not granted & set(scopes):
                return None, "the token does not have the route's scopes"
        return claims, None

    def _key(self, kid: str) -> RSAPublicKey | None:
        with self._lock:
            now = self.now()
            stale = self._fetched_at is None or now - self._fetched_at >= self.KEYS_SECONDS
            if kid not in self._keys or stale:
                discovery = self.fetch(f"{self.issuer}/.well-known/openid-configuration")
                keys = self.fetch(discovery["jwks_uri"]).get("keys", [])
                self._keys = {jwk["kid"]: found for jwk in keys if (found := public_key(jwk)) is not None}
                self._fetched_at = now
            return self._keys.get(kid)


def new_credentials() -> tuple[str, str]:
    """An access key id and secret shaped as AWS's (20 and 40 characters): the local stack's own, made at
    each start, the only ones its stand-ins accept."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
    return "AKIA" + "".join(secrets.choice(alphabet) for _ in range(16)), secrets.token_urlsafe(30)[:40]


def credentials_file(port: int) -> str:
    """Where `make local` on ``port`` leaves its credentials for `make admin SITE=...` (readable by its user only)."""
    return os.path.join(tempfile.gettempdir(), f"alleycat-local-{port}-credentials.json")


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


def totp_step(secret: str, code: str, at: float) -> int | None:
    """The time step whose code ``code`` is: this step's or a neighbour's (a phone's clock may be a little
    off), or None. The step is what a verifier remembers to take each code once (RFC 6238, 5.2)."""
    now = int(at // TOTP_STEP)
    return next((step for step in (now - 1, now, now + 1)
                 if hmac.compare_digest(totp(secret, step * TOTP_STEP), code)), None)


def totp_matches(secret: str, code: str, at: float) -> bool:
    return totp_step(secret, code, at) is not None


def is_group_name(name: object) -> bool:
    """Whether Cognito takes ``name`` as a group's (CreateGroup's ``GroupName``: 1-128 characters matching
    ``[\\p{L}\\p{M}\\p{S}\\p{N}\\p{P}]+``, https://docs.aws.amazon.com/cognito-user-identity-pools/latest/APIReference/API_CreateGroup.html):
    no space, no control character. So no token lists one with a space, and an HTTP API's ``"[a b]"`` form of
    the list (``authorizer_claims``) can be split at spaces back into the names it was made of."""
    return (isinstance(name, str) and 1 <= len(name) <= 128
            and all(unicodedata.category(character)[0] in "LMSNP" for character in name))


def authorizer_claims(claims: dict) -> dict:
    """Claims shaped as an HTTP API's JWT authorizer passes a Cognito token's: every value a string,
    ``cognito:groups`` as ``"[admin racers]"`` and absent for a user in no group."""
    groups = claims.get("cognito:groups") or []
    return {"sub": claims["sub"], **({"cognito:groups": f"[{' '.join(groups)}]"} if groups else {})}
