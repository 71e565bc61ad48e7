"""What the browser tests on the manual-clock stack share: Chromium, a page on the stack's clock,
and the user pool's pages as a person goes through them."""

import base64
import json
import os
import subprocess
import sys
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

from local.auth import TOTP_STEP, totp
from stacks.settings import HISTORY_BATCHING_WINDOW_SECONDS, STREAM_BATCHING_WINDOW_SECONDS

from ..conftest import CspWatchedBrowser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs"
WAIT_MS = 20_000
PASSWORD = "Pedal-Hard-2026!"

NO_CHROMIUM = f"no Debian Chromium at {CHROMIUM}: `make test` installs it (`make chromium`)"


@contextmanager
def chromium():
    """Debian's Chromium, every page under the site's real CSP (a violation fails its test)."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), NO_CHROMIUM
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield CspWatchedBrowser(browser)
        browser.close()


def new_page(browser, stack, width=1000, height=900, **options):
    """A page of a context of its own whose clock starts at the stack's time and flows from there (``options``:
    the context's, ``mqtt=True`` a ride over MQTT: conftest.ModuleBrowser)."""
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-GB", **options)
    context.clock.install(time=stack.clock.now())
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    return page


def advance(stack, page, seconds):
    """Time passes for the stack and the browser alike (a laptop's lid closed that long, then opened)."""
    stack.clock.advance(seconds)
    page.clock.fast_forward(int(seconds * 1000))


def session(page) -> dict | None:
    return page.evaluate("JSON.parse(localStorage.getItem('alleycat.session'))")


