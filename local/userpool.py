"""A stand-in for an Amazon Cognito user pool, its app client and its managed login, for `make local`.

What it keeps and decides, on the stack's clock; ``local.managed_login`` serves it over HTTP on a
port of its own, as Cognito serves a user pool domain and the ``cognito-idp`` endpoint:

- accounts, by email (the pool's username attribute): self sign-up with a code "emailed" to
  ``outbox`` (and the console), an operator's AdminCreateUser with a temporary password that must
  be changed at first sign-in, groups, TOTP (AssociateSoftwareToken, VerifySoftwareToken,
  SetUserMFAPreference), which sign-in then asks for, as Cognito does for a user who enabled it;
  a forgotten password (ForgotPassword: a code "emailed" as the sign-up's is, good for an hour;
  ConfirmForgotPassword: the code and a new password), without telling whether an account exists;
- the OAuth 2.0 authorization code grant with PKCE (codes for one use, five minutes), refresh
  tokens (revocable) and the tokens themselves, shaped as Cognito's, each issue passing through
  the pre-token-generation trigger (``pre_token``: the deployed trigger function, locally too);
- the user pool API's operations the product and its operator use, with Cognito's error types;
- tokens signed as Cognito signs them: RS256, one key pair for ID tokens and one for access tokens,
  each named by its ``kid``; ``discovery`` and ``jwks`` are what Cognito serves at
  ``<issuer>/.well-known/openid-configuration`` and ``<issuer>/.well-known/jwks.json``;
- Cognito's lockout: five wrong passwords (or emailed codes, or TOTP codes: each kind counted on its
  own) for an account, then it is locked for 1 s, doubling with each further wrong one up to 15
  minutes; tries while locked are refused ("Password attempts exceeded") and not counted; a success
  after a lockout, or 15 minutes without a try, starts the count again
  (https://docs.aws.amazon.com/cognito/latest/developerguide/authentication.html, lockout behavior;
  https://docs.aws.amazon.com/cognito/latest/developerguide/user-pool-settings-mfa.html for MFA codes).
  Everything is counted per account, whichever of its names (email, sub) a request gives, and a TOTP
  code is taken once;
- no answer or message tells whether an account has a name: a name with no account is answered, and
  limited, as an account that has nothing to send to would be (PreventUserExistenceErrors, "Managing
  user existence error responses"), except SignUp's UsernameExistsException, which Cognito gives too.

Reference: https://docs.aws.amazon.com/cognito/latest/developerguide/federation-endpoints.html
(authorize, token, revoke, logout, userInfo) and the Amazon Cognito user pools API reference.
"""

from __future__ import annotations

import base64
import hmac
import re
import secrets
import sys
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from alleycat.edge.contract import ADMIN_GROUP
from stacks.settings import PASSWORD_MIN_LENGTH, PASSWORD_REQUIRES

from .auth import JwtAuthorizer, SigningKey, s256, totp_step

POOL_NAME = "alleycatlocal"  # the pool id is "<region>_alleycatlocal", as Cognito prefixes ids with their region
CLIENT_ID = "alleycatlocalclient"
ADMIN_SCOPE = "aws.cognito.signin.user.admin"
SCOPES = ("openid", "email", "profile", ADMIN_SCOPE)
GROUPS = (ADMIN_GROUP,)
ACCESS_SECONDS = 3600  # the app client's access and ID token validity (stacks/users.py)
REFRESH_SECONDS = 30 * 86400
CODE_SECONDS = 300  # an authorization code is good for five minutes
TOOL_TOKEN_SECONDS = 12 * 3600  # POST /local/token: a simulator's whole session
RESET_CODE_SECONDS = 3600  # a ForgotPassword code: "valid for one hour" (Recovering user accounts)
# "In a given hour, we allow between 5 and 20 attempts for a user to request or enter a password reset
# code" (Recovering user accounts, forgot password behavior): the stand-in allows the fewest requests.
RESET_REQUESTS_PER_HOUR = 5
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
FREE_FAILURES = 5  # wrong passwords (or codes) before Cognito's lockout starts
LONGEST_LOCKOUT_SECONDS = 15 * 60
QUIET_RESET_SECONDS = 15 * 60  # no try for this long: the count starts again


