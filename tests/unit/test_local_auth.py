from local.auth import TokenIssuer, authorizer_claims


def test_issued_token_verifies_with_its_claims():
    issuer = TokenIssuer(b"k" * 32)
    claims = issuer.verify(issuer.issue("bob", ["admin"]))
    assert claims["sub"] == "bob" and claims["groups"] == ["admin"]


def test_claims_reach_the_function_as_an_http_apis_jwt_authorizer_passes_them():
    # Given verified tokens with two groups and with none
    issuer = TokenIssuer(b"k" * 32)
    both = issuer.verify(issuer.issue("bob", ["admin", "racers"]))
    none = issuer.verify(issuer.issue("amy", []))
    # Then the groups arrive as one bracketed, space-separated string, and not at all without any
    assert authorizer_claims(both) == {"sub": "bob", "cognito:groups": "[admin racers]"}
    assert authorizer_claims(none) == {"sub": "amy"}


def test_tampered_or_foreign_token_is_refused():
    issuer, other = TokenIssuer(b"k" * 32), TokenIssuer(b"j" * 32)
    token = issuer.issue("bob", [])
    assert issuer.verify(token[:-2] + "xx") is None
    assert issuer.verify(other.issue("bob", ["admin"])) is None
    assert issuer.verify("not-a-token") is None


def test_expired_token_is_refused():
    now = [1000.0]
    issuer = TokenIssuer(b"k" * 32, clock=lambda: now[0])
    token = issuer.issue("bob", [])
    now[0] += 13 * 3600
    assert issuer.verify(token) is None
