"""The local stack's token primitives, checked against the RFCs' own examples."""

import json

from local.auth import TokenSigner, authorizer_claims, s256, totp, totp_matches, unb64url

RFC6238_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"  # base32 of the RFC's ASCII "12345678901234567890"


def test_pkce_s256_is_rfc_7636s_example():
    assert s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def test_totp_is_rfc_6238s_sha1_table():
    for at, code in ((59, "94287082"), (1111111109, "07081804"), (1111111111, "14050471"),
                     (1234567890, "89005924"), (2000000000, "69279037")):
        assert totp(RFC6238_SECRET, at, digits=8) == code


def test_a_totp_code_is_good_for_its_step_and_its_neighbours_only():
    code = totp(RFC6238_SECRET, 1_000_000)
    assert totp_matches(RFC6238_SECRET, code, 1_000_000 + 30) and totp_matches(RFC6238_SECRET, code, 1_000_000 - 30)
    assert not totp_matches(RFC6238_SECRET, code, 1_000_000 + 90)


def test_a_signed_token_is_a_jwt_whose_payload_anyone_can_read():
    token = TokenSigner(b"k" * 32).sign({"sub": "bob", "exp": 2000})
    header, payload, _ = token.split(".")
    assert json.loads(unb64url(header))["alg"] == "HS256"
    assert json.loads(unb64url(payload)) == {"sub": "bob", "exp": 2000}


def test_tampered_foreign_or_expired_tokens_are_refused():
    signer, other = TokenSigner(b"k" * 32), TokenSigner(b"j" * 32)
    token = signer.sign({"sub": "bob", "exp": 2000})
    assert signer.claims(token, 1999) == {"sub": "bob", "exp": 2000}
    assert signer.claims(token, 2000) is None
    assert signer.claims(token[:-2] + "xx", 1000) is None
    assert signer.claims(other.sign({"sub": "bob", "exp": 2000}), 1000) is None
    assert signer.claims("not-a-token", 1000) is None


def test_claims_reach_the_function_as_an_http_apis_jwt_authorizer_passes_them():
    assert authorizer_claims({"sub": "bob", "cognito:groups": ["admin", "racers"]}) == {
        "sub": "bob", "cognito:groups": "[admin racers]"}
    assert authorizer_claims({"sub": "amy"}) == {"sub": "amy"}