class CognitoError(Exception):
    """An error as the user pool API answers it: 400 with ``__type`` and ``message``."""

    def __init__(self, kind: str, message: str, status: int = 400):
        super().__init__(message)
        self.kind, self.message, self.status = kind, message, status


@dataclass(frozen=True)
class PasswordRule:
    """One rule of the pool's password policy: as managed login lists it, and as Cognito refuses a password."""
    label: str
    refusal: str  # InvalidPasswordException's words for a password that breaks it
    pattern: str = ""  # a character the password must have; empty: the length rule

    def met_by(self, password: str) -> bool:
        return bool(re.search(self.pattern, password)) if self.pattern else len(password) >= PASSWORD_MIN_LENGTH


# How Cognito checks each kind of character a policy can require, in its words. The symbols are the
# documented set, the space among them ("Adding user pool password requirements").
SYMBOLS = "^ $ * . [ ] { } ( ) ? \" ! @ # % & / \\ , > < ' : ; | _ ~ ` = + -"
CHARACTER_RULES = {
    "lowercase": PasswordRule("At least 1 lowercase letter", "Password must have lowercase characters", r"[a-z]"),
    "uppercase": PasswordRule("At least 1 uppercase letter", "Password must have uppercase characters", r"[A-Z]"),
    "numbers": PasswordRule("At least 1 number", "Password must have numeric characters", r"[0-9]"),
    "symbols": PasswordRule(f"At least 1 special character or a space: {SYMBOLS}", "Password must have symbol characters",
                            "[" + re.escape(SYMBOLS.replace(" ", "")) + " ]"),
}
# The pool's policy, from the one place it is declared (stacks/settings.py), which the deployed pool's is built from.
PASSWORD_RULES = (PasswordRule(f"At least {PASSWORD_MIN_LENGTH} characters", "Password not long enough"),
                  *(CHARACTER_RULES[kind] for kind in PASSWORD_REQUIRES))


def password_failures(password: str) -> list[PasswordRule]:
    """The rules of the pool's policy ``password`` breaks, in the order managed login lists them."""
    return [rule for rule in PASSWORD_RULES if not rule.met_by(password)]


def password_problem(password: str) -> str | None:
    """Why the pool's policy refuses ``password``, as Cognito's InvalidPasswordException says it (the
    first rule broken), or None."""
    failures = password_failures(password)
    return f"Password did not conform with policy: {failures[0].refusal}" if failures else None


def masked(email: str) -> str:
    """An address as Cognito's CodeDeliveryDetails shows it: ``a***@e***``."""
    local, _, domain = email.partition("@")
    return f"{local[:1]}***@{domain[:1]}***"


@dataclass
class Attempts:
    """Wrong tries of one kind (passwords, emailed codes) against one account, as Cognito counts them."""
    failures: int = 0
    locked_until: float = 0.0
    last: float | None = None

    def locked(self, now: float) -> bool:
        """True while locked out (the try is refused and not counted); every try counts as activity."""
        if self.last is not None and now - self.last >= QUIET_RESET_SECONDS:
            self.failures, self.locked_until = 0, 0.0
        self.last = now
        return now < self.locked_until

    def failed(self, now: float) -> None:
        self.failures += 1
        if self.failures >= FREE_FAILURES:
            self.locked_until = now + min(2 ** (self.failures - FREE_FAILURES), LONGEST_LOCKOUT_SECONDS)

    def succeeded(self) -> None:
        self.failures, self.locked_until = 0, 0.0


