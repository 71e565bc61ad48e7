"""Passwords on the local user pool's managed login (local/managed_login.py): the pool's rules listed
before a racer types one and the broken ones named after, and "Forgot your password?" (Cognito's
ForgotPassword and ConfirmForgotPassword), driven as Cognito documents them: boto3's cognito-idp client
against the stand-in's user pool API, and Chromium through managed login's pages.

The policy is the deployed pool's (CloudFormation's PasswordPolicy in stacks/users.py: 12 characters,
a lowercase and an uppercase letter, a number, a symbol). A reset code is "valid for one hour"
(Cognito Developer Guide, "Recovering user accounts"); the app client prevents user existence errors
("Managing user existence error responses"). The hour passes on the stack's clock, moved by the test.
"""

import re
import uuid

import pytest
from botocore.exceptions import ClientError

from ..test_user_pool import Browser, PublicClient, payload, sign_in
from .browsing import (
    DOCS,
    PASSWORD,
    advance,
    back_on,
    mailed,
    new_page,
    sign_in_on_the_pools_page,
    signed_in_as,
    signed_out,
    signed_up_new,
)

HOUR = 3600
NEW_PASSWORD = "Coasting-Home-2027?"


def error_of(call, **request) -> str:
    with pytest.raises(ClientError) as refused:
        call(**request)
    return refused.value.response["Error"]["Code"]


def confirmed(stack, prefix: str) -> str:
    email = f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"
    stack.users.pool.sign_up(email, PASSWORD)
    stack.users.pool.confirm(email, mailed(stack, email))
    return email


def other_than(code: str) -> str:
    return "000000" if code != "000000" else "111111"


# --- the user pool API, as boto3 calls it ------------------------------------------------------------

def test_a_racer_resets_a_forgotten_password_with_the_emailed_code_and_signs_in_with_it(stack, idp):
    client_id = stack.users.client_id
    email = confirmed(stack, "forgot")
    # When they ask for a code
    sent = idp.forgot_password(ClientId=client_id, Username=email)["CodeDeliveryDetails"]
    # Then it goes by email to their address, shown masked as Cognito shows it
    assert sent == {"Destination": "f***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    code = mailed(stack, email)
    assert re.fullmatch(r"\d{6}", code)
    # A wrong code, or a password the policy refuses, changes nothing
    assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=email, ConfirmationCode=other_than(code),
                    Password=NEW_PASSWORD) == "CodeMismatchException"
    assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=email, ConfirmationCode=code,
                    Password="coasting-home") == "InvalidPasswordException"
    # An hour later the code has expired
    stack.clock.advance(HOUR)
    assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=email, ConfirmationCode=code,
                    Password=NEW_PASSWORD) == "ExpiredCodeException"
    # A new code, used within its hour, sets the new password
    idp.forgot_password(ClientId=client_id, Username=email)
    fresh = mailed(stack, email)
    stack.clock.advance(HOUR - 1)
    idp.confirm_forgot_password(ClientId=client_id, Username=email, ConfirmationCode=fresh, Password=NEW_PASSWORD)
    # And it is spent
    assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=email, ConfirmationCode=fresh,
                    Password=PASSWORD) == "ExpiredCodeException"
    # Then managed login takes the new password, not the old, and the tokens are theirs
    app = PublicClient(stack.users.config, f"{stack.url}/")
    assert "Incorrect username or password." in sign_in(Browser(), app, email, PASSWORD)
    status, tokens = app.exchange(app.code_from(sign_in(Browser(), app, email, NEW_PASSWORD)))
    assert status == 200 and payload(tokens["id_token"])["email"] == email


def test_the_answers_do_not_tell_who_has_an_account(stack, idp):
    client_id = stack.users.client_id
    nobody = f"nobody-{uuid.uuid4().hex[:8]}@example.com"
    unconfirmed = f"unconfirmed-{uuid.uuid4().hex[:8]}@example.com"
    stack.users.pool.sign_up(unconfirmed, PASSWORD)
    mails = len(stack.users.outbox)
    # ForgotPassword answers alike for no account and an account with no verified address, and sends nothing
    for name in (nobody, unconfirmed):
        answer = idp.forgot_password(ClientId=client_id, Username=name)["CodeDeliveryDetails"]
        assert answer == {"Destination": f"{name[0]}***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}
    assert len(stack.users.outbox) == mails
    # ConfirmForgotPassword for no account says what a wrong code says
    assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=nobody, ConfirmationCode="123456",
                    Password=NEW_PASSWORD) == "CodeMismatchException"
    # Requests are limited per name, account or not: five, then LimitExceededException
    for _ in range(4):
        idp.forgot_password(ClientId=client_id, Username=nobody)
    assert error_of(idp.forgot_password, ClientId=client_id, Username=nobody) == "LimitExceededException"
    # Another app client's requests are refused
    assert error_of(idp.forgot_password, ClientId="not-the-sites", Username=nobody) == "ResourceNotFoundException"


