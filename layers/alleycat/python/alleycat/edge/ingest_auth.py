"""Who may connect to the telemetry broker and publish what (contract v1.3, "Telemetry over MQTT"): AWS IoT
Core's custom authorizer, and the local stack's broker, which calls the same code with the event IoT sends.

A client connects with MQTT's user name ``ingest.username`` and the racer's Cognito **access token** as its
password. ``IngestAuthorizer.authorize`` takes IoT's authorizer event (``protocolData.mqtt``: ``username``,
``password`` base64, ``clientId``) and answers IoT's response: authenticated or not, and a policy that
allows ``iot:Connect`` for this client id and ``iot:Publish`` on the racer's own telemetry topics, nothing
else; the connection ends when the token expires (``disconnectAfterInSeconds``, at least IoT's 300).

The token is checked as API Gateway's JWT authorizer checks the API's bearer tokens (``local.auth``'s
``JwtAuthorizer`` on ``make local``), and as an access token: RS256 with a key of the user pool's JWKS
(fetched once per instance), ``iss`` the pool, ``token_use`` access, ``client_id`` the app client, ``exp``
after now (``nbf``, ``iat`` not after), one of the API's scopes, and a ``sub`` that is a racer id
(``[A-Za-z0-9_-]{1,64}``: nothing in it can widen the policy's resource).

RS256 is verified here in a few lines of RSASSA-PKCS1-v1_5 (RFC 8017 8.2.2: ``pow``, then the expected
encoding compared whole, never parsed), not with the ``cryptography`` package: anyone can make this function
run, so its cold start is kept short (``bench/authorizer.py`` measures both), and the layer needs no binary
wheel. Only the standard library is imported on every call.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from alleycat import settings

# IoT's bounds on disconnectAfterInSeconds and refreshAfterInSeconds ("Defining your Lambda function").
MIN_SECONDS, MAX_SECONDS = 300, 86_400
RACER_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the contract's id: no *, ?, $, {, /, + or #
CLIENT_ID = re.compile(r"[^*?${}\x00-\x1f\x7f]{1,128}")  # any MQTT client id but wildcards and policy variables
RACER, CLIENT = "{racerId}", "{clientId}"  # where the token's sub and the client id go in the policy's ARNs
MIN_KEY_BYTES = 256  # RSA keys of 2,048 bits and more (Cognito's)
KEYS_REFETCH_SECONDS = 300  # a kid the cached JWKS lacks is looked up again at most this often (rotation)
# DER of DigestInfo's AlgorithmIdentifier for SHA-256 (RFC 8017 9.2, note 1): T's fixed prefix.
_SHA256_DIGEST_INFO = bytes.fromhex("3031300d060960864801650304020105000420")


class Refused(ValueError):
    """A connection that is not authorized: why, for the log (never for the client)."""


@dataclass(frozen=True)
class Config:
    """What the authorizer checks against and grants: the user pool's issuer and app client, the API's scopes
    (one of them), ``ingest.username`` (before any ``?``), and the ARNs the policy allows, ``topic_arn`` with
    ``{racerId}`` (``topic_arn()``), ``client_arn`` with ``{clientId}``."""

    issuer: str
    client_id: str
    scopes: tuple[str, ...]
    username: str
    topic_arn: str
    client_arn: str

    @classmethod
    def from_environment(cls) -> Config:
        """As the stack sets it (``alleycat.settings.NEEDS`` fails a deployed function's cold start without it)."""
        environ = os.environ
        return cls(environ.get(settings.INGEST_ISSUER, ""), environ.get(settings.INGEST_CLIENT_ID, ""),
                   tuple(environ.get(settings.INGEST_SCOPES, "").split()), environ.get(settings.INGEST_USERNAME, ""),
                   environ.get(settings.INGEST_TOPIC_ARN, ""), environ.get(settings.INGEST_CLIENT_ARN, ""))


@dataclass(frozen=True)
class Verdict:
    """IoT's response to the authorizer's Lambda function, as a named type: ``response()`` is its JSON."""

    authenticated: bool
    principal: str = "unauthenticated"
    policies: tuple[dict, ...] = ()
    disconnect_after: int = MIN_SECONDS
    why: str | None = None  # for the log

    def response(self) -> dict:
        return {"isAuthenticated": self.authenticated, "principalId": self.principal,
                "disconnectAfterInSeconds": self.disconnect_after, "refreshAfterInSeconds": self.disconnect_after,
                "policyDocuments": [json.dumps(policy, separators=(",", ":")) for policy in self.policies]}


def topic_arn(arn_prefix: str, topic: str) -> str:
    """The policy's topic ARN for a publish topic (``...races/{raceId}/racers/{racerId}/telemetry``): any race
    (``*``), the racer left for the token's sub. ``arn_prefix``: ``arn:<partition>:iot:<region>:<account>:``."""
    return f"{arn_prefix}topic/{topic.replace('{raceId}', '*')}"


def client_arn(arn_prefix: str) -> str:
    return f"{arn_prefix}client/{CLIENT}"


def policy(config: Config, racer: str, client: str) -> dict:
    return {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "iot:Connect", "Resource": config.client_arn.replace(CLIENT, client)},
        {"Effect": "Allow", "Action": "iot:Publish", "Resource": config.topic_arn.replace(RACER, racer)}]}


def principal(racer: str) -> str:
    """IoT's principalId is 1-128 letters and digits: the racer id's UTF-8 in hex (64 characters make 128)."""
    return racer.encode().hex()


