"""The local user pool's lifetimes and rules on a clock the test moves: a code's five minutes, a
token's hour, a refresh token's thirty days, the password policy, the trigger's word on groups,
Cognito's lockout after wrong passwords and codes, the OIDC nonce."""

from __future__ import annotations

import re
import uuid

import jwt
import pytest

from local.auth import TOTP_STEP, JwtAuthorizer, s256, totp
from local.userpool import (
    ACCESS_SECONDS,
    CODE_SECONDS,
    REFRESH_SECONDS,
    CognitoError,
    UserPool,
    password_failures,
    password_problem,
)

VERIFIER = "v" * 64
SITE = "http://127.0.0.1:3000/"


class Clock:
    def __init__(self):
        self.at = 1_800_000_000.0

    def now(self):
        return self.at


@pytest.fixture
def clock():
    return Clock()


def signed_up(pool: UserPool, email="ann@example.com"):
    pool.sign_up(email, "Long-enough-pw1")
    return pool.confirm(email, pool.outbox[-1][1])


def authorize(pool: UserPool, token: str) -> dict | None:
    """What the API's JWT authorizer accepts, the pool's keys found through its discovery document."""
    return JwtAuthorizer(pool.issuer, (pool.client_id,), pool.clock.now, fetch=pool.well_known).verify(token)[0]


def tokens(pool: UserPool, user, nonce: str = "") -> dict:
    code = pool.code_for(user, SITE, s256(VERIFIER), "openid aws.cognito.signin.user.admin", nonce)
    return pool.exchange({"grant_type": "authorization_code", "client_id": pool.client_id, "code": code,
                          "redirect_uri": SITE, "code_verifier": VERIFIER})


def test_a_code_expires_after_five_minutes(clock):
    pool = UserPool(clock)
    code = pool.code_for(signed_up(pool), SITE, s256(VERIFIER), "openid")
    clock.at += CODE_SECONDS
    assert pool.exchange({"grant_type": "authorization_code", "client_id": pool.client_id, "code": code,
                          "redirect_uri": SITE, "code_verifier": VERIFIER}) == {"error": "invalid_grant"}


def test_the_authorizer_refuses_an_access_token_after_its_hour_and_a_refresh_gives_a_new_one(clock):
    pool = UserPool(clock)
    first = tokens(pool, signed_up(pool))
    assert authorize(pool, first["access_token"])["sub"]
    clock.at += ACCESS_SECONDS
    assert authorize(pool, first["access_token"]) is None
    refreshed = pool.exchange({"grant_type": "refresh_token", "client_id": pool.client_id,
                               "refresh_token": first["refresh_token"]})
    assert authorize(pool, refreshed["access_token"])["sub"] == pool.find("ann@example.com").sub


def test_a_refresh_token_lasts_thirty_days(clock):
    pool = UserPool(clock)
    first = tokens(pool, signed_up(pool))
    refresh = {"grant_type": "refresh_token", "client_id": pool.client_id, "refresh_token": first["refresh_token"]}
    clock.at += REFRESH_SECONDS - 1
    assert "access_token" in pool.exchange(refresh)
    clock.at += 1
    assert pool.exchange(refresh) == {"error": "invalid_grant"}


def test_another_clients_or_pools_tokens_are_not_accepted(clock):
    pool, other = UserPool(clock), UserPool(clock, client_id="someone-else")
    assert authorize(pool, other.tool_token("ann", [])) is None
    assert pool.exchange({"grant_type": "refresh_token", "client_id": "someone-else", "refresh_token": "x"}) == {
        "error": "invalid_client"}


def test_the_password_policy_refuses_in_cognitos_words_and_names_every_rule_broken():
    # Cognito's InvalidPasswordException messages ("Password did not conform with policy: ...")
    assert password_problem("Long-enough-pw1") is None
    assert password_problem("Longenoughpw12") == "Password did not conform with policy: Password must have symbol characters"
    assert password_problem("Sh0rt-pw") == "Password did not conform with policy: Password not long enough"
    # The space is one of Cognito's special characters ("Adding user pool password requirements")
    assert password_problem("Long enough pw1") is None
    labels = [rule.label for rule in password_failures("short")]
    assert labels[:3] == ["At least 12 characters", "At least 1 uppercase letter", "At least 1 number"]
    assert labels[3].startswith("At least 1 special character") and len(labels) == 4


# --- a forgotten password (ForgotPassword, ConfirmForgotPassword) --------------------------------------

