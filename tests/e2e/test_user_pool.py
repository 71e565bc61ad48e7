"""The local user pool, driven as AWS documents Cognito's endpoints: an OAuth 2.0 client written from
the authorize, token, revoke and logout endpoints' reference (a public client with PKCE) that fills in
managed login's forms as a browser would, and boto3 (AWS's own client) for the user pool API.

https://docs.aws.amazon.com/cognito/latest/developerguide/authorization-endpoint.html
https://docs.aws.amazon.com/cognito/latest/developerguide/token-endpoint.html
https://docs.aws.amazon.com/cognito/latest/developerguide/revocation-endpoint.html
https://docs.aws.amazon.com/cognito/latest/developerguide/logout-endpoint.html
"""

from __future__ import annotations

import html
import http.cookiejar
import json
import os
import re
import secrets
import urllib.error
import urllib.request
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

import boto3
import pytest
from botocore.exceptions import ClientError

from local.auth import TOTP_STEP, s256, totp, unb64url

PASSWORD = "Pedal-hard-2026"


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None


class Browser:
    """Follows managed login as a browser would: cookies kept, each redirect looked at."""

    def __init__(self):
        self.cookies = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(NoRedirects, urllib.request.HTTPCookieProcessor(self.cookies))

    def go(self, url, form=None, headers=None):
        data = urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(url, data=data, headers=headers or {})
        try:
            with self._opener.open(request, timeout=30) as response:
                return response.status, response.headers, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read().decode()

    def csrf(self, domain: str, q: str) -> dict[str, str]:
        """The ``_csrf`` field of a managed login form this browser loaded (its cookie came with the page)."""
        return {"_csrf": Browser.form(self.go(f"{domain}/login?{q}")[2])[1]["_csrf"]}

    @staticmethod
    def form(page: str) -> tuple[str, dict[str, str]]:
        """The page's form: its action and hidden fields."""
        action = re.search(r'<form method="post" action="([^"]+)"', page).group(1)
        hidden = {name: html.unescape(value) for name, value in re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', page)}
        return action, hidden


class PublicClient:
    """The site's app client: authorization code grant with PKCE (S256), no client secret."""

    def __init__(self, config: dict, redirect_uri: str):
        self.config, self.redirect_uri = config, redirect_uri
        self.verifier = secrets.token_urlsafe(64)[:96]
        self.state = secrets.token_urlsafe(16)

    def authorize_url(self, **overrides) -> str:
        query = {"response_type": "code", "client_id": self.config["clientId"], "redirect_uri": self.redirect_uri,
                 "state": self.state, "scope": " ".join(self.config["scopes"]),
                 "code_challenge": s256(self.verifier), "code_challenge_method": "S256", **overrides}
        return f"{self.config['domain']}/oauth2/authorize?{urlencode(query)}"

    def code_from(self, location: str) -> str:
        url = urlsplit(location)
        assert f"{url.scheme}://{url.netloc}{url.path}" == self.redirect_uri
        answer = parse_qs(url.query)
        assert answer["state"] == [self.state], "the state must come back unchanged"
        return answer["code"][0]

    def token(self, form: dict, origin: str | None = None) -> tuple[int, dict, dict]:
        headers = {"Content-Type": "application/x-www-form-urlencoded", **({"Origin": origin} if origin else {})}
        request = urllib.request.Request(f"{self.config['domain']}/oauth2/token", data=urlencode(form).encode(), headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, dict(response.headers), json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), json.loads(error.read())

    def exchange(self, code: str, verifier: str | None = None) -> tuple[int, dict]:
        status, _, body = self.token({"grant_type": "authorization_code", "client_id": self.config["clientId"],
                                      "code": code, "redirect_uri": self.redirect_uri,
                                      "code_verifier": verifier or self.verifier})
        return status, body

    def refresh(self, refresh_token: str) -> tuple[int, dict]:
        status, _, body = self.token({"grant_type": "refresh_token", "client_id": self.config["clientId"],
                                      "refresh_token": refresh_token})
        return status, body

    def revoke(self, refresh_token: str) -> int:
        request = urllib.request.Request(f"{self.config['domain']}/oauth2/revoke", data=urlencode(
            {"token": refresh_token, "client_id": self.config["clientId"]}).encode())
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status


def payload(token: str) -> dict:
    return json.loads(unb64url(token.split(".")[1]))


@pytest.fixture(scope="module")
def config(client):
    return client.call("GET", "/config.json")[1]["auth"]


@pytest.fixture(scope="module")
def idp(config):
    """boto3's user pool API client, signed with the local stack's credentials (as an operator's would be)."""
    return boto3.client("cognito-idp", endpoint_url=config["idpUrl"], region_name=os.environ["AWS_DEFAULT_REGION"],
                        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"])


def sign_up(browser: Browser, app: PublicClient, stack, email: str) -> str:
    """Sign up on managed login's pages; the code that was "emailed" confirms it. Returns the redirect."""
    status, headers, _ = browser.go(app.authorize_url())
    assert status == 302 and headers["Location"].startswith("/login?")
    _, _, page = browser.go(app.config["domain"] + headers["Location"].replace("/login?", "/signup?"))
    action, hidden = Browser.form(page)
    status, headers, _ = browser.go(app.config["domain"] + action, {**hidden, "email": email, "password": PASSWORD})
    assert status == 302 and headers["Location"].startswith("/confirm?")
    _, _, page = browser.go(app.config["domain"] + headers["Location"])
    sent_to, code = stack.users.outbox[-1]
    assert sent_to == email.lower()
    action, hidden = Browser.form(page)
    status, headers, _ = browser.go(app.config["domain"] + action, {**hidden, "code": code})
    assert status == 302
    return headers["Location"]


def sign_in(browser: Browser, app: PublicClient, email: str, password: str) -> str:
    """Sign in on managed login's page; returns the next page or the redirect back to the app."""
    status, headers, _ = browser.go(app.authorize_url())
    assert status == 302, "no session yet: managed login's sign-in page"
    _, _, page = browser.go(app.config["domain"] + headers["Location"])
    action, hidden = Browser.form(page)
    status, headers, page = browser.go(app.config["domain"] + action, {**hidden, "email": email, "password": password})
    return headers["Location"] if status == 302 else page


def test_a_racer_signs_up_signs_in_with_pkce_and_writes_as_themselves(stack, client, config):
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    email = f"Rider-{uuid.uuid4().hex[:6]}@Example.com"
    tokens = app.exchange(app.code_from(sign_up(browser, app, stack, email)))[1]
    # Cognito's token response: bearer tokens for an hour and a refresh token
    assert tokens["token_type"] == "Bearer" and tokens["expires_in"] == 3600 and tokens["refresh_token"]
    identity, access = payload(tokens["id_token"]), payload(tokens["access_token"])
    assert identity["email"] == email.lower() and identity["aud"] == config["clientId"] and identity["token_use"] == "id"
    assert access["sub"] == identity["sub"] and access["client_id"] == config["clientId"] and "cognito:groups" not in access
    # The API's authorizer takes the access token: the racer names themselves, and no one else
    assert client.call("PUT", f"/racers/{access['sub']}", {"name": "Rider"}, token=tokens["access_token"])[0] == 200
    assert client.call("PUT", "/racers/someone-else", {"name": "X"}, token=tokens["access_token"])[0] == 403
    assert client.call("PUT", "/classes/sneaky", {"name": "X"}, token=tokens["access_token"])[0] == 403


def test_a_code_is_good_once_with_its_own_verifier_and_redirect(stack, config):
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    code = app.code_from(sign_up(browser, app, stack, f"once-{uuid.uuid4().hex[:6]}@example.com"))
    assert app.exchange(code, verifier=secrets.token_urlsafe(64)) == (400, {"error": "invalid_grant"})
    assert app.exchange(code)[0] == 400, "a code tried once is spent"
    # With the session cookie, authorize answers at once with a new code
    status, headers, _ = browser.go(app.authorize_url())
    assert status == 302 and app.exchange(app.code_from(headers["Location"]))[0] == 200


def test_bad_authorize_requests_are_refused_as_the_reference_says(stack, config):
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    # An unknown redirect URI or client is never redirected to
    assert browser.go(app.authorize_url(redirect_uri="https://evil.example/"))[0] == 400
    assert browser.go(app.authorize_url(client_id="nobody"))[0] == 400
    # The implicit grant is not the client's: back to the app with the error
    status, headers, _ = browser.go(app.authorize_url(response_type="token"))
    assert status == 302 and parse_qs(urlsplit(headers["Location"]).query)["error"] == ["unauthorized_client"]
    status, headers, _ = browser.go(app.authorize_url(code_challenge_method="plain"))
    assert parse_qs(urlsplit(headers["Location"]).query)["error"] == ["invalid_request"]


def test_refresh_revoke_and_logout(stack, client, config, idp):
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    tokens = app.exchange(app.code_from(sign_up(browser, app, stack, f"r-{uuid.uuid4().hex[:6]}@example.com")))[1]
    status, refreshed = app.refresh(tokens["refresh_token"])
    assert status == 200 and "refresh_token" not in refreshed and refreshed["access_token"] != tokens["access_token"]
    assert payload(refreshed["id_token"])["sub"] == payload(tokens["id_token"])["sub"]
    assert app.revoke(tokens["refresh_token"]) == 200
    assert app.refresh(tokens["refresh_token"]) == (400, {"error": "invalid_grant"})
    # Cognito's own API refuses the revoked session's access tokens; an API's JWT authorizer does not check
    with pytest.raises(ClientError) as refused:
        idp.get_user(AccessToken=refreshed["access_token"])
    assert refused.value.response["Error"]["Code"] == "NotAuthorizedException"
    sub = payload(tokens["id_token"])["sub"]
    assert client.call("PUT", f"/racers/{sub}", {"name": "Still"}, token=refreshed["access_token"])[0] == 200
    # Logout ends managed login's session: the next authorize asks again
    logout = f"{config['domain']}/logout?{urlencode({'client_id': config['clientId'], 'logout_uri': f'{stack.url}/'})}"
    status, headers, _ = browser.go(logout)
    assert status == 302 and headers["Location"] == f"{stack.url}/"
    status, headers, _ = browser.go(app.authorize_url())
    assert headers["Location"].startswith("/login?")


def test_the_token_endpoint_answers_the_sites_origin(stack, config):
    # A single-page app calls it from its own origin: the preflight and the answer allow that origin
    request = urllib.request.Request(f"{config['domain']}/oauth2/token", method="OPTIONS", headers={
        "Origin": stack.url, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Access-Control-Allow-Origin"] == stack.url
        assert "content-type" in response.headers["Access-Control-Allow-Headers"]
    status, headers, body = PublicClient(config, f"{stack.url}/").token(
        {"grant_type": "refresh_token", "client_id": config["clientId"], "refresh_token": "nope"}, origin=stack.url)
    assert status == 400 and body == {"error": "invalid_grant"} and headers["Access-Control-Allow-Origin"] == stack.url


def test_an_admin_made_by_the_operator_writes_as_admin_only_after_setting_up_totp(stack, client, config, idp):
    email = f"boss-{uuid.uuid4().hex[:6]}@example.com"
    made = idp.admin_create_user(UserPoolId=config["userPoolId"], Username=email, DesiredDeliveryMediums=["EMAIL"],
                                 UserAttributes=[{"Name": "email", "Value": email}, {"Name": "email_verified", "Value": "true"}])
    assert made["User"]["UserStatus"] == "FORCE_CHANGE_PASSWORD"
    idp.admin_add_user_to_group(UserPoolId=config["userPoolId"], Username=email, GroupName="admin")
    temporary = next(code for sent_to, code in reversed(stack.users.outbox) if sent_to == email)
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    # First sign-in: the temporary password must be replaced
    page = sign_in(browser, app, email, temporary)
    assert "Choose a new password" in page and "At least 12 characters" in page
    # A new password the pool's policy refuses: the page names what it lacks, and asks again
    action, hidden = Browser.form(page)
    status, headers, page = browser.go(config["domain"] + action, {**hidden, "password": "pedal-hard-2026"})
    assert status == 400 and "Your password needs at least 1 uppercase letter." in page
    assert re.findall(r'<li class="(\w+)"', page) == ["met", "met", "unmet", "met", "met"]
    action, hidden = Browser.form(page)
    status, headers, _ = browser.go(config["domain"] + action, {**hidden, "password": PASSWORD})
    tokens = app.exchange(app.code_from(headers["Location"]))[1]
    # Without a second factor the token carries no admin group, refreshed or not, and admin writes are refused
    assert "cognito:groups" not in payload(tokens["access_token"])
    assert "cognito:groups" not in payload(app.refresh(tokens["refresh_token"])[1]["access_token"])
    assert client.call("PUT", "/classes/boss-class", {"name": "Boss"}, token=tokens["access_token"])[0] == 403
    # The admin sets up TOTP with their access token (the account page does the same)
    secret = idp.associate_software_token(AccessToken=tokens["access_token"])["SecretCode"]
    with pytest.raises(ClientError) as wrong:
        idp.verify_software_token(AccessToken=tokens["access_token"], UserCode="000000" if totp(secret, stack.clock.now()) != "000000" else "111111")
    assert wrong.value.response["Error"]["Code"] == "EnableSoftwareTokenMFAException"
    assert idp.verify_software_token(AccessToken=tokens["access_token"], UserCode=totp(secret, stack.clock.now()))["Status"] == "SUCCESS"
    idp.set_user_mfa_preference(AccessToken=tokens["access_token"],
                                SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True})
    assert idp.get_user(AccessToken=tokens["access_token"])["UserMFASettingList"] == ["SOFTWARE_TOKEN_MFA"]
    # Enabling took a code from the authenticator: the session's next refresh carries admin (docs/signin.md)
    assert payload(app.refresh(tokens["refresh_token"])[1]["access_token"])["cognito:groups"] == ["admin"]
    # Signed in again, Cognito asks for the code; then the token carries admin and admin writes pass
    browser.go(f"{config['domain']}/logout?{urlencode({'client_id': config['clientId'], 'logout_uri': f'{stack.url}/'})}")
    page = sign_in(browser, app, email, PASSWORD)
    assert "Two-step sign-in" in page
    action, hidden = Browser.form(page)
    # The code that turned TOTP on is spent (a code is taken once): the app's next one, as a phone a little ahead shows it
    status, headers, _ = browser.go(config["domain"] + action, {**hidden, "code": totp(secret, stack.clock.now() + TOTP_STEP)})
    tokens = app.exchange(app.code_from(headers["Location"]))[1]
    assert payload(tokens["access_token"])["cognito:groups"] == ["admin"]
    assert client.call("PUT", "/classes/boss-class", {"name": "Boss"}, token=tokens["access_token"])[0] == 200


def test_operator_calls_need_the_stacks_credentials(config):
    stranger = boto3.client("cognito-idp", endpoint_url=config["idpUrl"], region_name="us-east-1",
                            aws_access_key_id="someone", aws_secret_access_key="else")
    with pytest.raises(ClientError) as refused:
        stranger.admin_get_user(UserPoolId=config["userPoolId"], Username="nobody@example.com")
    assert refused.value.response["Error"]["Code"] == "UnrecognizedClientException"
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400  # as Cognito answers it


def test_an_emailed_code_signs_in_only_the_browser_that_gave_the_password(stack, config):
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    email = f"c-{uuid.uuid4().hex[:6]}@example.com"
    sign_up(browser, app, stack, email)
    # Another browser posting to /confirm for a confirmed account, with any code, gets no code back
    stranger = Browser()
    q = urlencode({"response_type": "code", "client_id": config["clientId"], "redirect_uri": f"{stack.url}/", "state": "s"})
    status, headers, page = stranger.go(f"{config['domain']}/confirm", {"q": q, "email": email, "code": "000000",
                                                                        **stranger.csrf(config["domain"], q)})
    assert status == 400 and "Invalid verification code provided" in page and "Location" not in headers  # as for no account
    # A sign-up confirmed from elsewhere (its code, no step of this browser's) is confirmed, then signed in as usual
    other = f"d-{uuid.uuid4().hex[:6]}@example.com"
    stack.users.pool.sign_up(other, PASSWORD)
    status, headers, page = stranger.go(f"{config['domain']}/confirm",
                                        {"q": q, "email": other, "code": stack.users.outbox[-1][1],
                                         **stranger.csrf(config["domain"], q)})
    assert status == 200 and "Your account is confirmed: sign in." in page and "Location" not in headers


def test_wrong_totp_codes_start_the_sign_in_over_after_five(stack, config, idp):
    app, browser = PublicClient(config, f"{stack.url}/"), Browser()
    email = f"t-{uuid.uuid4().hex[:6]}@example.com"
    tokens = app.exchange(app.code_from(sign_up(browser, app, stack, email)))[1]
    secret = idp.associate_software_token(AccessToken=tokens["access_token"])["SecretCode"]
    idp.verify_software_token(AccessToken=tokens["access_token"], UserCode=totp(secret, stack.clock.now()))
    idp.set_user_mfa_preference(AccessToken=tokens["access_token"], SoftwareTokenMfaSettings={"Enabled": True})
    page = sign_in(Browser(), app, email, PASSWORD)
    wrong = "000000" if totp(secret, stack.clock.now()) != "000000" else "111111"
    fresh = Browser()
    page = sign_in(fresh, app, email, PASSWORD)
    for attempt in range(5):
        assert "Two-step sign-in" in page, attempt
        action, hidden = Browser.form(page)
        status, _, page = fresh.go(config["domain"] + action, {**hidden, "code": wrong})
    assert status == 400 and "Too many wrong codes" in page and 'action="/login"' in page


def test_a_step_posted_that_no_sign_in_is_waiting_for_starts_the_sign_in_over(stack, config):
    # Given a step this sign-in never began (or one already used, or begun too long ago)
    q = urlencode({"response_type": "code", "client_id": config["clientId"], "redirect_uri": f"{stack.url}/", "state": "s"})
    for path, field in (("/login/password", "password"), ("/login/mfa", "code")):
        # When its form is posted / Then the sign-in page comes back, saying why, and nothing is signed in
        browser = Browser()
        status, headers, page = browser.go(f"{config['domain']}{path}", {"q": q, "step": "not-a-step", field: "x",
                                                                         **browser.csrf(config["domain"], q)})
        assert status == 400 and "took too long" in page and 'action="/login"' in page, path
        assert "Location" not in headers