def claims(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def mailed(stack, email: str) -> str:
    """The last code (or temporary password) the user pool "emailed" to ``email``."""
    return next(code for to, code in reversed(stack.users.outbox) if to == email)


def sign_up_on_the_pools_page(page, stack, email: str) -> None:
    """From the user pool's sign-in page: Sign up, then the code it emailed."""
    page.click("text=Sign up")
    page.fill("#email", email)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/confirm?**")
    page.fill("#code", mailed(stack, email))
    page.click("button[type=submit]")


def sign_in_on_the_pools_page(page, email: str, password: str) -> None:
    page.fill("#email", email)
    page.fill("#password", password)
    page.click("button[type=submit]")


def signed_in_as(page, text: str) -> None:
    page.wait_for_function("text => document.querySelector('.top .account a.who')?.textContent === text", arg=text)


def signed_out(page, stack) -> None:
    """The racer signs out and is back on the site's home from the user pool's logout page (the button
    says "Sign in" as the tokens go, before that round trip ends: a page opened meanwhile would be left)."""
    page.click(".top .account button.sign-out")
    page.wait_for_url(f"{stack.url}/")
    page.wait_for_selector(".top .account button.sign-in")


def back_on(page, stack, hash_: str) -> None:
    """Back from the user pool on the site, the code and state gone from the address bar."""
    page.wait_for_function("hash => location.search === '' && location.hash === hash", arg=hash_)
    assert page.url == f"{stack.url}/{hash_}"


def signed_up_new(page, stack, hash_: str, prefix: str) -> str:
    """A new racer signs up from the site's ``hash_`` page (its sign-in, then the pool's sign-up) and is
    back there, signed in: their email."""
    email = f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"
    page.goto(f"{stack.url}/{hash_}")
    page.click(".top .account button.sign-in")
    sign_up_on_the_pools_page(page, stack, email)
    back_on(page, stack, hash_)
    signed_in_as(page, email)
    return email


def make_admin(stack, email: str) -> str:
    """The one command an operator runs for an admin (`make admin EMAIL= SITE=`), against this stack:
    AdminCreateUser (the temporary password emailed: the stand-in's outbox), then AdminAddUserToGroup."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_admin.py"), email, "--site", stack.url],
                          capture_output=True, text=True, timeout=60, env=os.environ.copy())
    assert done.returncode == 0, done.stderr
    return done.stdout


def turn_on_two_step_sign_in(stack, access_token: str) -> str:
    """What the account page does with an authenticator app, through the user pool API with the user's own
    access token (unsigned, as a browser calls it): AssociateSoftwareToken, VerifySoftwareToken with the
    app's code, SetUserMFAPreference. Returns the app's secret."""
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config

    idp = boto3.client("cognito-idp", endpoint_url=stack.users.config["idpUrl"], region_name=stack.users.pool.region,
                       config=Config(signature_version=UNSIGNED))
    secret = idp.associate_software_token(AccessToken=access_token)["SecretCode"]
    idp.verify_software_token(AccessToken=access_token, UserCode=totp(secret, stack.clock.now()))
    idp.set_user_mfa_preference(AccessToken=access_token, SoftwareTokenMfaSettings={"Enabled": True, "PreferredMfa": True})
    return secret


def signed_in_admin(browser, stack, email: str | None = None):
    """A page of the site (on the stack's clock, at #/) signed in as a new admin whose token carries ``admin``:
    made by `make admin`; a first sign-in with the emailed temporary password, a password of their own; two-step
    sign-in turned on (``turn_on_two_step_sign_in``); signed out and in again, with a code from the app."""
    email = email or f"admin-{uuid.uuid4().hex[:8]}@example.com"
    make_admin(stack, email)
    page = new_page(browser, stack)
    page.goto(f"{stack.url}/#/")
    page.click(".top .account button.sign-in")
    sign_in_on_the_pools_page(page, email, mailed(stack, email))
    page.fill("#password", PASSWORD)  # the pool's "Choose a new password" step
    page.click("button[type=submit]")
    back_on(page, stack, "#/")
    signed_in_as(page, email)
    secret = turn_on_two_step_sign_in(stack, session(page)["accessToken"])
    signed_out(page, stack)
    page.click(".top .account button.sign-in")
    sign_in_on_the_pools_page(page, email, PASSWORD)
    page.fill("#code", totp(secret, stack.clock.now() + TOTP_STEP))  # the app's next code: turning TOTP on took this one's
    page.click("button[type=submit]")
    back_on(page, stack, "#/")
    signed_in_as(page, email)
    assert claims(session(page)["idToken"]).get("cognito:groups") == ["admin"]
    return page


def after_the_history_writer(stack, read, done, what: str):
    """``read()`` once ``done`` holds of it. The history writer (docs/fan-in.md) writes a racer's chunks a window
    (``HISTORY_BATCHING_WINDOW_SECONDS`` of the stack's clock) after its mapping read their seconds' blocks, and the
    stream processor scores them a window of its own later. So, once the mapping has read every block (it reads the
    stream in real time: nothing new for a second), the stack's clock moves past both windows and the test waits
    (real time, bounded). Read first: on the chunk path (``ALLEYCAT_FAN_IN=off``) what counted is stored at once,
    and the clock stays where it is."""
    if done(found := read()):
        return found
    deadline, seen, quiet_since = time.monotonic() + WAIT_MS / 1000, -1, time.monotonic()
    while time.monotonic() - quiet_since < 1.0:
        assert time.monotonic() < deadline, f"the history writer's mapping kept reading: {what}"
        if (now_seen := stack.history.seen()) != seen:
            seen, quiet_since = now_seen, time.monotonic()
        time.sleep(0.05)
    stack.clock.advance(HISTORY_BATCHING_WINDOW_SECONDS)
    deadline, moved = time.monotonic() + WAIT_MS / 1000, 0.0
    while not done(found := read()):
        assert time.monotonic() < deadline, f"not after the history writer: {what} ({found!r})"
        if moved < 2 * STREAM_BATCHING_WINDOW_SECONDS:
            stack.clock.advance(0.1)
            moved += 0.1
        time.sleep(0.05)
    after_the_stream_processor(stack, what)  # the chunks written: results, reviews
    return found


def after_the_stream_processor(stack, what: str) -> None:
    """Until the stream processor holds nothing it has read and has read nothing new for 0.75 s (real time,
    bounded: three of its tail's reads, a quarter of a second apart): a batch waiting for its window gets it from the stack's clock, moved by exactly what is left."""
    deadline, seen, quiet_since = time.monotonic() + WAIT_MS / 1000, -1, time.monotonic()
    while True:
        now = time.monotonic()
        assert now < deadline, f"the stream processor kept working: {what}"
        if (now_seen := stack.stream.seen()) != seen:
            seen, quiet_since = now_seen, now
        left = stack.stream.window_left()
        if left:
            stack.clock.advance(left)
        if left is not None:
            quiet_since = now
        elif now - quiet_since >= 0.75:
            return
        time.sleep(0.05)