def test_a_forgotten_password_is_reset_with_the_emailed_code_and_the_old_one_stops_working(clock):
    pool = UserPool(clock)
    signed_up(pool)
    sent = pool.forgot_password("Ann@Example.com")
    assert sent == {"Destination": "a***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    to, code = pool.outbox[-1]
    assert to == "ann@example.com" and re.fullmatch(r"\d{6}", code)
    with pytest.raises(CognitoError) as weak:
        pool.confirm_forgot_password("ann@example.com", code, "weak")
    assert weak.value.kind == "InvalidPasswordException"
    pool.confirm_forgot_password("ann@example.com", code, "New-long-pass-2")  # the refused password left it good
    assert pool.authenticate("ann@example.com", "New-long-pass-2").email == "ann@example.com"
    with pytest.raises(CognitoError, match="Incorrect username or password"):
        pool.authenticate("ann@example.com", "Long-enough-pw1")
    with pytest.raises(CognitoError) as spent:
        pool.confirm_forgot_password("ann@example.com", code, "Another-long-pw3")
    assert spent.value.kind == "ExpiredCodeException"


def test_a_reset_code_is_good_for_an_hour_and_a_wrong_one_is_refused(clock):
    pool = UserPool(clock)
    signed_up(pool)
    pool.forgot_password("ann@example.com")
    code = pool.outbox[-1][1]
    with pytest.raises(CognitoError) as wrong:
        pool.confirm_forgot_password("ann@example.com", "000000" if code != "000000" else "111111", "New-long-pass-2")
    assert wrong.value.kind == "CodeMismatchException"
    clock.at += 3600  # "The recovery code is valid for one hour"
    with pytest.raises(CognitoError) as expired:
        pool.confirm_forgot_password("ann@example.com", code, "New-long-pass-2")
    assert expired.value.kind == "ExpiredCodeException"
    # A new code replaces it
    pool.forgot_password("ann@example.com")
    clock.at += 3599
    pool.confirm_forgot_password("ann@example.com", pool.outbox[-1][1], "New-long-pass-2")


def test_no_answer_tells_whether_an_account_exists_and_only_a_confirmed_one_gets_a_code(clock):
    pool = UserPool(clock)
    pool.sign_up("un@example.com", "Long-enough-pw1")  # never confirmed: its address is not verified
    pool.create_user("op@example.com")  # an operator's, temporary password not yet replaced
    mails = len(pool.outbox)
    answers = {name: pool.forgot_password(name) for name in ("un@example.com", "op@example.com", "nobody@example.com")}
    assert len(pool.outbox) == mails, "nothing is sent to an unverified address, nor to no one"
    assert {tuple(sorted(answer)) for answer in answers.values()} == {("AttributeName", "DeliveryMedium", "Destination")}
    assert answers["nobody@example.com"] == {"Destination": "n***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    # ConfirmForgotPassword for no account: CodeMismatchException, as for a wrong code
    with pytest.raises(CognitoError) as nobody:
        pool.confirm_forgot_password("nobody@example.com", "123456", "New-long-pass-2")
    assert nobody.value.kind == "CodeMismatchException"
    with pytest.raises(CognitoError, match="not confirmed"):
        pool.authenticate("un@example.com", "Long-enough-pw1")


def test_codes_asked_and_wrong_codes_given_are_limited(clock):
    pool = UserPool(clock)
    signed_up(pool)
    # Five requests an hour for a name, whether an account has it or not
    for name in ("ann@example.com", "nobody@example.com"):
        for _ in range(5):
            pool.forgot_password(name)
        with pytest.raises(CognitoError) as limited:
            pool.forgot_password(name)
        assert limited.value.kind == "LimitExceededException"
    code = pool.outbox[-1][1]
    wrong = "000000" if code != "000000" else "111111"
    # Wrong codes count toward the account's lockout (five free), as a sign-up's codes do
    for _ in range(5):
        with pytest.raises(CognitoError, match="Invalid verification code"):
            pool.confirm_forgot_password("ann@example.com", wrong, "New-long-pass-2")
    with pytest.raises(CognitoError) as locked:
        pool.confirm_forgot_password("ann@example.com", code, "New-long-pass-2")
    assert locked.value.kind == "LimitExceededException"
    clock.at += 3600
    pool.forgot_password("ann@example.com")
    pool.confirm_forgot_password("ann@example.com", pool.outbox[-1][1], "New-long-pass-2")


def test_an_unconfirmed_user_cannot_sign_in_and_a_wrong_code_does_not_confirm(clock):
    pool = UserPool(clock)
    pool.sign_up("bo@example.com", "Long-enough-pw1")
    with pytest.raises(CognitoError, match="not confirmed"):
        pool.authenticate("bo@example.com", "Long-enough-pw1")
    with pytest.raises(CognitoError) as wrong:
        pool.confirm("bo@example.com", "not-it")
    assert wrong.value.kind == "CodeMismatchException"
    with pytest.raises(CognitoError) as taken:
        pool.sign_up("BO@example.com", "Long-enough-pw1")
    assert taken.value.kind == "UsernameExistsException"


def test_the_trigger_decides_the_groups_a_token_carries(clock):
    seen = []

    def trigger(event):
        seen.append(event)
        event["response"]["claimsAndScopeOverrideDetails"] = {"groupOverrideDetails": {"groupsToOverride": []}}
        return event

    pool = UserPool(clock, pre_token=trigger)
    user = signed_up(pool)
    pool.add_to_group(user.email, "admin")
    issued = tokens(pool, user)
    assert "cognito:groups" not in authorize(pool, issued["access_token"])
    assert (seen[0]["version"], seen[0]["triggerSource"]) == ("2", "TokenGeneration_HostedAuth")
    assert seen[0]["request"]["groupConfiguration"]["groupsToOverride"] == ["admin"]


def test_the_id_token_echoes_the_nonce_and_each_kind_has_its_own_key(clock):
    pool = UserPool(clock)
    issued = tokens(pool, signed_up(pool), nonce="n-0S6_WzA2Mj")
    identity = jwt.decode(issued["id_token"], options={"verify_signature": False})
    assert identity["nonce"] == "n-0S6_WzA2Mj"
    assert "nonce" not in jwt.decode(issued["access_token"], options={"verify_signature": False})
    kids = {jwt.get_unverified_header(issued[name])["kid"] for name in ("id_token", "access_token")}
    assert len(kids) == 2 and kids == {key["kid"] for key in pool.jwks["keys"]}


def wrong_password(pool, email="ann@example.com"):
    with pytest.raises(CognitoError) as refused:
        pool.authenticate(email, "Wrong-password-1")
    return refused.value.message


def test_five_wrong_passwords_lock_the_account_for_a_second_then_twice_as_long_each_time(clock):
    # Cognito: after five failed attempts, locked for 1 s; then 2^(n-5) s after n failures
    pool = UserPool(clock)
    signed_up(pool)
    for _ in range(5):
        assert wrong_password(pool) == "Incorrect username or password."
    with pytest.raises(CognitoError, match="Password attempts exceeded"):
        pool.authenticate("ann@example.com", "Long-enough-pw1")  # even the right one, while locked
    clock.at += 1
    assert wrong_password(pool) == "Incorrect username or password."  # the sixth: 2 s
    clock.at += 1.9
    assert wrong_password(pool) == "Password attempts exceeded"  # not counted
    clock.at += 0.1
    assert pool.authenticate("ann@example.com", "Long-enough-pw1").email == "ann@example.com"
    # A success starts the count again
    for _ in range(4):
        wrong_password(pool)
    assert pool.authenticate("ann@example.com", "Long-enough-pw1")


def test_the_lockout_stops_growing_at_fifteen_minutes_and_fifteen_quiet_minutes_reset_it(clock):
    pool = UserPool(clock)
    signed_up(pool)
    for _ in range(15):  # 14 minutes apart: each counted (the 14th locks 2^9 s); the 15th would lock 2^10 s
        assert wrong_password(pool) == "Incorrect username or password."
        clock.at += 14 * 60
    assert wrong_password(pool) == "Password attempts exceeded"
    clock.at += 60 + 50  # 15 minutes and 50 s after the 15th failure, 110 s after the last try
    assert wrong_password(pool) == "Incorrect username or password.", "locked for 15 minutes at most"
    clock.at += 15 * 60 - 1
    assert wrong_password(pool) == "Password attempts exceeded"
    clock.at += 15 * 60  # no try for 15 minutes: back to five free tries
    for _ in range(5):
        assert wrong_password(pool) == "Incorrect username or password."


def test_wrong_emailed_codes_are_limited_as_cognito_limits_them(clock):
    pool = UserPool(clock)
    pool.sign_up("cy@example.com", "Long-enough-pw1")
    code = pool.outbox[-1][1]
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(5):
        with pytest.raises(CognitoError) as refused:
            pool.confirm("cy@example.com", wrong)
        assert refused.value.kind == "CodeMismatchException"
    with pytest.raises(CognitoError) as limited:
        pool.confirm("cy@example.com", code)
    assert limited.value.kind == "LimitExceededException"
    clock.at += 1
    assert pool.confirm("cy@example.com", code).status == "CONFIRMED"


# --- what a guesser meets (issue 54): TOTP across sign-ins, a code once, no enumeration, limits per account ---

def with_totp(pool: UserPool, clock, email="ann@example.com"):
    """A confirmed account that turned TOTP on (VerifySoftwareToken took a code); the clock past that code's step."""
    user = signed_up(pool, email)
    token = tokens(pool, user)["access_token"]
    secret = pool.call("AssociateSoftwareToken", {"AccessToken": token}, signed=False)["SecretCode"]
    pool.call("VerifySoftwareToken", {"AccessToken": token, "UserCode": totp(secret, clock.at)}, signed=False)
    pool.call("SetUserMFAPreference", {"AccessToken": token, "SoftwareTokenMfaSettings": {"Enabled": True}}, signed=False)
    clock.at += TOTP_STEP
    return user, secret, token


def refusal(call, *args) -> tuple[str, str]:
    with pytest.raises(CognitoError) as refused:
        call(*args)
    return refused.value.kind, refused.value.message


def not_the(code: str) -> str:
    return "000000" if code != "000000" else "111111"


def test_wrong_totp_codes_count_across_sign_ins_and_a_right_password_does_not_reset_them(clock):
    pool = UserPool(clock)
    user, secret, _ = with_totp(pool, clock)
    # Five wrong codes, one a sign-in, each after the right password: the fifth starts the lockout
    for _ in range(5):
        pool.authenticate("ann@example.com", "Long-enough-pw1")
        assert refusal(pool.check_totp, user, not_the(totp(secret, clock.at)))[0] == "CodeMismatchException"
    pool.authenticate("ann@example.com", "Long-enough-pw1")
    assert refusal(pool.check_totp, user, totp(secret, clock.at)) == ("NotAuthorizedException", "Password attempts exceeded")
    clock.at += 1  # 2^(5-5) s
    assert refusal(pool.check_totp, user, not_the(totp(secret, clock.at)))[0] == "CodeMismatchException"  # the sixth: 2 s
    clock.at += 1.9
    assert refusal(pool.check_totp, user, totp(secret, clock.at))[0] == "NotAuthorizedException"  # not counted
    clock.at += 0.1
    pool.check_totp(user, totp(secret, clock.at))
    # A code taken ends the count: five free again
    clock.at += TOTP_STEP
    for _ in range(4):
        assert refusal(pool.check_totp, user, not_the(totp(secret, clock.at)))[0] == "CodeMismatchException"
    pool.check_totp(user, totp(secret, clock.at))


def test_forty_wrong_codes_take_hours_not_seconds(clock):
    # The finding: 40 wrong codes in 2.6 s, then the right one worked. Now each wrong code past the fourth
    # locks the account for twice as long as the last, up to 15 minutes, and the right code is refused meanwhile
    pool = UserPool(clock)
    user, secret, _ = with_totp(pool, clock)
    start = clock.at
    for wrong in range(1, 41):
        assert refusal(pool.check_totp, user, not_the(totp(secret, clock.at)))[0] == "CodeMismatchException"
        if wrong >= 5:
            lockout = min(2 ** (wrong - 5), 15 * 60)
            clock.at += lockout - 0.5
            assert refusal(pool.check_totp, user, totp(secret, clock.at))[0] == "NotAuthorizedException"
            clock.at += 0.5
    assert clock.at - start > 6.5 * 3600
    pool.check_totp(user, totp(secret, clock.at))


def test_a_totp_code_is_taken_once_and_so_is_the_one_that_turned_totp_on(clock):
    pool = UserPool(clock)
    user = signed_up(pool)
    token = tokens(pool, user)["access_token"]
    secret = pool.call("AssociateSoftwareToken", {"AccessToken": token}, signed=False)["SecretCode"]
    code = totp(secret, clock.at)
    assert pool.call("VerifySoftwareToken", {"AccessToken": token, "UserCode": code}, signed=False) == {"Status": "SUCCESS"}
    used = ("ExpiredCodeException", "Your software token has already been used once.")
    assert refusal(pool.check_totp, user, code) == used
    clock.at += TOTP_STEP
    pool.check_totp(user, totp(secret, clock.at))
    assert refusal(pool.check_totp, user, totp(secret, clock.at)) == used  # the same code, a second sign-in
    assert refusal(pool.check_totp, user, totp(secret, clock.at - TOTP_STEP)) == used  # an older step's, still in the window
    pool.check_totp(user, totp(secret, clock.at + TOTP_STEP))  # the next step's (a phone a little ahead)


def test_verify_software_token_counts_wrong_codes_toward_the_accounts_lockout(clock):
    pool = UserPool(clock)
    user = signed_up(pool)
    token = tokens(pool, user)["access_token"]
    secret = pool.call("AssociateSoftwareToken", {"AccessToken": token}, signed=False)["SecretCode"]

    def verify(code):
        return pool.call("VerifySoftwareToken", {"AccessToken": token, "UserCode": code}, signed=False)

    for _ in range(5):
        assert refusal(verify, not_the(totp(secret, clock.at)))[0] == "EnableSoftwareTokenMFAException"
    assert refusal(verify, totp(secret, clock.at)) == ("NotAuthorizedException", "Password attempts exceeded")
    clock.at += 1
    assert verify(totp(secret, clock.at)) == {"Status": "SUCCESS"}


def transcript(pool: UserPool, clock, name: str) -> list[tuple[str, object]]:
    """What a guesser gets, call by call, asking about ``name``: sign-ins, a sign-up's code, a reset
    asked for and guessed, then the limit on asking; each answer's kind and words (a destination
    without its first letter, which is the name's own)."""
    answers: list[tuple[str, object]] = []

    def answer(call, *args):
        try:
            said = call(*args)
            answers.append(("answered", said["Destination"][1:] if isinstance(said, dict) else None))
        except CognitoError as error:
            answers.append((error.kind, error.message))

    for _ in range(7):
        answer(pool.authenticate, name, "Wrong-password-1")
    for _ in range(7):
        answer(pool.confirm, name, "12345x")
    clock.at += 20  # the lockouts above are over; their counts are not
    answer(pool.confirm_forgot_password, name, "12345x", "New-long-pass-2")  # no code asked for yet
    answer(pool.forgot_password, name)
    for _ in range(3):
        answer(pool.confirm_forgot_password, name, "12345x", "New-long-pass-2")
    for _ in range(5):
        answer(pool.forgot_password, name)
    return answers


def test_no_answer_or_message_tells_an_account_from_a_name_with_none(clock):
    pool = UserPool(clock)
    ann = signed_up(pool, "ann@example.com")
    pool.sign_up("bo@example.com", "Long-enough-pw1")  # unconfirmed
    pool.create_user("cy@example.com")  # an operator's, temporary password not replaced
    nobody = transcript(pool, clock, "nobody@example.com")
    for name in ("ann@example.com", "bo@example.com", "cy@example.com"):
        assert transcript(pool, clock, name) == nobody, name
    assert nobody[:7] == [("NotAuthorizedException", "Incorrect username or password.")] * 5 + [
        ("NotAuthorizedException", "Password attempts exceeded")] * 2
    assert [kind for kind, _ in nobody[7:]] == (["CodeMismatchException"] * 5 + ["LimitExceededException"] * 2
                                                + ["ExpiredCodeException", "answered", "CodeMismatchException"]
                                                + ["LimitExceededException"] * 2 + ["answered"] * 4
                                                + ["LimitExceededException"])
    # A sub (racers' ids are public) and a made-up one: the same shape of destination, and nothing sent
    clock.at += 3600
    mails = len(pool.outbox)
    for name in (ann.sub, str(uuid.uuid4())):
        assert re.fullmatch(r"[a-z]\*\*\*@[a-z]\*\*\*", pool.forgot_password(name)["Destination"])
    assert len(pool.outbox) == mails + 1 and pool.outbox[-1][0] == "ann@example.com"


def test_limits_count_per_account_whichever_name_is_given(clock):
    pool = UserPool(clock)
    ann = signed_up(pool)
    for name in ("ann@example.com", ann.sub, "ANN@example.com ", ann.sub, "ann@example.com"):
        pool.forgot_password(name)
    for name in ("ann@example.com", ann.sub):
        assert refusal(pool.forgot_password, name)[0] == "LimitExceededException"
    # The lockout too: three wrong passwords by address and two by sub lock the account
    for name in ("ann@example.com", ann.sub, "ann@example.com", ann.sub, "ann@example.com"):
        assert refusal(pool.authenticate, name, "Wrong-password-1")[1] == "Incorrect username or password."
    assert refusal(pool.authenticate, ann.sub, "Long-enough-pw1")[1] == "Password attempts exceeded"