def _unb64url(text: str) -> bytes:
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def rs256_valid(modulus: int, exponent: int, message: bytes, signature: bytes) -> bool:
    """RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 8.2.2): the signature, raised to the exponent mod n, must be
    exactly EMSA-PKCS1-v1_5's encoding of the message's digest; compared whole, so no parser can be fooled."""
    size = (modulus.bit_length() + 7) // 8
    if size < MIN_KEY_BYTES or len(signature) != size:
        return False
    number = int.from_bytes(signature, "big")
    if number >= modulus:
        return False
    digest = _SHA256_DIGEST_INFO + hashlib.sha256(message).digest()
    expected = b"\x00\x01" + b"\xff" * (size - 3 - len(digest)) + b"\x00" + digest
    return hmac.compare_digest(pow(number, exponent, modulus).to_bytes(size, "big"), expected)


def fetch_json(url: str) -> dict:
    import urllib.request  # a new instance's first connection only

    with urllib.request.urlopen(url, timeout=3) as answer:
        return json.loads(answer.read())


@dataclass
class IngestAuthorizer:
    """``authorize(event)``: IoT's authorizer event in, its response's ``Verdict`` out. The JWKS
    (``<issuer>/.well-known/jwks.json``, where Cognito publishes it) is fetched at the first token and kept."""

    config: Config
    now: Callable[[], float] = time.time
    fetch: Callable[[str], dict] = fetch_json
    _keys: dict[str, tuple[int, int]] | None = field(default=None, init=False, repr=False)
    _fetched_at: float = field(default=float("-inf"), init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def authorize(self, event: dict) -> Verdict:
        try:
            mqtt = (event.get("protocolData") or {}).get("mqtt") or {}
            username, password, client = mqtt.get("username"), mqtt.get("password"), mqtt.get("clientId")
            if not isinstance(username, str) or username.split("?", 1)[0] != self.config.username:
                raise Refused("the user name is not ingest.username")
            if client is None or client == "":
                client = "*"  # IoT names the connection itself (MQTT 3.1.1's empty client id): it can drop no other
            elif not isinstance(client, str) or not CLIENT_ID.fullmatch(client):
                raise Refused("a client id with a wildcard or a policy variable")
            claims = self.verify(_password(password))
        except Refused as refused:
            return Verdict(False, why=str(refused))
        racer, left = claims["sub"], int(claims["exp"] - self.now())
        return Verdict(True, principal(racer), (policy(self.config, racer, client),),
                       min(max(left, MIN_SECONDS), MAX_SECONDS))

    def verify(self, token: str) -> dict:
        """The access token's claims, or ``Refused`` saying why."""
        parts = token.split(".")
        if len(parts) != 3:
            raise Refused("the token is not a JWT")
        try:
            header, claims, signature = json.loads(_unb64url(parts[0])), json.loads(_unb64url(parts[1])), _unb64url(parts[2])
        except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
            raise Refused("the token is not a JWT") from None
        if not isinstance(header, dict) or not isinstance(claims, dict):
            raise Refused("the token is not a JWT")
        if header.get("alg") != "RS256":
            raise Refused("the token's algorithm is not RS256")
        self._check(claims)  # before the signature: a token refused anyway costs no key fetch and no pow
        key = self._key(header.get("kid"))
        if key is None:
            raise Refused("the token's kid is not a key of the user pool")
        if not rs256_valid(*key, f"{parts[0]}.{parts[1]}".encode(), signature):
            raise Refused("the token's signature is not valid")
        return claims

    def _check(self, claims: dict) -> None:
        now = self.now()
        if claims.get("iss") != self.config.issuer:
            raise Refused("the token's issuer is not the user pool")
        if claims.get("token_use") != "access":
            raise Refused("the token is not an access token")
        if claims.get("client_id") != self.config.client_id:
            raise Refused("the token is not the app client's")
        expires = claims.get("exp")
        if not isinstance(expires, int | float) or expires <= now:
            raise Refused("the token has expired")
        for name in ("nbf", "iat"):
            if name in claims and (not isinstance(claims[name], int | float) or claims[name] > now):
                raise Refused(f"the token's {name} is in the future")
        granted = claims.get("scope")
        if self.config.scopes and not (isinstance(granted, str) and set(granted.split()) & set(self.config.scopes)):
            raise Refused("the token does not have the API's scopes")
        if not isinstance(claims.get("sub"), str) or not RACER_ID.fullmatch(claims["sub"]):
            raise Refused("the token's sub is not a racer id")

    def _key(self, kid: object) -> tuple[int, int] | None:
        """(n, e) of the pool's key ``kid``; the JWKS is fetched once, and again for an unknown kid at most
        every ``KEYS_REFETCH_SECONDS`` (so made-up kids cannot make every call fetch it)."""
        if not isinstance(kid, str):
            return None
        with self._lock:
            if self._keys is None or (kid not in self._keys and self.now() - self._fetched_at >= KEYS_REFETCH_SECONDS):
                self._keys = _rsa_keys(self.fetch(f"{self.config.issuer}/.well-known/jwks.json"))
                self._fetched_at = self.now()
            return self._keys.get(kid)


def _rsa_keys(jwks: dict) -> dict[str, tuple[int, int]]:
    keys = {}
    for jwk in jwks.get("keys", []):
        if jwk.get("kty") == "RSA" and jwk.get("use", "sig") == "sig" and jwk.get("alg", "RS256") == "RS256":
            try:
                keys[jwk["kid"]] = (int.from_bytes(_unb64url(jwk["n"]), "big"), int.from_bytes(_unb64url(jwk["e"]), "big"))
            except (KeyError, TypeError, ValueError):
                continue
    return keys


def _password(password: object) -> str:
    """IoT hands MQTT's password base64-encoded."""
    if not isinstance(password, str) or not password:
        raise Refused("no password")
    try:
        return base64.b64decode(password, validate=True).decode("ascii")
    except (ValueError, binascii.Error):
        raise Refused("the password is not base64 of a token") from None
