"""Sign-in in Debian's Chromium, through the local user pool stand-in (local/userpool.py) as a racer
and an admin meet it: sign-up with the emailed code, the authorization code flow with PKCE, a
display name, a session that outlives its access token, two-step sign-in, sign-out.

On the stack whose clock the tests move (``manual_clock/conftest.py``), and the browser's clock moved with
it (Playwright's ``page.clock``): an hour passes for the tokens, not for the test.
"""

import re
import time
import uuid
from urllib.parse import parse_qs, urlsplit

import pytest

from local.auth import totp

from ..qr_reader import read_qr_png
from .browsing import (
    DOCS,
    PASSWORD,
    advance,
    back_on,
    claims,
    mailed,
    make_admin,
    new_page,
    session,
    sign_in_on_the_pools_page,
    sign_up_on_the_pools_page,
    signed_in_as,
    signed_up_new,
)

MINUTE = 60


# --- a racer ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def racer(browser, stack):
    """A new racer, signed up and signed in from their account page: {page, email, sub}."""
    page = new_page(browser, stack)
    email = f"rider-{uuid.uuid4().hex[:8]}@example.com"
    # Given a visitor on the account page, signed out
    page.goto(f"{stack.url}/#/me")
    page.wait_for_selector(".account-page button.primary")
    assert page.inner_text(".top .account") == "Sign in"
    # When they sign in, make an account on the user pool's page and give the code it emailed
    page.click(".top .account button.sign-in")
    page.wait_for_url(f"{stack.users.domain}/login?**")
    asked = dict(re.findall(r"[?&]([^=&]+)=([^&]*)", page.url))
    assert asked["code_challenge_method"] == "S256" and len(asked["code_challenge"]) == 43 and asked["state"]
    sign_up_on_the_pools_page(page, stack, email)
    # Then they are back on their account page, signed in (their email in the header until they set a name)
    back_on(page, stack, "#/me")
    signed_in_as(page, email)
    kept = session(page)
    sub = claims(kept["idToken"])["sub"]
    yield {"page": page, "email": email, "sub": sub}
    page.context.close()


def test_a_new_racer_signs_up_and_comes_back_signed_in_where_they_started(stack, racer):
    page = racer["page"]
    # The tokens are kept for every tab; the PKCE verifier and state are gone with the callback
    kept = session(page)
    assert claims(kept["accessToken"])["sub"] == racer["sub"] and kept["refreshToken"]
    assert page.evaluate("sessionStorage.getItem('alleycat.signin')") is None
    # The account page greets them: no name yet, no races, two-step sign-in off
    page.wait_for_selector(".two-step .status.off")
    assert "You have not set a name yet" in page.inner_text(".account-page .name")
    assert "No races yet" in page.inner_text(".my-races")
    # And nothing admin shows to a racer
    page.goto(f"{stack.url}/#/")
    page.wait_for_selector("section.class-list :is(li, p.empty:not([hidden]))")
    assert page.locator(".new-class-box").count() == 0


def test_the_racer_sets_a_name_checked_in_the_page_and_it_shows_on_their_racer_page(stack, racer):
    page = racer["page"]
    page.goto(f"{stack.url}/#/me")
    page.wait_for_selector("#display-name")
    # When they save an empty name, then one of 81 characters
    page.fill("#display-name", "   ")
    page.click(".name button[type=submit]")
    page.wait_for_selector("#name-message.error")
    assert page.inner_text("#name-message") == "Your name cannot be empty."
    page.fill("#display-name", "x" * 81)
    page.click(".name button[type=submit]")
    page.wait_for_function("() => document.querySelector('#name-message')?.textContent.includes('81 characters')")
    # Then nothing was sent; when they save a good one, it is saved and the header shows it
    page.fill("#display-name", "  Zoë Pédale  ")
    page.click(".name button[type=submit]")
    page.wait_for_selector("#name-message.saved")
    assert page.inner_text("#name-message") == "Saved: racers see you as “Zoë Pédale”."
    signed_in_as(page, "Zoë Pédale")
    # And their racer page has it, and says it is theirs
    page.goto(f"{stack.url}/#/racers/{racer['sub']}")
    page.wait_for_function("() => document.querySelector('h1')?.textContent === 'Zoë Pédale'")
    assert page.is_visible("p.yours") and "This is you" in page.inner_text("p.yours")


