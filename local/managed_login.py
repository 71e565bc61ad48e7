"""The local user pool (``local.userpool``) over HTTP on a port of its own: what Cognito serves on a
user pool domain (managed login's pages and the OAuth 2.0 endpoints) and on the ``cognito-idp``
endpoint (the user pool API, AWS JSON 1.1), both at one origin here.

==============================  ===============================================================
``GET /oauth2/authorize``       checks client, redirect URI, response type and PKCE method; with a
                                session cookie, straight back with a code; else the sign-in page
``/login`` ``/signup``          managed login's pages: sign in, sign up, the emailed code, a new
``/confirm`` ``/login/...``     password after a temporary one, the TOTP code of a user who enabled it,
``/forgot`` ``/forgot/reset``   "Forgot your password?" (a code by email, then the code and a new one)
``POST /oauth2/token``          ``authorization_code`` (with ``code_verifier``) and ``refresh_token``
``POST /oauth2/revoke``         ends a refresh token and the access tokens it issued
``GET /logout``                 ends the session cookie, back to ``logout_uri``
``GET /oauth2/userInfo``        the caller's attributes
``POST /``                      the user pool API: ``X-Amz-Target: AWSCognitoIdentityProviderService.<Op>``
``GET /<poolId>/.well-known/``  the issuer's ``openid-configuration`` and ``jwks.json``
==============================  ===============================================================

The token, revoke, userInfo, discovery and API endpoints answer browsers of other origins (CORS), as
Cognito's do.

Two host names, one port, as Cognito has two domains: the issuer and the user pool API on the
stack's address (``http://127.0.0.1:<port>``, Cognito's ``cognito-idp.<region>.amazonaws.com``) and
managed login on a name of its own (``http://localhost:<port>``, the user pool domain), the only one
that answers its pages and sets its cookies. Cookies ignore ports: a session cookie set by
``127.0.0.1:<port>`` would be sent to every server on 127.0.0.1, so a page on the site's port, or
any other local port, could replay it. Under ``localhost`` it reaches only servers on ``localhost``:
not the site (``127.0.0.1``) nor any port of 127.0.0.1. Chromium, Firefox and Python resolve
``localhost`` themselves (no /etc/hosts change); ``*.localhost`` names would be narrower but
Python's resolver (glibc) does not know them.

Login CSRF: every form carries ``_csrf``, the value of the ``XSRF-TOKEN`` cookie its page set (as
Cognito's managed login does); a post without the pair, or with a value this server never issued,
is refused (403) and signs no one in.
"""

from __future__ import annotations

import html
import json
import secrets
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from .eventapi import UNRECOGNIZED_KEY, SigV4Verifier
from .userpool import PASSWORD_RULES, SCOPES, CognitoError, User, UserPool, password_failures

TARGET_PREFIX = "AWSCognitoIdentityProviderService."
SESSION_COOKIE = "cognito"
CSRF_COOKIE, CSRF_FIELD = "XSRF-TOKEN", "_csrf"  # Cognito's managed login's names
CSRF_SECONDS = 3600  # a sign-in page's form is good for an hour
DOMAIN_PATHS = frozenset({"/oauth2/authorize", "/login", "/signup", "/confirm", "/logout", "/login/password", "/login/mfa",
                          "/forgot", "/forgot/reset"})
