"""The frontend's sign-in helpers that need no page (frontend/src/pkce.js, session.js, fields.js), run in Node:
PKCE (RFC 7636), a JWT's payload, when to refresh, where a sign-in comes back to, what forms accept."""

import base64
import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_PATH = subprocess.run([str(ROOT / "tools" / "node-path"), "--path"], capture_output=True, text=True).stdout.strip()
NODE = shutil.which("node", path=NODE_PATH or None)
MODULES = ("pkce", "session", "fields")

pytestmark = pytest.mark.skipif(NODE is None, reason="no Node (make installs one)")

# RFC 7636 Appendix B: the example verifier (from these 32 octets) and its S256 challenge.
RFC_OCTETS = [116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
              22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121]
RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

MINUTE = 60_000


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(expression) -> the JSON value of an (awaited) expression over the modules pkce, session, fields."""
    folder = tmp_path_factory.mktemp("auth_js")
    imports = []
    for name in MODULES:
        module = folder / f"{name}.mjs"
        module.write_text((ROOT / "frontend" / "src" / f"{name}.js").read_text())
        imports.append(f"import * as {name} from {json.dumps(module.as_uri())};")

    def run(expression):
        script = "\n".join(imports) + f"\nconsole.log(JSON.stringify(await ({expression}) ?? null));"
        done = subprocess.run([NODE, "--input-type=module", "-e", script], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    return run


def jwt(payload: dict) -> str:
    """A token as the user pool writes one (header.payload.signature, base64url without padding)."""
    part = lambda data: base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")  # noqa: E731
    return f"{part({'alg': 'RS256', 'kid': 'k'})}.{part(payload)}.c2lnbmF0dXJl"


# --- PKCE -----------------------------------------------------------------------------------------

def test_the_verifier_and_challenge_are_rfc_7636s_example(js):
    assert js(f"pkce.base64url(new Uint8Array({RFC_OCTETS}))") == RFC_VERIFIER
    assert js(f"pkce.challengeFor({json.dumps(RFC_VERIFIER)})") == RFC_CHALLENGE


def test_a_random_verifier_is_43_unreserved_characters_and_never_the_same(js):
    verifiers = js("Array.from({ length: 50 }, () => pkce.randomToken())")
    assert len(set(verifiers)) == 50
    assert all(len(v) == 43 and set(v) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
               for v in verifiers)


def test_the_authorize_url_asks_for_a_code_with_an_s256_challenge(js):
    auth = {"domain": "https://x.auth.eu-west-1.amazoncognito.com", "clientId": "abc",
            "scopes": ["openid", "email", "profile", "aws.cognito.signin.user.admin"]}
    url = js(f"pkce.authorizeUrl({json.dumps(auth)}, {{ state: 's1', challenge: 'c1', redirectUri: 'https://site.example/' }})")
    parts = urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://x.auth.eu-west-1.amazoncognito.com/oauth2/authorize"
    assert {k: v[0] for k, v in parse_qs(parts.query).items()} == {
        "response_type": "code", "client_id": "abc", "redirect_uri": "https://site.example/", "state": "s1",
        "scope": "openid email profile aws.cognito.signin.user.admin", "code_challenge": "c1",
        "code_challenge_method": "S256"}
    assert js(f"pkce.logoutUrl({json.dumps(auth)}, 'https://site.example/')") == (
        "https://x.auth.eu-west-1.amazoncognito.com/logout?client_id=abc&logout_uri=https%3A%2F%2Fsite.example%2F")


def test_a_callback_url_gives_its_code_and_state_or_its_error(js):
    assert js("pkce.callbackParams('?code=abc&state=xyz')") == {"code": "abc", "state": "xyz"}
    assert js("pkce.callbackParams('?error=access_denied&state=xyz')") == {
        "error": "access_denied", "description": "", "state": "xyz"}
    assert js("pkce.callbackParams('?code=abc')") is None  # no state: no callback of ours
    assert js("pkce.callbackParams('')") is None


def test_a_sign_in_comes_back_to_the_page_it_started_from_and_only_to_a_page_of_the_site(js):
    assert js("pkce.landingUrl('#/races/r-1')") == "/#/races/r-1"
    assert js("pkce.landingUrl('#/me')") == "/#/me"
    for foreign in ["", None, "#", "https://evil.example/", "//evil.example", "#/a b", "javascript:alert(1)"]:
        assert js(f"pkce.landingUrl({json.dumps(foreign)})") == "/#/", foreign


# --- tokens ---------------------------------------------------------------------------------------

def test_a_jwt_payload_is_read_from_base64url_in_utf_8(js):
    # "ÿ" and "😀" in the payload make base64 '+' / '/' characters and multi-byte UTF-8
    payload = {"sub": "5f0c-ÿÿÿ", "email": "zoë@example.com", "name": "Renée 😀 ~~~???>>>", "cognito:groups": ["admin"]}
    token = jwt(payload)
    assert "-" in token.split(".")[1] or "_" in token.split(".")[1]
    assert js(f"session.jwtPayload({json.dumps(token)})") == payload


def test_anything_but_a_jwt_has_no_payload(js):
    middle = lambda data: "a." + base64.urlsafe_b64encode(data).decode().rstrip("=") + ".c"  # noqa: E731
    for bad in ["", "abc", "a.b", "a.!!!.c", jwt({"x": 1}).replace(".", "", 1), middle(b"[1]"), middle(b"\xff\xfe{}")]:
        assert js(f"session.jwtPayload({json.dumps(bad)})") is None, bad
    assert js("session.jwtPayload(undefined)") is None


def test_the_identity_is_the_id_tokens_sub_email_and_groups(js):
    id_token = jwt({"sub": "u-1", "email": "a@example.com", "cognito:groups": ["racers", "admin"], "cognito:username": "u-1"})
    session = {"accessToken": "a", "idToken": id_token, "refreshToken": "r", "expiresAt": 0}
    assert js(f"session.identityOf({json.dumps(session)})") == {
        "racerId": "u-1", "email": "a@example.com", "username": "u-1", "groups": ["racers", "admin"], "admin": True}
    racer = {**session, "idToken": jwt({"sub": "u-2", "email": "b@example.com"})}
    assert js(f"session.identityOf({json.dumps(racer)})")["admin"] is False
    assert js(f"session.identityOf({json.dumps({**session, 'idToken': jwt({'email': 'x'})})})") is None


def test_a_refresh_keeps_the_refresh_token_and_counts_expiry_from_arrival(js):
    first = js("session.sessionFrom({ access_token: 'a1', id_token: 'i1', refresh_token: 'r1', expires_in: 3600 }, 1000)")
    assert first == {"accessToken": "a1", "idToken": "i1", "refreshToken": "r1", "expiresAt": 1000 + 3600_000}
    later = js(f"session.sessionFrom({{ access_token: 'a2', id_token: 'i2', expires_in: 3600 }}, 5000, {json.dumps(first)})")
    assert later == {"accessToken": "a2", "idToken": "i2", "refreshToken": "r1", "expiresAt": 5000 + 3600_000}
    assert js("session.sessionFrom({ access_token: 'a2', id_token: 'i2' }, 0)") is None  # no refresh token at all
    assert js(f"session.parseSession({json.dumps(json.dumps(first))})") == first
    assert js("session.parseSession('{\"accessToken\": 1}')") is None and js("session.parseSession('nope')") is None


def test_the_timer_refreshes_five_minutes_before_expiry_or_at_once_when_that_is_past(js):
    expires = 60 * MINUTE
    assert js(f"session.refreshDelay({{ expiresAt: {expires} }}, 0)") == 55 * MINUTE
    assert js(f"session.refreshDelay({{ expiresAt: {expires} }}, {54 * MINUTE})") == MINUTE
    assert js(f"session.refreshDelay({{ expiresAt: {expires} }}, {56 * MINUTE})") == 0
    assert js(f"session.refreshDelay({{ expiresAt: {expires} }}, {120 * MINUTE})") == 0  # slept past it


def test_a_write_refreshes_first_when_the_token_expires_within_a_minute(js):
    expires = 60 * MINUTE
    assert js(f"session.needsRefresh({{ expiresAt: {expires} }}, {58 * MINUTE})") is False
    assert js(f"session.needsRefresh({{ expiresAt: {expires} }}, {59 * MINUTE})") is True
    assert js(f"session.needsRefresh({{ expiresAt: {expires} }}, {61 * MINUTE})") is True


def test_a_refused_refresh_signs_out_and_one_without_an_answer_is_retried(js):
    assert js("session.refreshFailure(400, { error: 'invalid_grant' })") == "signed-out"
    assert js("session.refreshFailure(400, {})") == "signed-out"
    assert js("session.refreshFailure(500, {})") == "retry"
    assert js("session.refreshFailure(429, { error: 'slow_down' })") == "retry"


# --- forms ----------------------------------------------------------------------------------------

def test_a_display_name_is_1_to_80_characters_once_trimmed(js):
    assert js("fields.nameProblem('Zoë')") is None
    assert js("fields.nameProblem('🚲'.repeat(80))") is None  # characters, not UTF-16 units
    assert "empty" in js("fields.nameProblem('   ')")
    assert "81" in js("fields.nameProblem('x'.repeat(81))")


def test_a_class_id_is_a_slug_and_one_is_suggested_from_the_name(js):
    assert js("fields.classIdProblem('hill-climb_2')") is None
    assert "letters, digits" in js("fields.classIdProblem('hill climb')")
    assert "empty" in js("fields.classIdProblem('')")
    assert "65" in js("fields.classIdProblem('x'.repeat(65))")
    assert js("fields.slug('Hill Climb #2 — Zoë’s')") == "hill-climb-2-zoe-s"
    assert js("fields.classIdProblem(fields.slug('x'.repeat(70) + ' y'))") is None
    assert js("fields.descriptionProblem('x'.repeat(500))") is None
    assert "501" in js("fields.descriptionProblem('x'.repeat(501))")


def test_a_totp_secret_reads_in_groups_of_four_and_its_uri_names_the_account(js):
    assert js("fields.groupedSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXPQ')") == "JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP Q"
    assert js("fields.otpauthUri('zoë@example.com', 'JBSWY3DP')") == (
        "otpauth://totp/Alleycat:zo%C3%AB%40example.com?secret=JBSWY3DP&issuer=Alleycat")
    assert js("fields.totpCode(' 123 456 ')") == "123456"
    assert js("fields.totpCode('12345')") is None and js("fields.totpCode('12345a')") is None