def test_the_session_outlives_its_access_token_with_no_prompt(stack, client, racer):
    page = racer["page"]
    page.goto(f"{stack.url}/#/me")
    page.wait_for_selector("#display-name")
    first = session(page)
    old = first["accessToken"]
    tokens_asked = []
    page.on("request", lambda request: tokens_asked.append(request.post_data or "")
            if request.url == f"{stack.users.domain}/oauth2/token" else None)
    # When 56 minutes pass (the access token lives 60)
    advance(stack, page, 56 * MINUTE)
    # Then the page has refreshed its tokens by itself, with the refresh token
    page.wait_for_function("old => JSON.parse(localStorage.getItem('alleycat.session')).accessToken !== old", arg=old)
    assert len(tokens_asked) == 1 and "grant_type=refresh_token" in tokens_asked[0]
    fresh = session(page)
    assert fresh["refreshToken"] == first["refreshToken"] and claims(fresh["accessToken"])["sub"] == racer["sub"]
    # When 5 more minutes pass: the server now refuses the old access token
    advance(stack, page, 5 * MINUTE)
    assert client.call("PUT", f"/racers/{racer['sub']}", {"name": "Old token"}, old)[0] == 401
    # Then a write from the page goes through, with no sign-in page on the way
    page.fill("#display-name", "Zoë an hour later")
    page.click(".name button[type=submit]")
    page.wait_for_selector("#name-message.saved")
    signed_in_as(page, "Zoë an hour later")
    assert page.url == f"{stack.url}/#/me"
    assert client.call("GET", f"/racers/{racer['sub']}/results")[1]["name"] == "Zoë an hour later"


def test_a_token_the_server_finds_expired_is_refreshed_once_and_the_write_retried(stack, client, racer):
    page = racer["page"]
    page.goto(f"{stack.url}/#/me")
    page.wait_for_selector("#display-name")
    writes = []
    page.on("response", lambda response: writes.append(response.status)
            if response.request.method == "PUT" and "/racers/" in response.url else None)
    # Given the server's clock an hour ahead of the browser's (the browser thinks its token good for long)
    stack.clock.advance(61 * MINUTE)
    # When the racer saves their name
    page.fill("#display-name", "Zoë Pédale")
    page.click(".name button[type=submit]")
    # Then the API's 401 made the page refresh and send it again: saved, still signed in
    page.wait_for_selector("#name-message.saved")
    deadline = time.monotonic() + 5
    while len(writes) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # Playwright hands over the answers' events a moment after the page sees them
    assert writes == [401, 200]
    signed_in_as(page, "Zoë Pédale")


def test_screenshots_of_the_account_page_signed_in(stack, client, racer, browser):
    # Given the racer rode a race (finished, ranked) and joined one to come
    admin = client.token("ops", ["admin"])
    class_id = f"hill-{uuid.uuid4().hex[:6]}"
    assert client.call("PUT", f"/classes/{class_id}", {"name": "Hill climb"}, admin)[0] == 200
    done = client.call("POST", f"/classes/{class_id}/races", {"startsAt": client.starts_in(0), "durationSeconds": 60}, admin)[1]
    later = client.call("POST", f"/classes/{class_id}/races", {"startsAt": client.starts_in(3600), "durationSeconds": 300}, admin)[1]
    for race in (done, later):
        assert client.call("PUT", f"/races/{race['raceId']}/racers/{racer['sub']}", token=admin)[0] == 200
    advance(stack, racer["page"], 60)  # its minute passes: every second of it has happened (contract v1.2)
    samples = [{"racerId": racer["sub"], "second": s, "cadence": 85, "resistance": 40 + s % 20} for s in range(60)]
    assert client.call("POST", f"/races/{done['raceId']}/telemetry", {"samples": samples}, admin)[1]["accepted"] == 60
    assert client.call("POST", f"/races/{done['raceId']}/finish", token=admin)[0] == 200
    deadline = time.monotonic() + 20
    while client.call("GET", f"/racers/{racer['sub']}/results")[1]["items"][-1]["rank"] != 1:
        assert time.monotonic() < deadline, "the finished race never ranked the racer"
        time.sleep(0.1)
    # When the racer looks at their account page, on a desktop and on a phone, setting up two-step sign-in
    for width, height, name in ((1280, 900, "screenshot-account.png"), (390, 1000, "screenshot-account-phone.png")):
        page = racer["page"]
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{stack.url}/#/")
        page.goto(f"{stack.url}/#/me")
        page.wait_for_selector(".my-races table.results")
        page.wait_for_selector(".two-step .status.off")
        page.click("text=Set up two-step sign-in")
        page.wait_for_selector(".two-step svg.qr")
        # Then their races link to the race boards and to their own chart of each
        assert page.locator(".my-races td.name a").count() == 2
        assert page.get_attribute(".my-races tbody tr:last-child td.name a", "href") == f"#/races/{done['raceId']}"
        assert page.inner_text(".my-races tbody tr:last-child td:nth-child(3)") == "1"
        # And nothing overflows the phone's width
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.screenshot(path=str(DOCS / name), full_page=True)
    page.set_viewport_size({"width": 1000, "height": 900})