WELL_KNOWN = "/.well-known/"
STEP_SECONDS = 180  # a sign-in's next step (new password, TOTP code) must follow within Cognito's 3-minute session
CONFIRM_SECONDS = 24 * 3600  # the emailed code signs in the browser that signed up, while the code is good
MAX_CODE_TRIES = 5  # wrong TOTP codes before the sign-in starts over
STYLE = """body{font:16px system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1c1e21}
main{max-width:22rem;margin:3rem auto;padding:1.5rem;background:#fff;border-radius:.5rem;box-shadow:0 1px 3px #0002}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.8rem 0 .2rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid #bbb;border-radius:.3rem}
button{margin-top:1.2rem;width:100%;padding:.7rem;font-size:1rem;background:#c2410c;color:#fff;border:0;border-radius:.3rem}
.error{color:#b00020}.note{color:#555;font-size:.9rem}a{color:#c2410c}
.rules-title{margin:.4rem 0 0;font-size:.9rem;color:#555}.rules{margin:.2rem 0 0;padding:0;list-style:none;font-size:.9rem;color:#555;overflow-wrap:anywhere}
.rules li{margin:.15rem 0}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}.rules .met{color:#166534}.rules .unmet{color:#b00020}"""


def flat(query: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(query, keep_blank_values=True).items()}


