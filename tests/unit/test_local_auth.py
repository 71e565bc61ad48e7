"""The local stack's token primitives, checked against the RFCs' own examples, PyJWT, and the checks API
Gateway's JWT authorizer documents."""

import json

import jwt
import pytest

from local.auth import JwtAuthorizer, SigningKey, authorizer_claims, b64url, is_group_name, s256, totp, totp_matches

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


ISSUER = "http://127.0.0.1:9/us-east-1_pool"
CLIENT = "client-1"


class Documents:
    """What the issuer publishes (discovery, JWKS), counting the authorizer's fetches."""

    def __init__(self, *keys: SigningKey):
        self.keys, self.fetched = list(keys), []

    def __call__(self, url):
        self.fetched.append(url)
        if url == f"{ISSUER}/.well-known/openid-configuration":
            return {"issuer": ISSUER, "jwks_uri": "http://127.0.0.1:9/keys"}
        assert url == "http://127.0.0.1:9/keys", url
        return {"keys": [key.jwk for key in self.keys]}


@pytest.fixture(scope="module")
def key():
    return SigningKey()


def access(**changes):
    claims = {"sub": "bob", "iss": ISSUER, "client_id": CLIENT, "token_use": "access", "scope": "openid admin-ish",
              "iat": 1000, "exp": 2000}
    return {name: value for name, value in {**claims, **changes}.items() if value is not None}


def test_a_signed_token_is_rs256_with_its_keys_kid_and_verifies_with_the_published_jwk(key):
    token = key.sign({"sub": "bob", "exp": 2000})
    assert jwt.get_unverified_header(token) == {"kid": key.kid, "alg": "RS256"}
    # PyJWT (not this project's code) checks the signature with the public key as the JWKS lists it
    public = jwt.PyJWK(key.jwk).key
    assert jwt.decode(token, public, algorithms=["RS256"], options={"verify_exp": False}) == {"sub": "bob", "exp": 2000}
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB"), public, algorithms=["RS256"],
                   options={"verify_exp": False})


def test_the_authorizer_accepts_a_valid_access_token_and_finds_the_key_by_the_issuers_discovery(key):
    documents = Documents(key)
    authorizer = JwtAuthorizer(ISSUER, (CLIENT,), lambda: 1500, fetch=documents)
    assert authorizer.verify(key.sign(access()), ("openid",)) == (access(), None)
    # The identity source may hold the token alone or after "Bearer"
    assert authorizer.verify(f"bearer {key.sign(access())}", ("openid",))[0] == access()
    assert documents.fetched == [f"{ISSUER}/.well-known/openid-configuration", "http://127.0.0.1:9/keys"]
    authorizer.verify(key.sign(access()), ("openid",))
    assert len(documents.fetched) == 2, "the keys are kept"


@pytest.mark.parametrize(("claims", "why"), [
    (access(iss="http://127.0.0.1:9/us-east-1_other"), "issuer"),
    (access(client_id="someone-else"), "audience"),
    (access(aud="someone-else"), "audience"),  # aud, when present, is the one checked
    (access(exp=1500), "expired"),  # exp must be after now
    (access(exp=None), "expired"),
    (access(nbf=1501), "nbf"),
    (access(iat=1501), "iat"),
    (access(scope="email"), "scopes"),
    # an ID token: its audience is the client, but it has no scope
    ({"sub": "bob", "iss": ISSUER, "aud": CLIENT, "token_use": "id", "iat": 1000, "exp": 2000}, "scopes"),
])
def test_the_authorizer_refuses_what_api_gateway_refuses(key, claims, why):
    authorizer = JwtAuthorizer(ISSUER, (CLIENT,), lambda: 1500, fetch=Documents(key))
    claims_seen, reason = authorizer.verify(key.sign(claims), ("openid",))
    assert claims_seen is None and why in reason


def test_an_id_tokens_audience_passes_a_route_without_scopes(key):
    authorizer = JwtAuthorizer(ISSUER, (CLIENT,), lambda: 1500, fetch=Documents(key))
    identity = {"sub": "bob", "iss": ISSUER, "aud": CLIENT, "token_use": "id", "iat": 1000, "exp": 2000}
    assert authorizer.verify(key.sign(identity))[0] == identity


def test_a_forged_tampered_or_unknown_keys_token_is_refused(key):
    other = SigningKey()
    documents = Documents(key)
    authorizer = JwtAuthorizer(ISSUER, (CLIENT,), lambda: 1500, fetch=documents)
    token = key.sign(access())
    header, payload, signature = token.split(".")
    forged_payload = b64url(json.dumps(access(sub="amy")).encode())
    assert "signature" in authorizer.verify(f"{header}.{forged_payload}.{signature}")[1]
    assert "kid" in authorizer.verify(other.sign(access()))[1]
    none = b64url(json.dumps({"alg": "none", "kid": key.kid}).encode())
    assert "algorithm" in authorizer.verify(f"{none}.{payload}.")[1]
    hs256 = b64url(json.dumps({"alg": "HS256", "kid": key.kid}).encode())
    assert "algorithm" in authorizer.verify(f"{hs256}.{payload}.{signature}")[1]
    assert authorizer.verify("not-a-token")[0] is None
    # A key the issuer publishes later (rotation) is fetched when a token names it
    documents.keys.append(other)
    assert authorizer.verify(other.sign(access()))[0] == access()


def test_claims_reach_the_function_as_an_http_apis_jwt_authorizer_passes_them():
    assert authorizer_claims({"sub": "bob", "cognito:groups": ["admin", "racers"]}) == {
        "sub": "bob", "cognito:groups": "[admin racers]"}
    assert authorizer_claims({"sub": "amy"}) == {"sub": "amy"}


def test_the_local_token_route_takes_only_names_cognito_takes_for_a_group():
    # CreateGroup's GroupName: 1-128 letters, marks, symbols, numbers or punctuation, so "[a b]" splits back exactly
    for name in ("admin", "racers,admin", "[admin]", "Ärzte-Ω", "a" * 128):
        assert is_group_name(name), name
    for name in ("x admin", "admin\n", "tab\there", "", "a" * 129, 7, None, "\u00a0admin"):
        assert not is_group_name(name), name
    # and each list of such names comes back whole from the form the JWT authorizer passes it in
    from alleycat.edge.http import _groups

    for groups in (["racers,admin"], ["[admin]"], ["[x", "admin]"], ["admin", "racers"]):
        assert _groups(authorizer_claims({"sub": "s", "cognito:groups": groups})["cognito:groups"]) == set(groups)
