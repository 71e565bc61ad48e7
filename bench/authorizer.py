"""`make bench-authorizer`: what the MQTT authorizer (``alleycat.edge.ingest_auth``) costs a connection, and why
RS256 is verified in pure Python there rather than with the ``cryptography`` package.

1. Import, in fresh interpreters (median of ``RUNS``, each less a bare interpreter's start): the handler's module
   (only the standard library), and ``cryptography``'s RSA verification (what a JWT library would load; and a
   binary wheel the dependencies layer would have to carry for arm64).
2. One RS256 verification of a token the local user pool signs: ``rs256_valid`` (``pow``) against ``cryptography``.
3. A whole ``authorize`` of a good token, warm (the JWKS held): what each connection costs once the instance runs.

Figures are CPU time (``time.process_time``: other processes sharing the machine do not inflate them), at one core; Lambda gives a function ``memory / 1,769 MB`` of a vCPU, so the
CPU-bound figures are scaled by that share for 128 and 256 MB: an extrapolation, to be checked in AWS.
"""

from __future__ import annotations

import base64
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from alleycat.edge import ingest_auth
from local.auth import SigningKey, unb64url

ROOT = Path(__file__).resolve().parents[1]
RUNS, CALLS = 15, 2000
FULL_VCPU_MB = 1769
ISSUER, CLIENT, PREFIX = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_pool", "client", "arn:aws:iot:eu-west-1:1:"
HANDLER = "import alleycat.edge.ingest_auth"
CRYPTOGRAPHY = ("from cryptography.hazmat.primitives import hashes; from cryptography.hazmat.primitives.asymmetric "
                "import padding, rsa; from cryptography.exceptions import InvalidSignature")


def import_ms(code: str) -> float:
    """CPU milliseconds ``code`` takes in a fresh interpreter, timed inside it (the interpreter's own start left out)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "layers" / "alleycat" / "python")}
    timed = f"import time; started = time.process_time(); {code}; print((time.process_time() - started) * 1000)"
    return statistics.median(float(subprocess.run([sys.executable, "-s", "-c", timed], check=True, env=environment,
                                                  capture_output=True, text=True).stdout) for _ in range(RUNS))


def per_call_us(call, calls: int = CALLS) -> float:
    """CPU time a call (this process's, so other processes sharing the machine do not inflate it)."""
    started = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - started) / calls * 1e6


def lambda_ms(us: float, memory_mb: int) -> float:
    return us / 1000 * FULL_VCPU_MB / memory_mb


def main() -> None:
    print(f"1. import in a fresh interpreter (median of {RUNS}; bytecode cached as in Lambda's layers)")
    alone, both = import_ms(HANDLER), import_ms(f"{HANDLER}; {CRYPTOGRAPHY}")
    for name, ms in (("alleycat.edge.ingest_auth (the handler's)", alone),
                     ("cryptography's RSA verification, on top", both - alone)):
        print(f"   {name:45} {ms:6.1f} ms   Lambda ≈ {ms * FULL_VCPU_MB / 256:.0f} ms at 256 MB (if CPU-bound)")

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

    key = SigningKey()
    now = time.time()
    claims = {"sub": "5b1c2d3e-0000-4000-8000-00000000abcd", "iss": ISSUER, "client_id": CLIENT, "token_use": "access",
              "scope": "aws.cognito.signin.user.admin", "iat": int(now), "exp": int(now) + 3600}
    token = key.sign(claims)
    signed, signature = token.rsplit(".", 1)
    modulus, exponent = (int.from_bytes(unb64url(key.jwk[name]), "big") for name in ("n", "e"))
    public = RSAPublicNumbers(exponent, modulus).public_key()
    raw = unb64url(signature)
    pure = per_call_us(lambda: ingest_auth.rs256_valid(modulus, exponent, signed.encode(), raw))
    library = per_call_us(lambda: public.verify(raw, signed.encode(), padding.PKCS1v15(), hashes.SHA256()))
    print("2. one RS256 verification (2,048-bit key, a token the local user pool's key signed)")
    for name, us in (("rs256_valid (pow, pure Python)", pure), ("cryptography (OpenSSL)", library)):
        print(f"   {name:45} {us:7.1f} µs   Lambda ≈ {lambda_ms(us, 128):.2f} ms at 128 MB, {lambda_ms(us, 256):.2f} ms at 256 MB")

    config = ingest_auth.Config(ISSUER, CLIENT, ("aws.cognito.signin.user.admin",), "alleycat",
                                ingest_auth.topic_arn(PREFIX, "$aws/rules/r/races/{raceId}/racers/{racerId}/telemetry"),
                                ingest_auth.client_arn(PREFIX))
    authorizer = ingest_auth.IngestAuthorizer(config, fetch=lambda url: {"keys": [key.jwk]})
    event = {"protocolData": {"mqtt": {"username": "alleycat?x-amz-customauthorizer-name=a", "clientId": "mqttjs_1",
                                       "password": base64.b64encode(token.encode()).decode()}}}
    assert authorizer.authorize(event).authenticated
    whole = per_call_us(lambda: authorizer.authorize(event).response())
    print("3. a whole authorize() of a good token, warm (JWKS held), with its response's JSON")
    print(f"   {'authorize':45} {whole:7.1f} µs   Lambda ≈ {lambda_ms(whole, 128):.2f} ms at 128 MB, "
          f"{lambda_ms(whole, 256):.2f} ms at 256 MB")


if __name__ == "__main__":
    main()