class ManagedLoginHandler(BaseHTTPRequestHandler):
    server_version = "CognitoLocal/1"
    protocol_version = "HTTP/1.1"
    service: UserPoolServer

    def log_message(self, fmt, *args):
        pass

    # --- dispatch -------------------------------------------------------------------------------

    def do_GET(self):
        url = urlsplit(self.path)
        if not self._on_its_domain(url.path):
            return self._text(404, "Not Found")
        if url.path.startswith(f"/{self.pool.pool_id}{WELL_KNOWN}"):
            return self._well_known(url.path)
        pages = {"/oauth2/authorize": self._authorize, "/login": self._login_page, "/signup": self._signup_page,
                 "/confirm": self._confirm_page, "/logout": self._logout, "/oauth2/userInfo": self._user_info,
                 "/forgot": self._forgot_page, "/forgot/reset": self._reset_page,
                 "/login.css": self._style}
        page = pages.get(url.path)
        return page(flat(url.query)) if page else self._text(404, "Not Found")

    def do_POST(self):
        url = urlsplit(self.path)
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if url.path == "/":
            return self._api(body)
        if not self._on_its_domain(url.path):
            return self._text(404, "Not Found")
        form = flat(body.decode("utf-8", "replace"))
        if url.path in DOMAIN_PATHS and not self.service.csrf_matches(self._cookie(CSRF_COOKIE), form.get(CSRF_FIELD, "")):
            return self._page(403, "Start again", '<p class="error" role="alert">This form is not one this sign-in '
                              'page gave you (it expired, or another site sent it). Go back to the app and sign in '
                              'again.</p>')
        posts = {"/oauth2/token": self._token, "/oauth2/revoke": self._revoke, "/login": self._login,
                 "/signup": self._signup, "/confirm": self._confirm, "/login/password": self._new_password,
                 "/login/mfa": self._mfa, "/forgot": self._forgot, "/forgot/reset": self._reset}
        post = posts.get(url.path)
        return post(form) if post else self._text(404, "Not Found")

    def do_OPTIONS(self):
        """CORS preflight for the endpoints a single-page app calls from its own origin."""
        self._send(204, b"", {"Access-Control-Allow-Methods": "GET, POST, OPTIONS",
                              "Access-Control-Allow-Headers": self.headers.get("Access-Control-Request-Headers", ""),
                              "Access-Control-Max-Age": "600"}, cors=True)

    def _on_its_domain(self, path: str) -> bool:
        """Managed login's pages are served on the user pool domain's host only (its cookies are that host's)."""
        return path not in DOMAIN_PATHS or urlsplit(f"//{self.headers.get('Host', '')}").hostname == self.service.domain_host

    def _cookie(self, name: str) -> str:
        for part in (self.headers.get("Cookie") or "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
        return ""

    def _well_known(self, path: str) -> None:
        try:
            self._json(200, self.pool.well_known(f"{self.pool.issuer}{path[len('/' + self.pool.pool_id):]}"), cors=True)
        except KeyError:
            self._text(404, "Not Found")

    # --- managed login --------------------------------------------------------------------------

    @property
    def pool(self) -> UserPool:
        return self.service.pool

    def _authorize(self, query: dict[str, str]) -> None:
        problem = self.service.request_problem(query)
        if problem:
            return self._page(400, "Something went wrong", f'<p class="error">{html.escape(problem)}</p>')
        if query.get("response_type") != "code":
            return self._back(query, error="unauthorized_client")
        if query.get("code_challenge") and query.get("code_challenge_method") != "S256":
            return self._back(query, error="invalid_request")
        user = self.service.session_user(self.headers.get("Cookie", ""))
        if user:
            return self._signed_in(user, query)
        self._redirect(f"/login?{urlencode(query)}")

    def _login_page(self, query: dict[str, str], error: str = "", status: int = 200, email: str = "",
                    note: str = "") -> None:
        q = urlencode(query)
        told = f'<p role="status">{html.escape(note)}</p>' if note else ""
        self._page(status, "Sign in", told + self._form("/login", q, error, [("email", "Email", "email", email),
                                                                     ("password", "Password", "password", "")],
                                                 "Sign in")
                   + f'<p class="note"><a href="/forgot?{html.escape(q)}">Forgot your password?</a></p>'
                   + f'<p class="note">New here? <a href="/signup?{html.escape(q)}">Sign up</a></p>')

    def _signup_page(self, query: dict[str, str], error: str = "", status: int = 200, email: str = "",
                     refused: str | None = None) -> None:
        """``refused``: the password the pool refused, whose broken rules the list marks."""
        q = urlencode(query)
        self._page(status, "Sign up", self._form("/signup", q, error, [("email", "Email", "email", email),
                                                                      ("password", "Password", "password", "")],
                                                 "Sign up", new_password=True, refused=refused)
                   + f'<p class="note">Have an account? <a href="/login?{html.escape(q)}">Sign in</a></p>')

    def _confirm_page(self, query: dict[str, str], error: str = "", status: int = 200) -> None:
        """The emailed code; ``step`` (in the query) is the sign-up or sign-in of this browser it completes."""
        email, step = query.get("email", ""), query.get("step", "")
        query = {key: value for key, value in query.items() if key not in ("email", "step")}
        self._page(status, "Check your email",
                   f'<p>We sent a code to {html.escape(email)}.</p>'
                   + self._form("/confirm", urlencode(query), error, [("code", "Code", "text", "")], "Confirm",
                                hidden={"email": email, "step": step})
                   + '<p class="note">The local stack prints the code Cognito would email on its console.</p>')

    def _login(self, form: dict[str, str]) -> None:
        query = flat(form.get("q", ""))
        if self.service.request_problem(query):
            return self._authorize(query)
        try:
            user = self.pool.authenticate(form.get("email", ""), form.get("password", ""))
        except CognitoError as error:
            if error.kind == "UserNotConfirmedException":  # the password was right: confirming signs them in
                unconfirmed = self.pool.find(form.get("email", ""))
                assert unconfirmed is not None  # authenticate found them
                return self._redirect(f"/confirm?{urlencode({**query, 'email': unconfirmed.email, 'step': self.service.pending(unconfirmed)})}")
            return self._login_page(query, error.message, 400, email=form.get("email", ""))
        self._next_step(user, query)

    def _signup(self, form: dict[str, str]) -> None:
        query = flat(form.get("q", ""))
        try:
            user = self.pool.sign_up(form.get("email", ""), form.get("password", ""))
        except CognitoError as error:
            if error.kind == "InvalidPasswordException":
                return self._signup_page(query, self._password_refusal(form.get("password", "")), 400,
                                         form.get("email", ""), refused=form.get("password", ""))
            return self._signup_page(query, error.message, 400, form.get("email", ""))
        self._redirect(f"/confirm?{urlencode({**query, 'email': user.email, 'step': self.service.pending(user)})}")

    def _confirm(self, form: dict[str, str]) -> None:
        """Confirms the account; signs in only the browser whose sign-up or sign-in gave its password."""
        query, (started_by, _) = flat(form.get("q", "")), self.service.resume(form.get("step", ""), CONFIRM_SECONDS)
        try:
            user = self.pool.confirm(form.get("email", ""), form.get("code", ""))
        except CognitoError as error:
            step = self.service.pending(started_by) if started_by else ""
            return self._confirm_page({**query, "email": form.get("email", ""), "step": step}, error.message, 400)
        if started_by is None or started_by.sub != user.sub:
            return self._login_page(query, "", 200, email=user.email, note="Your account is confirmed: sign in.")
        self._signed_in(user, query)

    def _next_step(self, user: User, query: dict[str, str]) -> None:
        """After the password: a new one if it was temporary, the TOTP code if the user enabled it."""
        if user.status == "FORCE_CHANGE_PASSWORD":
            return self._password_step(user, query)
        if user.totp_enabled:
            return self._code_step(user, query)
        self._signed_in(user, query)

    def _password_step(self, user: User, query: dict[str, str], refused: str | None = None) -> None:
        """``refused``: the password the pool refused, whose broken rules the list marks."""
        error = self._password_refusal(refused) if refused is not None else ""
        self._page(400 if error else 200, "Choose a new password",
                   self._form("/login/password", urlencode(query), error, [("password", "New password", "password", "")],
                              "Save and sign in", hidden={"step": self.service.pending(user)}, new_password=True,
                              refused=refused))

    def _code_step(self, user: User, query: dict[str, str], error: str = "", tries: int = 0) -> None:
        self._page(400 if error else 200, "Two-step sign-in",
                   self._form("/login/mfa", urlencode(query), error,
                              [("code", "Code from your authenticator app", "text", "")], "Sign in",
                              hidden={"step": self.service.pending(user, tries)}))

    def _resumed(self, form: dict[str, str]):
        """(query, user, wrong codes so far) of the sign-in a step's form continues; user None (and the
        sign-in page answered) when it took too long."""
        query, (user, tries) = flat(form.get("q", "")), self.service.resume(form.get("step", ""))
        if not user:
            self._login_page(query, "Your sign-in took too long: sign in again.", 400)
        return query, user, tries

    def _new_password(self, form: dict[str, str]) -> None:
        query, user, _ = self._resumed(form)
        if not user:
            return
        try:
            self.pool.set_password(user, form.get("password", ""))
        except CognitoError:  # InvalidPasswordException: the list says which rules it broke
            return self._password_step(user, query, refused=form.get("password", ""))
        self._next_step(user, query)

    def _mfa(self, form: dict[str, str]) -> None:
        query, user, tries = self._resumed(form)
        if not user:
            return
        try:
            self.pool.check_totp(user, form.get("code", ""))
        except CognitoError as error:
            if error.kind == "NotAuthorizedException":  # the account's lockout: its wrong codes of every sign-in
                return self._login_page(query, "Too many wrong codes: wait a while, then sign in again.", 400,
                                        email=user.email)
            if error.kind == "ExpiredCodeException":  # a code already taken: not a wrong one
                return self._code_step(user, query, "That code was used already: enter the next one your app "
                                       "shows.", tries)
            if tries + 1 >= MAX_CODE_TRIES:
                return self._login_page(query, "Too many wrong codes: sign in again.", 400, email=user.email)
            return self._code_step(user, query, error.message, tries + 1)
        self._signed_in(user, query)

    # "Forgot your password?": ForgotPassword, then ConfirmForgotPassword, then the sign-in page.

    def _forgot_page(self, query: dict[str, str], error: str = "", status: int = 200, email: str = "") -> None:
        q = urlencode(query)
        self._page(status, "Reset your password",
                   '<p>Enter your email address: we will send you a code to reset your password.</p>'
                   + self._form("/forgot", q, error, [("email", "Email", "email", email)], "Send code")
                   + f'<p class="note"><a href="/login?{html.escape(q)}">Back to sign in</a></p>')

    def _forgot(self, form: dict[str, str]) -> None:
        query = flat(form.get("q", ""))
        try:
            sent = self.pool.forgot_password(form.get("email", ""))
        except CognitoError as error:
            message = ("Too many codes asked for this address: wait an hour, then ask again."
                       if error.kind == "LimitExceededException" else error.message)
            return self._forgot_page(query, message, 400, form.get("email", ""))
        self._redirect(f"/forgot/reset?{urlencode({**query, 'email': form.get('email', '').strip(), 'to': sent['Destination']})}")

    def _reset_page(self, query: dict[str, str], error: str = "", status: int = 200, refused: str | None = None) -> None:
        """The emailed code and a new password; ``refused``: the password the pool refused."""
        email, sent_to = query.get("email", ""), query.get("to", "")
        query = {key: value for key, value in query.items() if key not in ("email", "to")}
        q, to = urlencode(query), f" to {html.escape(sent_to)}" if sent_to else ""
        self._page(status, "Reset your password",
                   f'<p>If an account uses this address, we sent a code by email{to}. '
                   'It is good for an hour.</p>'
                   + self._form("/forgot/reset", q, error, [("code", "Code", "text", ""),
                                                            ("password", "New password", "password", "")],
                                "Reset password", hidden={"email": email, "to": sent_to}, new_password=True,
                                refused=refused)
                   + f'<p class="note">No code? <a href="/forgot?{html.escape(q)}">Ask for a new one</a>.</p>'
                   + '<p class="note">The local stack prints the code Cognito would email on its console.</p>')

    def _reset(self, form: dict[str, str]) -> None:
        query, email, password = flat(form.get("q", "")), form.get("email", ""), form.get("password", "")
        again = {**query, "email": email, "to": form.get("to", "")}
        try:
            self.pool.confirm_forgot_password(email, form.get("code", ""), password)
        except CognitoError as error:
            if error.kind == "InvalidPasswordException":
                return self._reset_page(again, self._password_refusal(password), 400, refused=password)
            messages = {"CodeMismatchException": "That code is not the one we sent: check the email and try again.",
                        "ExpiredCodeException": "That code has expired (a code is good for an hour): ask for a new one.",
                        "LimitExceededException": "Too many wrong codes: wait a while, then try again."}
            return self._reset_page(again, messages.get(error.kind, error.message), 400)
        self._login_page(query, "", 200, email=email.strip().lower(),
                         note="Your password is reset: sign in with the new one.")

    def _signed_in(self, user: User, query: dict[str, str]) -> None:
        if self.service.request_problem(query):
            return self._page(200, "Signed in", "<p>You are signed in. Go back to the app.</p>")
        scope = " ".join(part for part in query.get("scope", " ".join(SCOPES)).split() if part in SCOPES)
        code = self.pool.code_for(user, query["redirect_uri"], query.get("code_challenge", ""), scope, query.get("nonce", ""))
        cookie = f"{SESSION_COOKIE}={self.service.open_session(user)}; Path=/; HttpOnly; SameSite=Lax"
        self._back(query, cookie=cookie, code=code)

    def _logout(self, query: dict[str, str]) -> None:
        if query.get("client_id") != self.pool.client_id or query.get("logout_uri") not in self.service.logout_urls:
            return self._page(400, "Something went wrong", '<p class="error">Invalid logout request.</p>')
        self.service.close_session(self.headers.get("Cookie", ""))
        self._redirect(query["logout_uri"], cookie=f"{SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax")

    # --- OAuth endpoints and the API ------------------------------------------------------------

    def _token(self, form: dict[str, str]) -> None:
        if "application/x-www-form-urlencoded" not in self.headers.get("Content-Type", ""):
            return self._json(400, {"error": "invalid_request"}, cors=True)
        answer = self.pool.exchange(form)
        self._json(400 if "error" in answer else 200, answer, cors=True)

    def _revoke(self, form: dict[str, str]) -> None:
        error = self.pool.revoke(form.get("token", ""), form.get("client_id", ""))
        self._json(400, {"error": error}, cors=True) if error else self._send(200, b"", {}, cors=True)

    def _user_info(self, _query: dict[str, str]) -> None:
        scheme, _, token = (self.headers.get("Authorization") or "").partition(" ")
        try:
            self._json(200, self.pool.user_info(token.strip() if scheme.lower() == "bearer" else ""), cors=True)
        except CognitoError:
            self._send(401, b"", {"WWW-Authenticate": 'Bearer error="invalid_token"'}, cors=True)

    def _api(self, body: bytes) -> None:
        target = self.headers.get("X-Amz-Target", "")
        try:
            if not target.startswith(TARGET_PREFIX):
                raise CognitoError("UnknownOperationException", "X-Amz-Target is missing or not the user pool API's")
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                raise CognitoError("SerializationException", "the body is not JSON") from None
            signed = False
            if "Authorization" in self.headers:  # an operator's call: signed by the stack's credentials, or refused
                why = self.service.verifier.verify(self.command, self.path, dict(self.headers.items()), body)
                if why == "unknown access key":  # Cognito answers these with a 400
                    raise CognitoError("UnrecognizedClientException", UNRECOGNIZED_KEY)
                if why:
                    raise CognitoError("InvalidSignatureException", why)
                signed = True
            answer, status = self.pool.call(target[len(TARGET_PREFIX):], request, signed), 200
        except CognitoError as error:
            answer, status = {"__type": error.kind, "message": error.message}, error.status
        headers = {"Content-Type": "application/x-amz-json-1.1", "x-amzn-RequestId": str(uuid.uuid4())}
        if status != 200:
            headers["x-amzn-ErrorType"] = answer["__type"]
        self._send(status, json.dumps(answer).encode(), headers, cors=True)

    # --- answers --------------------------------------------------------------------------------

    def _back(self, query: dict[str, str], cookie: str = "", **parameters: str) -> None:
        """Back to the app's redirect URI with ``parameters`` and its ``state``."""
        state = {"state": query["state"]} if "state" in query else {}
        self._redirect(f"{query['redirect_uri']}?{urlencode({**parameters, **state})}", cookie=cookie)

    def _redirect(self, location: str, cookie: str = "") -> None:
        self._send(302, b"", {"Location": location, "Cache-Control": "no-store", **({"Set-Cookie": cookie} if cookie else {})})

    def _form(self, action: str, q: str, error: str, fields: list[tuple[str, str, str, str]], submit: str,
              hidden: dict[str, str] | None = None, new_password: bool = False, refused: str | None = None) -> str:
        """``new_password``: the form sets a password, and its field lists the pool's rules, marking
        those the ``refused`` password broke (None: none refused yet)."""
        def field(name: str, label: str, kind: str, value: str) -> str:
            sets = new_password and kind == "password"
            described = ' aria-describedby="password-rules" autocomplete="new-password"' if sets else ""
            rules = self._rules(refused) if sets else ""
            return (f'<label for="{name}">{label}</label><input id="{name}" name="{name}" type="{kind}" '
                    f'value="{html.escape(value)}"{described} required>{rules}')
        inputs = "".join(field(*spec) for spec in fields)
        extra = "".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">'
                        for name, value in {CSRF_FIELD: self._csrf_token(), "q": q, **(hidden or {})}.items())
        problem = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""
        return f'{problem}<form method="post" action="{action}">{extra}{inputs}<button type="submit">{submit}</button></form>'

    @staticmethod
    def _rules(refused: str | None) -> str:
        """The pool's password rules, each marked met or not when a refused password is given."""
        broken = password_failures(refused) if refused is not None else []
        def item(rule) -> str:
            if refused is None:
                return f'<li><span aria-hidden="true">•</span> {html.escape(rule.label)}</li>'
            state = ("unmet", "✗", "missing") if rule in broken else ("met", "✓", "done")
            return (f'<li class="{state[0]}"><span aria-hidden="true">{state[1]}</span> {html.escape(rule.label)}'
                    f' <span class="visually-hidden">({state[2]})</span></li>')
        return (f'<div id="password-rules"><p class="rules-title">Your password needs:</p><ul class="rules">'
                f'{"".join(item(rule) for rule in PASSWORD_RULES)}</ul></div>')

    @staticmethod
    def _password_refusal(password: str) -> str:
        """What a person reads when the pool refuses ``password``: every rule it broke."""
        broken = [rule.label[0].lower() + rule.label[1:].split(":")[0] for rule in password_failures(password)]
        return f"Your password needs {', '.join(broken[:-1]) + ' and ' if len(broken) > 1 else ''}{broken[-1]}." if broken else ""

    def _csrf_token(self) -> str:
        """This browser's CSRF token (its ``XSRF-TOKEN`` cookie), a new one set with the page when it has none."""
        token = self._cookie(CSRF_COOKIE)
        if not self.service.csrf_matches(token, token):
            token = self._new_csrf = self.service.new_csrf()
        return token

    def _page(self, status: int, title: str, content: str) -> None:
        page = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
                f'content="width=device-width, initial-scale=1"><title>{title} · Alleycat</title>'
                f'<link rel="stylesheet" href="/login.css"></head><body><main><h1>{title}</h1>{content}</main></body></html>')
        minted, self._new_csrf = getattr(self, "_new_csrf", ""), ""
        cookie = {"Set-Cookie": f"{CSRF_COOKIE}={minted}; Path=/; HttpOnly; SameSite=Lax"} if minted else {}
        self._send(status, page.encode(), {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
                                           "Content-Security-Policy": self.service.page_policy, **cookie})

    def _style(self, _query: dict[str, str]) -> None:
        self._send(200, STYLE.encode(), {"Content-Type": "text/css; charset=utf-8"})

    def _text(self, status: int, text: str) -> None:
        self._send(status, text.encode(), {"Content-Type": "text/plain; charset=utf-8"})

    def _json(self, status: int, body: dict, cors: bool = False) -> None:
        self._send(status, json.dumps(body).encode(), {"Content-Type": "application/json", "Cache-Control": "no-store"}, cors)

    def _send(self, status: int, payload: bytes, headers: dict[str, str], cors: bool = False) -> None:
        self.send_response(status)
        if cors and self.headers.get("Origin"):
            headers = {**headers, "Access-Control-Allow-Origin": self.headers["Origin"], "Vary": "Origin"}
        for name, value in {**headers, "Content-Length": str(len(payload))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


class UserPoolServer:
    """``start()`` serves the pool on a free loopback port. ``callback_urls``: the app client's
    callback and sign-out URLs (the local site's root)."""

    def __init__(self, pool: UserPool, *, callback_urls: tuple[str, ...] = (), host: str = "127.0.0.1",
                 domain_host: str = "localhost", access_key: str = "local", secret_key: str = "local"):
        self.pool, self.host, self.domain_host = pool, host, domain_host
        self.verifier = SigV4Verifier(access_key, secret_key, pool.region, "cognito-idp")
        self.allow_app(*callback_urls)
        self._sessions: dict[str, str] = {}  # session cookie -> sub
        self._pending: dict[str, tuple[str, float, int]] = {}  # a sign-in's next step -> (sub, started, wrong codes)
        self._csrf: dict[str, float] = {}  # CSRF tokens issued -> when
        self._http: ThreadingHTTPServer | None = None
        self.port = 0

    @property
    def url(self) -> str:
        """The user pool API's endpoint and the issuer's origin (Cognito's ``cognito-idp`` endpoint)."""
        return f"http://{self.host}:{self.port}"

    @property
    def domain(self) -> str:
        """Managed login's origin (the user pool domain): its pages, its cookies, the OAuth 2.0 endpoints."""
        return f"http://{self.domain_host}:{self.port}"

    def allow_app(self, *urls: str) -> None:
        """The app client's callback and sign-out URLs."""
        self.callback_urls = self.logout_urls = urls
        origins = " ".join(sorted({"{0.scheme}://{0.netloc}".format(urlsplit(url)) for url in urls}))
        # Chromium checks form-action on the redirect after a form too: back to the app's origin.
        self.page_policy = (f"default-src 'none'; style-src 'self'; form-action 'self' {origins}; "
                            "frame-ancestors 'none'; base-uri 'none'")

    @property
    def client_id(self) -> str:
        return self.pool.client_id

    @property
    def outbox(self) -> list[tuple[str, str]]:
        return self.pool.outbox

    @property
    def config(self) -> dict:
        """``auth`` in the site's ``/config.json``, as stacks/users.py writes it for the deployed pool."""
        return {"domain": self.domain, "clientId": self.client_id, "scopes": list(SCOPES),
                "idpUrl": f"{self.url}/", "userPoolId": self.pool.pool_id}

    def start(self) -> UserPoolServer:
        self._http = ThreadingHTTPServer((self.host, self.port), type("BoundManagedLoginHandler", (ManagedLoginHandler,),
                                                                      {"service": self}))
        self._http.daemon_threads = True
        self.port = self._http.server_address[1]
        self.pool.issuer = f"{self.url}/{self.pool.pool_id}"
        self.pool.domain = self.domain
        threading.Thread(target=self._http.serve_forever, args=(0.1,), name="user-pool", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._http:
            self._http.shutdown()
            self._http.server_close()

    def request_problem(self, query: dict[str, str]) -> str | None:
        """Why an authorize request cannot even be sent back to its app (shown, not redirected), or None."""
        if query.get("client_id") != self.client_id:
            return "Invalid client id."
        if query.get("redirect_uri") not in self.callback_urls:
            return "redirect_mismatch: the redirect URI is not one of the app client's callback URLs."
        return None

    def open_session(self, user: User) -> str:
        session = secrets.token_urlsafe(24)
        self._sessions[session] = user.sub
        return session

    def session_user(self, cookies: str) -> User | None:
        sub = self._sessions.get(self._cookie(cookies))
        return self.pool.find(sub) if sub else None

    def close_session(self, cookies: str) -> None:
        self._sessions.pop(self._cookie(cookies), None)

    def new_csrf(self) -> str:
        token = secrets.token_urlsafe(24)
        self._csrf[token] = self.pool.clock.now()
        return token

    def csrf_matches(self, cookie: str, field: str) -> bool:
        """The form's token is its browser's cookie, one this server issued within the hour."""
        issued = self._csrf.get(cookie)
        return (bool(cookie) and issued is not None and self.pool.clock.now() - issued < CSRF_SECONDS
                and secrets.compare_digest(cookie, field))

    def pending(self, user: User, tries: int = 0) -> str:
        """A one-time id for the next step of ``user``'s sign-in in this browser (``tries``: wrong codes so far)."""
        step = secrets.token_urlsafe(24)
        self._pending[step] = (user.sub, self.pool.clock.now(), tries)
        return step

    def resume(self, step: str, within: float = STEP_SECONDS) -> tuple[User | None, int]:
        """The user of a pending step and its wrong codes so far, if it began ``within`` seconds ago; once."""
        sub, started, tries = self._pending.pop(step, (None, 0.0, 0))
        return (self.pool.find(sub), tries) if sub and self.pool.clock.now() - started < within else (None, 0)

    @staticmethod
    def _cookie(cookies: str) -> str:
        for part in cookies.split(";"):
            name, _, value = part.strip().partition("=")
            if name == SESSION_COOKIE:
                return value
        return ""