def test_signing_out_forgets_the_session_here_and_at_the_user_pool(stack, racer):
    page = racer["page"]
    page.goto(f"{stack.url}/#/me")
    page.wait_for_selector("#display-name")
    refresh_token = session(page)["refreshToken"]
    # When the racer signs out
    page.click(".top .account button.sign-out")
    # Then they are back on the site's home, signed out, the tokens gone
    page.wait_for_url(f"{stack.url}/")
    page.wait_for_selector(".top .account button.sign-in")
    assert session(page) is None and page.evaluate("localStorage.getItem('alleycat.name')") is None
    # and the refresh token is revoked
    refused = page.request.post(f"{stack.users.domain}/oauth2/token", form={
        "grant_type": "refresh_token", "client_id": stack.users.client_id, "refresh_token": refresh_token})
    assert refused.status == 400 and refused.json()["error"] == "invalid_grant"
    # and signing in again asks for the password (the user pool's own session ended too)
    page.click(".top .account button.sign-in")
    page.wait_for_url(f"{stack.users.domain}/login?**")


def test_a_refresh_the_user_pool_refuses_signs_out_with_a_message(stack, browser):
    page = new_page(browser, stack)
    signed_up_new(page, stack, "#/races/none", "gone")
    # Given its refresh token revoked elsewhere (another device signed out)
    assert page.request.post(f"{stack.users.domain}/oauth2/revoke", form={
        "token": session(page)["refreshToken"], "client_id": stack.users.client_id}).ok
    # When the timer refreshes
    advance(stack, page, 56 * MINUTE)
    # Then the page is signed out, and says why; nothing is thrown at the user
    page.wait_for_selector(".notice:not([hidden])")
    assert "Sign in again" in page.inner_text(".notice")
    assert page.is_visible(".top .account button.sign-in") and session(page) is None
    page.click(".notice .dismiss")
    assert page.is_hidden(".notice")
    page.context.close()


def test_a_site_without_sign_in_says_so_and_stays_read_only(stack, browser):
    page = new_page(browser, stack)
    page.route("**/config.json", lambda route: route.fulfill(json={"events": None}))
    page.goto(f"{stack.url}/#/me")
    page.wait_for_function("() => document.querySelector('.account-page .card')?.textContent.includes('not available')")
    page.click(".top .account button.sign-in")
    page.wait_for_selector(".notice:not([hidden])")
    assert "not available" in page.inner_text(".notice") and page.url == f"{stack.url}/#/me"
    page.context.close()


# --- an admin ---------------------------------------------------------------------------------------

