"""What a guesser meets on the local user pool (issue 54): boto3's cognito-idp client against the user pool
API, as an app calls it (unsigned), and managed login's pages over HTTP, as a script would post them. Every
lockout passes on the stack's clock, moved by the test.

- TOTP codes are counted per account across sign-ins, and a right password does not reset the count
  ("After five unsuccessful attempts to present an MFA code, Amazon Cognito begins the exponential-timeout
  lockout process", Cognito Developer Guide, "Adding MFA to a user pool"); VerifySoftwareToken's too.
- A TOTP code is taken once ("Your software token has already been used once.", RFC 6238 5.2).
- No answer tells an account from a name with none (PreventUserExistenceErrors ENABLED, "Managing user
  existence error responses"), the lockout's words included.
- Limits count per account, whichever of its names (email, sub) a request gives.
"""

import uuid

from local.auth import TOTP_STEP, totp

from ..test_user_pool import Browser, PublicClient, sign_in
from .browsing import PASSWORD
from .test_passwords import NEW_PASSWORD, confirmed, error_of, other_than


def app_of(stack) -> PublicClient:
    return PublicClient(stack.users.config, f"{stack.url}/")


def with_totp(stack, idp) -> tuple[str, str]:
    """A confirmed account that turned TOTP on with its access token; (email, the app's secret)."""
    email = confirmed(stack, "totp")
    app = app_of(stack)
    tokens = app.exchange(app.code_from(sign_in(Browser(), app, email, PASSWORD)))[1]
    secret = idp.associate_software_token(AccessToken=tokens["access_token"])["SecretCode"]
    idp.verify_software_token(AccessToken=tokens["access_token"], UserCode=totp(secret, stack.clock.now()))
    idp.set_user_mfa_preference(AccessToken=tokens["access_token"], SoftwareTokenMfaSettings={"Enabled": True})
    stack.clock.advance(TOTP_STEP)  # the app's next code: turning TOTP on took this one's
    return email, secret


def code_step(stack, email: str, code: str) -> tuple[int, str]:
    """A new sign-in with the right password, then ``code`` on its two-step page: (status, page or redirect)."""
    app, browser = app_of(stack), Browser()
    page = sign_in(browser, app, email, PASSWORD)
    assert "Two-step sign-in" in page
    action, hidden = Browser.form(page)
    status, headers, page = browser.go(stack.users.domain + action, {**hidden, "code": code})
    return status, headers.get("Location") or page


def test_wrong_totp_codes_count_across_sign_ins_and_a_code_is_taken_once(stack, idp):
    email, secret = with_totp(stack, idp)
    # Given a guesser who has the password: one wrong code a sign-in, five sign-ins
    for _ in range(5):
        status, page = code_step(stack, email, other_than(totp(secret, stack.clock.now())))
        assert status == 400 and "Invalid code received for user" in page
    # Then the sixth sign-in's right code is refused: the account is locked out, the password reset nothing
    status, page = code_step(stack, email, totp(secret, stack.clock.now()))
    assert status == 400 and "Too many wrong codes: wait a while" in page and 'action="/login"' in page
    # When the lockout (1 s, on the stack's clock) is over, the right code signs in
    stack.clock.advance(1)
    status, location = code_step(stack, email, totp(secret, stack.clock.now()))
    assert status == 302 and location.startswith(f"{stack.url}/?code=")
    # And the same code, within its 30 s, does not sign in again
    status, page = code_step(stack, email, totp(secret, stack.clock.now()))
    assert status == 400 and "That code was used already" in page


def test_verify_software_token_counts_wrong_codes_toward_the_lockout(stack, idp):
    email = confirmed(stack, "verify")
    app = app_of(stack)
    token = app.exchange(app.code_from(sign_in(Browser(), app, email, PASSWORD)))[1]["access_token"]
    secret = idp.associate_software_token(AccessToken=token)["SecretCode"]
    for _ in range(5):
        assert error_of(idp.verify_software_token, AccessToken=token,
                        UserCode=other_than(totp(secret, stack.clock.now()))) == "EnableSoftwareTokenMFAException"
    assert error_of(idp.verify_software_token, AccessToken=token,
                    UserCode=totp(secret, stack.clock.now())) == "NotAuthorizedException"
    stack.clock.advance(1)
    assert idp.verify_software_token(AccessToken=token, UserCode=totp(secret, stack.clock.now()))["Status"] == "SUCCESS"


def guesses(stack, idp, name: str) -> list[str]:
    """A guesser's answers about ``name``: ConfirmForgotPassword before and after ForgotPassword, sign-ins on
    managed login's page with wrong passwords (the last, a lockout's words), and ForgotPassword up to its limit."""
    client_id = stack.users.client_id
    answers = [error_of(idp.confirm_forgot_password, ClientId=client_id, Username=name, ConfirmationCode="12345x",
                        Password=NEW_PASSWORD)]
    idp.forgot_password(ClientId=client_id, Username=name)
    answers.append(error_of(idp.confirm_forgot_password, ClientId=client_id, Username=name, ConfirmationCode="12345x",
                            Password=NEW_PASSWORD))
    app = app_of(stack)
    for _ in range(6):
        page = sign_in(Browser(), app, name, "Wrong-password-1")
        answers.append(next(said for said in ("Incorrect username or password.", "Password attempts exceeded") if said in page))
    for _ in range(4):
        idp.forgot_password(ClientId=client_id, Username=name)
    answers.append(error_of(idp.forgot_password, ClientId=client_id, Username=name))
    return answers


def test_no_answer_tells_an_account_from_a_name_with_none(stack, idp):
    # (an unconfirmed account, and an operator's not yet signed in, are in tests/unit/test_local_user_pool.py)
    nobody = guesses(stack, idp, f"nobody-{uuid.uuid4().hex[:8]}@example.com")
    assert nobody == ["ExpiredCodeException", "CodeMismatchException", *["Incorrect username or password."] * 5,
                      "Password attempts exceeded", "LimitExceededException"]
    assert guesses(stack, idp, confirmed(stack, "known")) == nobody


def test_forgot_password_is_limited_per_account_whichever_name_is_given(stack, idp):
    client_id = stack.users.client_id
    email = confirmed(stack, "names")
    sub = stack.users.pool.find(email).sub
    for name in (email, sub, email.upper(), sub, email):
        sent = idp.forgot_password(ClientId=client_id, Username=name)["CodeDeliveryDetails"]
        assert sent["Destination"].count("***") == 2  # the address given, or one simulated from a sub: never the account's
    for name in (email, sub):
        assert error_of(idp.forgot_password, ClientId=client_id, Username=name) == "LimitExceededException"
    assert sum(to == email for to, _ in stack.users.outbox) == 1 + 5  # the sign-up's code, then five resets