@dataclass
class Guard:
    """What the pool counts against one account, whichever of its names (email or sub) a request gives;
    for a name no account has, the same, kept by that name, so that no answer tells the two apart."""
    passwords: Attempts = field(default_factory=Attempts)
    codes: Attempts = field(default_factory=Attempts)  # emailed codes: a sign-up's, a password reset's
    totp_codes: Attempts = field(default_factory=Attempts)  # sign-ins' and VerifySoftwareToken's, all together
    reset_requests: list[float] = field(default_factory=list)  # ForgotPassword requests: when
    reset_asked: float | None = None  # the last ForgotPassword answered, a code sent or not


@dataclass
class User:
    sub: str
    email: str
    password: str
    status: str  # UNCONFIRMED, CONFIRMED or FORCE_CHANGE_PASSWORD, as Cognito names them
    created: float
    groups: set[str] = field(default_factory=set)
    confirmation: str | None = None
    totp_secret: str | None = None  # associated, not yet verified
    totp: str | None = None  # verified
    totp_enabled: bool = False
    totp_last_step: int = -1  # the time step of the last TOTP code taken: its code, and older ones, are spent
    guard: Guard = field(default_factory=Guard)
    reset_code: str | None = None  # the last ForgotPassword code sent, good for RESET_CODE_SECONDS from guard.reset_asked

    @property
    def attributes(self) -> list[dict]:
        return [{"Name": "sub", "Value": self.sub}, {"Name": "email", "Value": self.email},
                {"Name": "email_verified", "Value": "true" if self.status != "UNCONFIRMED" else "false"}]

    @property
    def mfa(self) -> dict:
        return {"PreferredMfaSetting": "SOFTWARE_TOKEN_MFA", "UserMFASettingList": ["SOFTWARE_TOKEN_MFA"]} if self.totp_enabled else {}


@dataclass(frozen=True)
class Grant:
    """What an authorization code or a refresh token stands for."""
    user: str  # sub
    client_id: str
    expires: float
    redirect_uri: str = ""
    challenge: str = ""
    scope: str = ""
    origin: str = ""  # a refresh grant's id: its tokens' origin_jti, what revoking it invalidates
    auth_time: int = 0  # when the user signed in: every token of the grant says so, refreshed ones too
    nonce: str = ""  # the authorize request's OIDC nonce, echoed in the ID token it gets