def test_an_admin_turns_on_two_step_sign_in_and_creates_a_class(stack, browser):
    email = f"admin-{uuid.uuid4().hex[:8]}@example.com"
    # Given an operator made them an admin with the one command
    said = make_admin(stack, email)
    assert email in said and "admin" in said
    page = new_page(browser, stack)
    # Given the new admin signs in with the emailed temporary password and chooses their own
    page.goto(f"{stack.url}/")
    page.click(".top .account button.sign-in")
    sign_in_on_the_pools_page(page, email, mailed(stack, email))
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    back_on(page, stack, "#/")
    signed_in_as(page, email)
    # Then without two-step sign-in their token carries no admin: no admin tools
    assert not claims(session(page)["idToken"]).get("cognito:groups")
    page.wait_for_selector("section.class-list :is(li, p.empty:not([hidden]))")
    assert page.locator(".new-class-box").count() == 0
    # When they turn on two-step sign-in on their account page with an authenticator app's code
    page.click(".top .account a.who")
    page.click("text=Set up two-step sign-in")
    page.wait_for_selector("code.secret")
    typed = page.inner_text("code.secret").replace(" ", "")
    assert re.fullmatch(r"(?:[A-Z2-7]{4} )+[A-Z2-7]{1,4}", page.inner_text("code.secret"))
    # The page shows a QR code of the setup link, which an app reads back as the link and its key
    scanned = read_qr_png(page.locator("svg.qr").screenshot())
    assert scanned == page.get_attribute("a.otpauth", "href") == (
        f"otpauth://totp/Alleycat:{email.replace('@', '%40')}?secret={typed}&issuer=Alleycat")
    secret = parse_qs(urlsplit(scanned).query)["secret"][0]  # the app's key, from the scan: its codes turn it on
    page.fill("#totp-code", "12345")
    page.click(".two-step button[type=submit]")
    page.wait_for_selector("#totp-message.error")
    page.fill("#totp-code", "000000" if totp(secret, stack.clock.now()) != "000000" else "111111")
    page.click(".two-step button[type=submit]")
    page.wait_for_function("() => document.querySelector('#totp-message')?.textContent.includes('does not match')")
    page.fill("#totp-code", totp(secret, stack.clock.now()))
    page.click(".two-step button[type=submit]")
    page.wait_for_selector(".two-step .status.on")
    assert "Sign out and sign in again" in page.inner_text(".two-step")
    # and sign in again, giving a code
    page.click(".two-step >> text=Sign out now")
    page.wait_for_url(f"{stack.url}/")
    page.wait_for_selector(".top .account button.sign-in")
    page.click(".top .account button.sign-in")
    sign_in_on_the_pools_page(page, email, PASSWORD)
    stack.clock.advance(30)  # the app's next code
    page.fill("#code", totp(secret, stack.clock.now()))
    page.click("button[type=submit]")
    back_on(page, stack, "#/")
    signed_in_as(page, email)
    # Then they are an admin, and the home page's classes have a "New class" form
    assert claims(session(page)["idToken"])["cognito:groups"] == ["admin"]
    page.click(".new-class-box summary")
    # which says what is wrong before sending anything
    page.click(".new-class button[type=submit]")
    assert page.inner_text("#class-name-message") == "The name cannot be empty."
    assert page.inner_text("#class-id-message") == "The class id cannot be empty."
    page.fill("#class-name", "Sprint intervals")
    assert page.input_value("#class-id") == "sprint-intervals"  # suggested from the name
    page.fill("#class-id", "sprint intervals")
    page.click(".new-class button[type=submit]")
    assert "no spaces" in page.inner_text("#class-id-message")
    for width, name in ((1000, "screenshot-new-class.png"), (390, "screenshot-new-class-phone.png")):
        page.set_viewport_size({"width": width, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing overflows a phone
        page.locator(".new-class-box").screenshot(path=str(DOCS / name))
    page.set_viewport_size({"width": 1000, "height": 900})
    class_id = f"sprint-{uuid.uuid4().hex[:6]}"
    page.fill("#class-id", class_id)
    page.fill("#class-description", "30 s on, 30 s off")
    # When they create the class
    page.click(".new-class button[type=submit]")
    # Then its page shows it
    page.wait_for_function("hash => location.hash === hash", arg=f"#/classes/{class_id}")
    page.wait_for_function("() => document.querySelector('h1')?.textContent === 'Sprint intervals'")
    # And an id already taken is refused in the page (PUT would replace that class)
    page.goto(f"{stack.url}/#/")
    page.click(".new-class-box summary")
    page.fill("#class-name", "Another")
    page.fill("#class-id", class_id)
    page.click(".new-class button[type=submit]")
    page.wait_for_function("() => document.querySelector('#class-id-message')?.textContent.includes('taken')")
    page.context.close()