def test_wrong_codes_lock_the_reset_after_five(stack, idp):
    client_id = stack.users.client_id
    email = confirmed(stack, "guess")
    idp.forgot_password(ClientId=client_id, Username=email)
    code = mailed(stack, email)
    for _ in range(5):
        assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=email,
                        ConfirmationCode=other_than(code), Password=NEW_PASSWORD) == "CodeMismatchException"
    # Cognito's lockout: the right code is refused while it lasts
    assert error_of(idp.confirm_forgot_password, ClientId=client_id, Username=email, ConfirmationCode=code,
                    Password=NEW_PASSWORD) == "LimitExceededException"
    stack.clock.advance(1)
    idp.confirm_forgot_password(ClientId=client_id, Username=email, ConfirmationCode=code, Password=NEW_PASSWORD)


# --- managed login's pages, in Chromium ----------------------------------------------------------------

def rules(page) -> list[tuple[str, str]]:
    """The password rules listed under the field: (class, text) of each."""
    return page.eval_on_selector_all("#password-rules li", "items => items.map(li => [li.className, li.textContent.replace(/^• /, '')])")


def test_the_sign_up_page_lists_the_rules_first_and_names_the_broken_ones_after(stack, browser):
    page = new_page(browser, stack, width=390)
    page.goto(f"{stack.url}/#/me")
    page.click(".top .account button.sign-in")
    page.click("text=Sign up")
    # Before typing: the policy's five rules, under the password field it describes
    listed = rules(page)
    assert [text for _, text in listed][:4] == ["At least 12 characters", "At least 1 lowercase letter",
                                                "At least 1 uppercase letter", "At least 1 number"]
    assert listed[4][1].startswith("At least 1 special character") and "^ $ * ." in listed[4][1] and len(listed) == 5
    assert page.get_attribute("#password", "aria-describedby") == "password-rules"
    assert page.inner_text("#password-rules p") == "Your password needs:"
    page.screenshot(path=str(DOCS / "screenshot-sign-up-phone.png"), full_page=True)
    # When they try a password that is too short and has no capital and no symbol
    email = f"rules-{uuid.uuid4().hex[:8]}@example.com"
    page.fill("#email", email)
    page.fill("#password", "pedal2026")
    page.click("button[type=submit]")
    # Then the page says which rules it broke, and marks each rule
    assert page.inner_text("p.error[role=alert]") == (
        "Your password needs at least 12 characters, at least 1 uppercase letter and at least 1 special character or a space.")
    marked = [(state, text.split(" (")[0]) for state, text in rules(page)]
    assert [state for state, _ in marked] == ["unmet", "met", "unmet", "met", "unmet"]
    assert page.input_value("#email") == email and page.input_value("#password") == ""
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(DOCS / "screenshot-sign-up-refused-phone.png"), full_page=True)
    # And with a good one the account is made (the emailed code is asked next)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/confirm?**")
    page.context.close()


def test_forgot_your_password_in_the_browser(stack, browser):
    page = new_page(browser, stack)
    email = signed_up_new(page, stack, "#/me", "lost")
    signed_out(page, stack)
    # Given a racer on the pool's sign-in page who forgot their password
    page.goto(f"{stack.url}/#/me")
    page.click(".top .account button.sign-in")
    page.wait_for_url(f"{stack.users.domain}/login?**")
    page.click("text=Forgot your password?")
    # When they ask for a code by email
    page.fill("#email", email)
    page.click("button[type=submit]")
    page.wait_for_url("**/forgot/reset?**")
    reset_page = page.url
    assert "we sent a code by email to l***@e***" in page.inner_text("main")
    assert rules(page) and all(state == "" for state, _ in rules(page))
    code = mailed(stack, email)
    # A wrong code is refused, saying so
    page.fill("#code", other_than(code))
    page.fill("#password", NEW_PASSWORD)
    page.click("button[type=submit]")
    assert page.inner_text("p.error") == "That code is not the one we sent: check the email and try again."
    # An hour later the code has expired (the page, opened again, is a new form)
    advance(stack, page, HOUR)
    page.goto(reset_page)
    page.fill("#code", code)
    page.fill("#password", NEW_PASSWORD)
    page.click("button[type=submit]")
    assert "has expired" in page.inner_text("p.error")
    # A new code, with a password the policy refuses: the rules it broke are named
    page.click("a:has-text('Ask for a new one')")
    page.fill("#email", email)
    page.click("button[type=submit]")
    page.wait_for_url("**/forgot/reset?**")
    code = mailed(stack, email)
    page.fill("#code", code)
    page.fill("#password", "coasting home")
    page.click("button[type=submit]")
    assert page.inner_text("p.error") == "Your password needs at least 1 uppercase letter and at least 1 number."
    # Then the right code and a good password reset it: back to sign in, the address filled in
    page.fill("#code", code)
    page.fill("#password", NEW_PASSWORD)
    page.click("button[type=submit]")
    assert page.inner_text("p[role=status]") == "Your password is reset: sign in with the new one."
    assert page.input_value("#email") == email
    # And the new password signs them in, back where they started
    sign_in_on_the_pools_page(page, email, NEW_PASSWORD)
    back_on(page, stack, "#/me")
    signed_in_as(page, email)
    page.context.close()