class UserPool:
    def __init__(self, clock, *, client_id: str = CLIENT_ID, region: str = "us-east-1",
                 issuer_url: str = "", pre_token: Callable[[dict], dict] | None = None,
                 access_seconds: int = ACCESS_SECONDS):
        self.clock, self.client_id, self.region = clock, client_id, region
        self.pool_id = f"{region}_{POOL_NAME}"
        self.issuer = f"{issuer_url.rstrip('/')}/{self.pool_id}"
        self.pre_token = pre_token
        self.access_seconds = access_seconds
        self.keys = {"id": SigningKey(), "access": SigningKey()}  # Cognito's JWKS: one key per token kind
        self.domain = ""  # managed login's origin (the OAuth 2.0 endpoints): set by the server that serves it
        # The user pool API checks its own access tokens: the same checks, on the keys it holds.
        self._own_tokens = JwtAuthorizer(lambda: self.issuer, (client_id,), clock.now, fetch=self.well_known)
        self.outbox: list[tuple[str, str]] = []  # (email, code or temporary password) Cognito would send
        self._users: dict[str, User] = {}  # by sub
        self._codes: dict[str, Grant] = {}
        self._refresh: dict[str, Grant] = {}
        self._revoked: set[str] = set()  # refresh grants whose access tokens Cognito's own API refuses
        self._strangers: dict[str, Guard] = {}  # by a name no account has: what its requests spent
        self._simulation_key = secrets.token_bytes(16)  # simulated destinations of names that are not addresses
        self._lock = threading.RLock()

    # --- accounts -------------------------------------------------------------------------------

    def find(self, username: str) -> User | None:
        key = username.strip().lower()
        return self._users.get(username) or next((user for user in self._users.values() if user.email == key), None)

    def _guard(self, name: str) -> tuple[User | None, Guard]:
        """The account ``name`` names and what is counted against it; for none, what is counted against the name."""
        user = self.find(name)
        return (user, user.guard) if user else (None, self._strangers.setdefault(name.strip().lower(), Guard()))

    def user(self, username: str) -> User:
        found = self.find(username)
        if not found:
            raise CognitoError("UserNotFoundException", "User does not exist.")
        return found

    def sign_up(self, email: str, password: str) -> User:
        email = email.strip().lower()
        if not EMAIL.fullmatch(email):
            raise CognitoError("InvalidParameterException", "Invalid email address format.")
        problem = password_problem(password)
        if problem:
            raise CognitoError("InvalidPasswordException", problem)
        with self._lock:
            if self.find(email):
                raise CognitoError("UsernameExistsException", "An account with the given email already exists.")
            code = f"{secrets.randbelow(10**6):06d}"
            user = User(str(uuid.uuid4()), email, password, "UNCONFIRMED", self.clock.now(), confirmation=code,
                        guard=self._strangers.pop(email, Guard()))
            self._users[user.sub] = user
        self._send(email, code)
        return user

    def confirm(self, email: str, code: str) -> User:
        """ConfirmSignUp. A name with no account, or an account with no sign-up to confirm, has no code
        that matches: CodeMismatchException, counted as any wrong code is (no answer tells them apart)."""
        with self._lock:
            user, guard = self._guard(email)
            now = self.clock.now()
            if guard.codes.locked(now):
                raise CognitoError("LimitExceededException", "Attempt limit exceeded, please try after some time.")
            if (not user or user.status != "UNCONFIRMED" or not code
                    or not hmac.compare_digest(code.strip().encode(), (user.confirmation or "").encode())):
                guard.codes.failed(now)
                raise CognitoError("CodeMismatchException", "Invalid verification code provided, please try again.")
            guard.codes.succeeded()
            user.status, user.confirmation = "CONFIRMED", None
            return user

    def create_user(self, email: str, temporary_password: str | None = None, suppress: bool = False) -> User:
        """AdminCreateUser: a confirmed, verified email and a temporary password to change at first sign-in."""
        email = email.strip().lower()
        if not EMAIL.fullmatch(email):
            raise CognitoError("InvalidParameterException", "Invalid email address format.")
        password = temporary_password or f"Tmp-{secrets.token_urlsafe(9)}7a"
        with self._lock:
            if self.find(email):
                raise CognitoError("UsernameExistsException", "User account already exists.")
            user = User(str(uuid.uuid4()), email, password, "FORCE_CHANGE_PASSWORD", self.clock.now(),
                        guard=self._strangers.pop(email, Guard()))
            self._users[user.sub] = user
        if not suppress:
            self._send(email, password)
        return user

    def add_to_group(self, username: str, group: str) -> None:
        if group not in GROUPS:
            raise CognitoError("ResourceNotFoundException", "Group not found.")
        self.user(username).groups.add(group)

    def authenticate(self, email: str, password: str) -> User:
        """A name with no account is locked out as an account would be: the lockout says nothing either."""
        with self._lock:
            user, guard = self._guard(email)
            now = self.clock.now()
            if guard.passwords.locked(now):
                raise CognitoError("NotAuthorizedException", "Password attempts exceeded")
            if not user or not hmac.compare_digest(user.password.encode(), password.encode()):
                guard.passwords.failed(now)
                raise CognitoError("NotAuthorizedException", "Incorrect username or password.")
            guard.passwords.succeeded()
        if user.status == "UNCONFIRMED":
            raise CognitoError("UserNotConfirmedException", "User is not confirmed.")
        return user

    def set_password(self, user: User, password: str) -> None:
        problem = password_problem(password)
        if problem:
            raise CognitoError("InvalidPasswordException", problem)
        user.password, user.status = password, "CONFIRMED"

    def forgot_password(self, username: str) -> dict:
        """ForgotPassword: a code by email to a confirmed account's verified address; its CodeDeliveryDetails.

        The app client prevents user existence errors (PreventUserExistenceErrors ENABLED, stacks/users.py):
        for a name with no account, or an account without a verified address to send to (an unconfirmed
        sign-up), Cognito sends nothing and answers the same, with a simulated destination
        ("Managing user existence error responses"). Nor does it reset the password of an operator's new
        admin who has not yet replaced the temporary one (FORCE_CHANGE_PASSWORD: "users can't use the
        ForgotPassword API", https://repost.aws/knowledge-center/cognito-forgot-password).

        The destination is made from the name given, never from the account: an address masked, any other
        name (a sub) a masked address simulated from it, the same whether an account has it or not (Cognito
        would show the account's own address, masked, for its sub). Requests are limited per account,
        whichever of its names they give, and per name for a name no account has
        ("Recovering user accounts": 5 to 20 an hour "for a user")."""
        name, now = username.strip().lower(), self.clock.now()
        if not name:
            raise CognitoError("InvalidParameterException", "Username cannot be empty.")
        with self._lock:
            user, guard = self._guard(name)
            recent = [at for at in guard.reset_requests if now - at < 3600]
            if len(recent) >= RESET_REQUESTS_PER_HOUR:
                raise CognitoError("LimitExceededException", "Attempt limit exceeded, please try after some time.")
            guard.reset_requests, guard.reset_asked = [*recent, now], now
            if user and user.status == "CONFIRMED":
                user.reset_code = f"{secrets.randbelow(10**6):06d}"
                self._send(user.email, user.reset_code)
        return {"Destination": self._destination(name), "DeliveryMedium": "EMAIL", "AttributeName": "email"}

    def _destination(self, name: str) -> str:
        if EMAIL.fullmatch(name):
            return masked(name)
        digest = hmac.digest(self._simulation_key, name.encode(), "sha256")
        letters = "abcdefghijklmnopqrstuvwxyz"
        return masked(f"{letters[digest[0] % 26]}@{letters[digest[1] % 26]}")

    def confirm_forgot_password(self, username: str, code: str, password: str) -> User:
        """ConfirmForgotPassword: the emailed code and a new password. ExpiredCodeException when no code
        was asked for within the hour (or the one asked for is spent), CodeMismatchException for a wrong
        one, as Cognito answers an account; wrong codes count toward the lockout, as the sign-up's do. A
        name with no account is answered as an account that asked and was sent nothing (Cognito documents
        CodeMismatchException for it even when no code was asked for, which an account without a request
        answers with ExpiredCodeException: the two would tell them apart). A code is good once; a password
        the policy refuses leaves it good."""
        with self._lock:
            user, guard = self._guard(username)
            now = self.clock.now()
            if guard.codes.locked(now):
                raise CognitoError("LimitExceededException", "Attempt limit exceeded, please try after some time.")
            if guard.reset_asked is None or now - guard.reset_asked >= RESET_CODE_SECONDS:
                raise CognitoError("ExpiredCodeException", "Invalid code provided, please request a code again.")
            if not user or not user.reset_code or not hmac.compare_digest(code.strip().encode(), user.reset_code.encode()):
                guard.codes.failed(now)
                raise CognitoError("CodeMismatchException", "Invalid verification code provided, please try again.")
            problem = password_problem(password)
            if problem:
                raise CognitoError("InvalidPasswordException", problem)
            guard.codes.succeeded()
            guard.reset_asked = None
            user.password, user.reset_code = password, None
            return user

    def check_totp(self, user: User, code: str) -> None:
        """A sign-in's TOTP code. Wrong codes count toward the account's lockout across sign-ins, and only
        a code taken ends the count (a right password does not): "After five unsuccessful attempts to present
        an MFA code, Amazon Cognito begins the exponential-timeout lockout process" (Adding MFA to a user
        pool). A code is taken once (RFC 6238 5.2), and none of an earlier step after it."""
        with self._lock:
            self._take_totp(user, user.totp, code, CognitoError("CodeMismatchException", "Invalid code received for user"))

    def _take_totp(self, user: User, secret: str | None, code: str, wrong: CognitoError) -> None:
        now, tries = self.clock.now(), user.guard.totp_codes
        if tries.locked(now):
            raise CognitoError("NotAuthorizedException", "Password attempts exceeded")
        step = totp_step(secret, code.strip(), now) if secret else None
        if step is None:
            tries.failed(now)
            raise wrong
        if step <= user.totp_last_step:
            raise CognitoError("ExpiredCodeException", "Your software token has already been used once.")
        user.totp_last_step = step
        tries.succeeded()

    def _send(self, email: str, code: str) -> None:
        self.outbox.append((email, code))
        sys.stderr.write(f"(local user pool) the email Cognito would send to {email}: {code}\n")

    # --- the authorization code grant and tokens ------------------------------------------------

    def code_for(self, user: User, redirect_uri: str, challenge: str, scope: str, nonce: str = "") -> str:
        code = str(uuid.uuid4())
        self._codes[code] = Grant(user.sub, self.client_id, self.clock.now() + CODE_SECONDS, redirect_uri, challenge, scope,
                                  auth_time=int(self.clock.now()), nonce=nonce)
        return code

    def exchange(self, form: dict[str, str]) -> dict:
        """The token endpoint: ``{"error": ...}`` as OAuth answers a bad request, else the tokens."""
        if form.get("client_id") != self.client_id:
            return {"error": "invalid_client"}
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            with self._lock:
                grant = self._codes.pop(form.get("code", ""), None)  # a code is good once, right or wrong
            if (not grant or grant.expires <= self.clock.now() or grant.redirect_uri != form.get("redirect_uri")
                    or (grant.challenge and not hmac.compare_digest(s256(form.get("code_verifier", "")), grant.challenge))):
                return {"error": "invalid_grant"}
            refresh = secrets.token_urlsafe(48)
            session = Grant(grant.user, grant.client_id, self.clock.now() + REFRESH_SECONDS, scope=grant.scope,
                            origin=str(uuid.uuid4()), auth_time=grant.auth_time)
            self._refresh[refresh] = session
            return {**self._tokens(self._users[grant.user], session, "TokenGeneration_HostedAuth", grant.nonce),
                    "refresh_token": refresh}
        if grant_type == "refresh_token":
            token = form.get("refresh_token", "")
            grant = self._refresh.get(token)
            if not grant or grant.expires <= self.clock.now() or grant.user not in self._users:
                return {"error": "invalid_grant"}
            return self._tokens(self._users[grant.user], grant, "TokenGeneration_RefreshTokens")
        return {"error": "unsupported_grant_type"}

    def revoke(self, token: str, client_id: str) -> str | None:
        """The revoke endpoint: None, or the OAuth error."""
        if client_id != self.client_id:
            return "invalid_client"
        grant = self._refresh.pop(token, None)
        if grant:
            self._revoked.add(grant.origin)
        return None

    def _tokens(self, user: User, session: Grant, source: str, nonce: str = "") -> dict:
        groups = self._groups_after_trigger(user, source)
        now = int(self.clock.now())
        common = {"sub": user.sub, "iss": self.issuer, "iat": now, "auth_time": session.auth_time, "exp": now + self.access_seconds,
                  "origin_jti": session.origin, **({"cognito:groups": groups} if groups else {})}
        access = {**common, "token_use": "access", "scope": session.scope, "client_id": self.client_id, "username": user.sub,
                  "jti": str(uuid.uuid4())}
        identity = {**common, "token_use": "id", "aud": self.client_id, "cognito:username": user.sub,
                    "email": user.email, "email_verified": True, "jti": str(uuid.uuid4()), **({"nonce": nonce} if nonce else {})}
        return {"access_token": self.keys["access"].sign(access), "id_token": self.keys["id"].sign(identity),
                "token_type": "Bearer", "expires_in": self.access_seconds}

    def _groups_after_trigger(self, user: User, source: str) -> list[str]:
        """The user's groups, as the pre-token-generation trigger leaves them (event version 2: its
        group override applies to the ID and the access token alike)."""
        groups = sorted(user.groups)
        if not self.pre_token:
            return groups
        event = {"version": "2", "triggerSource": source, "region": self.region, "userPoolId": self.pool_id,
                 "userName": user.sub, "callerContext": {"awsSdkVersion": "local", "clientId": self.client_id},
                 "request": {"userAttributes": {attribute["Name"]: attribute["Value"] for attribute in user.attributes},
                             "groupConfiguration": {"groupsToOverride": groups, "iamRolesToOverride": [],
                                                    "preferredRole": None},
                             "scopes": sorted(SCOPES)},
                 "response": {"claimsAndScopeOverrideDetails": None}}
        details = (self.pre_token(event).get("response") or {}).get("claimsAndScopeOverrideDetails") or {}
        override = details.get("groupOverrideDetails")
        return list(override["groupsToOverride"]) if override else groups

    def tool_token(self, sub: str, groups: list[str]) -> str:
        """``POST /local/token``: an access token for any racer id, for tools and tests (not in AWS), signed
        and scoped as a managed-login sign-in's."""
        now = int(self.clock.now())
        return self.keys["access"].sign({
            "sub": sub, "iss": self.issuer, "token_use": "access", "client_id": self.client_id, "scope": " ".join(SCOPES),
            "username": sub, "auth_time": now, "iat": now, "exp": now + TOOL_TOKEN_SECONDS, "jti": str(uuid.uuid4()),
            **({"cognito:groups": list(groups)} if groups else {})})

    # --- what Cognito publishes at the issuer -----------------------------------------------------

    @property
    def jwks(self) -> dict:
        return {"keys": [key.jwk for key in self.keys.values()]}

    @property
    def discovery(self) -> dict:
        """The OpenID Connect discovery document, with the fields Cognito's has: the issuer and its JWKS
        at the issuer, the OAuth 2.0 endpoints at the user pool domain (managed login)."""
        return {"authorization_endpoint": f"{self.domain}/oauth2/authorize", "end_session_endpoint": f"{self.domain}/logout",
                "id_token_signing_alg_values_supported": ["RS256"], "issuer": self.issuer,
                "jwks_uri": f"{self.issuer}/.well-known/jwks.json", "response_types_supported": ["code", "token"],
                "revocation_endpoint": f"{self.domain}/oauth2/revoke", "scopes_supported": list(SCOPES),
                "subject_types_supported": ["public"], "token_endpoint": f"{self.domain}/oauth2/token",
                "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
                "userinfo_endpoint": f"{self.domain}/oauth2/userInfo"}

    def well_known(self, url: str) -> dict:
        """``discovery`` or ``jwks`` by their URL at the issuer (KeyError for any other)."""
        documents = {f"{self.issuer}/.well-known/openid-configuration": self.discovery,
                     f"{self.issuer}/.well-known/jwks.json": self.jwks}
        return documents[url]

    # --- the user pool API ----------------------------------------------------------------------

    def _caller(self, request: dict, scope: str = ADMIN_SCOPE) -> User:
        """The user an ``AccessToken`` stands for, as Cognito's own API checks it (revocation too)."""
        claims, _ = self._own_tokens.verify(str(request.get("AccessToken", "")))
        if not claims or claims.get("token_use") != "access":
            raise CognitoError("NotAuthorizedException", "Invalid Access Token")
        if claims.get("origin_jti") in self._revoked:
            raise CognitoError("NotAuthorizedException", "Access Token has been revoked")
        if scope not in claims.get("scope", "").split():
            raise CognitoError("NotAuthorizedException", "Access Token does not have required scopes")
        user = self._users.get(claims["sub"])
        if not user:
            raise CognitoError("UserNotFoundException", "User does not exist.")
        return user

    def _pool(self, request: dict) -> None:
        if request.get("UserPoolId") != self.pool_id:
            raise CognitoError("ResourceNotFoundException", f"User pool {request.get('UserPoolId')} does not exist.")

    def _described(self, user: User) -> dict:
        return {"Username": user.sub, "UserCreateDate": user.created, "UserLastModifiedDate": user.created,
                "Enabled": True, "UserStatus": user.status}

    def call(self, operation: str, request: dict, signed: bool) -> dict:
        """One user pool API operation. ``signed``: the request carried a valid SigV4 signature."""
        public = {"GetUser": self._get_user, "AssociateSoftwareToken": self._associate,
                  "VerifySoftwareToken": self._verify, "SetUserMFAPreference": self._preference,
                  "ForgotPassword": self._forgot, "ConfirmForgotPassword": self._confirm_forgot}
        operator = {"AdminCreateUser": self._admin_create, "AdminAddUserToGroup": self._admin_add,
                    "AdminGetUser": self._admin_get}
        if operation in public:
            with self._lock:
                return public[operation](request)
        if operation in operator:
            if not signed:
                raise CognitoError("MissingAuthenticationTokenException", "Missing Authentication Token", 403)
            self._pool(request)
            with self._lock:
                return operator[operation](request)
        raise CognitoError("UnknownOperationException", f"{operation} is not served by the local user pool")

    def _get_user(self, request: dict) -> dict:
        user = self._caller(request)
        return {"Username": user.sub, "UserAttributes": user.attributes, **user.mfa}

    def _associate(self, request: dict) -> dict:
        user = self._caller(request)
        user.totp_secret = base64.b32encode(secrets.token_bytes(20)).decode().rstrip("=")
        return {"SecretCode": user.totp_secret}

    def _verify(self, request: dict) -> dict:
        user = self._caller(request)
        if not user.totp_secret:
            raise CognitoError("InvalidParameterException", "User has not associated a software token.")
        # Its codes are counted and spent as a sign-in's: the code that turns TOTP on cannot also sign in
        self._take_totp(user, user.totp_secret, str(request.get("UserCode", "")),
                        CognitoError("EnableSoftwareTokenMFAException", "Code mismatch"))
        user.totp, user.totp_secret = user.totp_secret, None
        return {"Status": "SUCCESS"}

    def _preference(self, request: dict) -> dict:
        user = self._caller(request)
        settings = request.get("SoftwareTokenMfaSettings") or {}
        if settings.get("Enabled") and not user.totp:
            raise CognitoError("InvalidParameterException", "User has not verified software token mfa")
        if "Enabled" in settings:
            user.totp_enabled = bool(settings["Enabled"])
        return {}

    def _client(self, request: dict) -> None:
        if request.get("ClientId") != self.client_id:
            raise CognitoError("ResourceNotFoundException", f"User pool client {request.get('ClientId')} does not exist.")

    def _forgot(self, request: dict) -> dict:
        self._client(request)
        return {"CodeDeliveryDetails": self.forgot_password(str(request.get("Username", "")))}

    def _confirm_forgot(self, request: dict) -> dict:
        self._client(request)
        self.confirm_forgot_password(str(request.get("Username", "")), str(request.get("ConfirmationCode", "")),
                                     str(request.get("Password", "")))
        return {}

    def _admin_create(self, request: dict) -> dict:
        attributes = {item["Name"]: item["Value"] for item in request.get("UserAttributes") or []}
        email = attributes.get("email") or str(request.get("Username", ""))
        user = self.create_user(email, request.get("TemporaryPassword"), request.get("MessageAction") == "SUPPRESS")
        return {"User": {**self._described(user), "Attributes": user.attributes}}

    def _admin_add(self, request: dict) -> dict:
        self.add_to_group(str(request.get("Username", "")), str(request.get("GroupName", "")))
        return {}

    def _admin_get(self, request: dict) -> dict:
        user = self.user(str(request.get("Username", "")))
        return {**self._described(user), "UserAttributes": user.attributes, **user.mfa}

    def user_info(self, token: str) -> dict:
        user = self._caller({"AccessToken": token}, scope="openid")
        return {"sub": user.sub, "email": user.email, "email_verified": "true", "username": user.sub}
