"""The local user pool against clients that are not this project's code, and against an attacker's
pages: Authlib (an OAuth 2.0 / OpenID Connect client) signs in with PKCE and a nonce, finding every
endpoint in the pool's discovery document; joserfc (Authlib's JOSE library) and PyJWT verify the ID and access tokens with the
JWKS the issuer publishes; Chromium keeps managed login's session cookie from a page on another local
port, and a page that posts managed login's form for the victim signs no one in.

https://docs.aws.amazon.com/cognito/latest/developerguide/federation-endpoints.html (discovery, JWKS)
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest
import requests
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
from joserfc import jwt as jose_jwt
from joserfc.jwk import KeySet
from playwright import sync_api

from .test_browser import CHROMIUM, CHROMIUM_ARGS
from .test_user_pool import PASSWORD, Browser, PublicClient, sign_up

WAIT_MS = 20_000


@pytest.fixture(scope="module")
def config(client):
    return client.call("GET", "/config.json")[1]["auth"]


@pytest.fixture(scope="module")
def discovery(stack, config):
    """What an OIDC client finds at the issuer (the pool's id under the user pool API's endpoint, as in AWS)."""
    issuer = f"{config['idpUrl']}{config['userPoolId']}"
    answer = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=10)
    assert answer.status_code == 200
    return answer.json()


def test_the_discovery_document_is_cognitos(discovery, config):
    assert discovery["issuer"] == f"{config['idpUrl']}{config['userPoolId']}"
    assert discovery["jwks_uri"] == f"{discovery['issuer']}/.well-known/jwks.json"
    for name, path in (("authorization_endpoint", "/oauth2/authorize"), ("token_endpoint", "/oauth2/token"),
                       ("userinfo_endpoint", "/oauth2/userInfo"), ("revocation_endpoint", "/oauth2/revoke"),
                       ("end_session_endpoint", "/logout")):
        assert discovery[name] == f"{config['domain']}{path}", name
    assert discovery["id_token_signing_alg_values_supported"] == ["RS256"]
    assert discovery["subject_types_supported"] == ["public"] and "openid" in discovery["scopes_supported"]
    keys = requests.get(discovery["jwks_uri"], timeout=10).json()["keys"]
    assert len(keys) == 2 and all(key["kty"] == "RSA" and key["alg"] == "RS256" and key["use"] == "sig" for key in keys)


def test_authlib_signs_in_with_pkce_and_both_tokens_verify_with_the_discovered_jwks(stack, client, config, discovery,
                                                                                   monkeypatch):
    monkeypatch.setenv("AUTHLIB_INSECURE_TRANSPORT", "1")  # the local stack is plain HTTP on loopback
    email = f"oidc-{uuid.uuid4().hex[:6]}@example.com"
    stack.users.pool.sign_up(email, PASSWORD)
    stack.users.pool.confirm(email, stack.users.outbox[-1][1])
    redirect_uri = f"{stack.url}/"
    oauth = OAuth2Session(config["clientId"], scope="openid email aws.cognito.signin.user.admin", redirect_uri=redirect_uri,
                          code_challenge_method="S256", token_endpoint_auth_method="none")
    verifier, nonce = generate_token(64), generate_token(20)
    url, state = oauth.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    assert "code_challenge=" in url and "code_challenge_method=S256" in url
    # The browser part: managed login's page, its form filled in as a person would
    browser = Browser()
    status, headers, _ = browser.go(url)
    assert status == 302
    _, _, page = browser.go(config["domain"] + headers["Location"])
    action, hidden = Browser.form(page)
    status, headers, _ = browser.go(config["domain"] + action, {**hidden, "email": email, "password": PASSWORD})
    assert status == 302 and headers["Location"].startswith(redirect_uri)
    token = oauth.fetch_token(discovery["token_endpoint"], authorization_response=headers["Location"],
                              code_verifier=verifier)
    # Authlib's JOSE library (joserfc) verifies the ID token: signature by the JWKS, issuer, audience, expiry, nonce
    key_set = KeySet.import_key_set(requests.get(discovery["jwks_uri"], timeout=10).json())
    identity = jose_jwt.decode(token["id_token"], key_set, algorithms=["RS256"]).claims
    jose_jwt.JWTClaimsRegistry(now=int(time.time()), iss={"essential": True, "value": discovery["issuer"]},
                               aud={"essential": True, "value": config["clientId"]},
                               nonce={"essential": True, "value": nonce}).validate(identity)
    assert identity["email"] == email
    # PyJWT's PyJWKClient finds each token's key by its kid in the same JWKS; the access token names the client
    keys = jwt.PyJWKClient(discovery["jwks_uri"])
    access = jwt.decode(token["access_token"], keys.get_signing_key_from_jwt(token["access_token"]).key,
                        algorithms=["RS256"], issuer=discovery["issuer"], options={"verify_aud": False})
    assert access["client_id"] == config["clientId"] and access["token_use"] == "access" and access["sub"] == identity["sub"]
    assert jwt.decode(token["id_token"], keys.get_signing_key_from_jwt(token["id_token"]).key, algorithms=["RS256"],
                      issuer=discovery["issuer"], audience=config["clientId"])["sub"] == identity["sub"]
    assert jwt.get_unverified_header(token["id_token"])["kid"] != jwt.get_unverified_header(token["access_token"])["kid"]
    # The API takes the access token and refuses the ID token (no scope), as API Gateway with scopes does
    assert client.call("PUT", f"/racers/{access['sub']}", {"name": "Oidc"}, token=token["access_token"])[0] == 200
    status, headers, body = client.exchange("PUT", f"/racers/{access['sub']}", {"name": "Oidc"}, token=token["id_token"])
    assert (status, body) == (401, {"message": "Unauthorized"}) and 'error="invalid_token"' in headers["WWW-Authenticate"]


def test_the_authorizer_refuses_a_wrong_issuer_or_audience_and_a_forged_token(stack, client):
    from local.auth import SigningKey

    pool = stack.users.pool
    good = jwt.decode(client.token("ann"), options={"verify_signature": False})
    for changed in ({"iss": f"{pool.issuer}x"}, {"client_id": "another-client"}, {"aud": "another-client"}):
        token = pool.keys["access"].sign({**good, **changed})
        assert client.call("PUT", "/racers/ann", {"name": "Ann"}, token=token)[0] == 401, changed
    assert client.call("PUT", "/racers/ann", {"name": "Ann"}, token=SigningKey().sign(good))[0] == 401
    assert client.call("PUT", "/racers/ann", {"name": "Ann"}, token=client.token("ann"))[0] == 200


def test_managed_login_is_served_and_sets_cookies_on_its_own_host_name_only(stack, config):
    assert urlsplit(config["domain"]).hostname == "localhost" and urlsplit(stack.url).hostname == "127.0.0.1"
    q = urlencode({"response_type": "code", "client_id": config["clientId"], "redirect_uri": f"{stack.url}/"})
    status, headers, _ = Browser().go(f"{config['idpUrl']}login?{q}")
    assert status == 404 and "Set-Cookie" not in headers


def test_the_stacks_own_credentials_are_made_at_its_start_and_the_old_defaults_are_refused(stack, config):
    import boto3
    from botocore.exceptions import ClientError

    from .test_event_api import publish

    assert stack.credentials != ("local", "local") and len(stack.credentials[0]) == 20
    assert (os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"]) == stack.credentials
    guessed = boto3.client("cognito-idp", endpoint_url=config["idpUrl"], region_name=os.environ["AWS_DEFAULT_REGION"],
                           aws_access_key_id="local", aws_secret_access_key="local")
    with pytest.raises(ClientError) as refused:
        guessed.admin_add_user_to_group(UserPoolId=config["userPoolId"], Username="anyone@example.com", GroupName="admin")
    assert refused.value.response["Error"]["Code"] == "UnrecognizedClientException"
    if stack.events:
        status, answer = publish(stack.events, "/races/R", [{}], credentials=("local", "local"),
                                 region=os.environ["AWS_DEFAULT_REGION"])
        assert status == 401 and answer["errors"][0]["errorType"] == "UnrecognizedClientException"
        assert publish(stack.events, "/races/R", [{}], credentials=stack.credentials,
                       region=os.environ["AWS_DEFAULT_REGION"])[0] == 200


# --- an attacker's page on another local port ----------------------------------------------------

class Attacker:
    """A server on 127.0.0.1 (another port): records the cookies browsers send it, and serves a page
    that posts managed login's sign-in form with the attacker's own account (login CSRF)."""

    def __init__(self, domain: str, q: str, email: str):
        self.cookies: list[str] = []
        attacker = self
        form = (f'<!doctype html><form method="post" action="{domain}/login"><input name="q" value="{q}">'
                f'<input name="email" value="{email}"><input name="password" value="{PASSWORD}"></form>'
                '<script>document.forms[0].submit()</script>')

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                attacker.cookies.append(self.headers.get("Cookie") or "")
                payload = (form if self.path == "/csrf" else "<!doctype html><p>cat pictures</p>").encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"

    def stop(self):
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture(scope="module")
def chromium():
    assert Path(CHROMIUM).exists(), f"no Debian Chromium at {CHROMIUM}: `make test` installs it (`make chromium`)"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def signed_in_page(chromium, stack, config, email):
    """A Chromium page signed in on managed login (its session cookie set), back on the site."""
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    app = PublicClient(config, f"{stack.url}/")
    page.goto(app.authorize_url())
    page.fill("#email", email)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{stack.url}/**")
    assert any(cookie["name"] == "cognito" for cookie in context.cookies(config["domain"]))
    return context, page, app


def test_a_page_on_another_local_port_never_gets_the_session_cookie(stack, config, chromium):
    email = f"victim-{uuid.uuid4().hex[:6]}@example.com"
    sign_up(Browser(), PublicClient(config, f"{stack.url}/"), stack, email)
    attacker = Attacker(config["domain"], "", email)
    try:
        context, page, app = signed_in_page(chromium, stack, config, email)
        page.goto(f"{attacker.url}/")
        assert attacker.cookies and not any("cognito=" in sent for sent in attacker.cookies), attacker.cookies
        # Nor does the site's own origin (127.0.0.1): the cookie is managed login's host's alone
        assert not any(cookie["name"] == "cognito" for cookie in context.cookies(stack.url))
        # What the attacker could replay (nothing) gets the sign-in page, not a code
        status, headers, _ = Browser().go(app.authorize_url(), headers={"Cookie": attacker.cookies[-1]})
        assert status == 302 and headers["Location"].startswith("/login?")
        context.close()
    finally:
        attacker.stop()


def test_a_page_that_posts_the_sign_in_form_for_the_victim_signs_no_one_in(stack, config, chromium):
    mallory = f"mallory-{uuid.uuid4().hex[:6]}@example.com"
    sign_up(Browser(), PublicClient(config, f"{stack.url}/"), stack, mallory)
    app = PublicClient(config, f"{stack.url}/")
    q = urlsplit(app.authorize_url()).query
    attacker = Attacker(config["domain"], q, mallory)
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    try:
        # The victim has opened managed login before (its XSRF-TOKEN cookie is set), then visits the attacker
        page.goto(app.authorize_url())
        page.wait_for_selector("#email")
        with page.expect_navigation(url=f"{config['domain']}/login"):
            page.goto(f"{attacker.url}/csrf")
        assert "This form is not one this sign-in page gave you" in page.content()
        # Not signed in as Mallory: authorize still asks who they are
        page.goto(app.authorize_url())
        page.wait_for_selector("#email")
        assert urlsplit(page.url).path == "/login" and not any(
            cookie["name"] == "cognito" for cookie in context.cookies(config["domain"]))
    finally:
        context.close()
        attacker.stop()


def test_a_form_posted_without_its_pages_token_or_with_another_browsers_is_refused(stack, config):
    app = PublicClient(config, f"{stack.url}/")
    q = urlsplit(app.authorize_url()).query
    email = f"t-{uuid.uuid4().hex[:6]}@example.com"
    sign_up(Browser(), app, stack, email)
    victim, attacker = Browser(), Browser()
    victim.csrf(config["domain"], q)  # the victim's browser has a token of its own
    stolen_form = attacker.csrf(config["domain"], q)  # a valid pair, but the attacker's
    for form in ({}, {"_csrf": "made-up"}, stolen_form):
        status, headers, _ = victim.go(f"{config['domain']}/login", {"q": q, "email": email, "password": PASSWORD, **form})
        assert status == 403 and "Location" not in headers, form
    status, headers, _ = attacker.go(f"{config['domain']}/login", {"q": q, "email": email, "password": PASSWORD,
                                                                   **stolen_form})
    assert status == 302 and parse_qs(urlsplit(headers["Location"]).query)["code"]
