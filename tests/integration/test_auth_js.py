"""The frontend's sign-in helpers that need no page (frontend/src/pkce.js, session.js, fields.js), run in Node:
PKCE (RFC 7636), a JWT's payload, when to refresh, where a sign-in comes back to, what forms accept.
Then frontend/src/auth.js itself in Node, on a stand-in page (storage, timers and fetch faked): what it
does when /config.json or the token endpoint does not answer, and when another tab signs out while a
refresh is out. And which files frontend/build.mjs puts in the page."""

import base64
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from .nodejs import FRONTEND, ROOT, imported, package, printed, run

MODULES = ("pkce", "session", "fields", "push")


# RFC 7636 Appendix B: the example verifier (from these 32 octets) and its S256 challenge.
RFC_OCTETS = [116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186,
              22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121]
RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

MINUTE = 60_000


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    """js(expression) -> the JSON value of an (awaited) expression over the modules pkce, session, fields, push."""
    folder = package(tmp_path_factory.mktemp("auth_js"), [FRONTEND / f"{name}.js" for name in (*MODULES, "time")])
    modules = imported(folder, **{name: f"{name}.js" for name in MODULES})
    return lambda expression: run(modules, printed(f"return {expression};"))


def jwt(payload: dict) -> str:
    """A token as the user pool writes one (header.payload.signature, base64url without padding)."""
    part = lambda data: base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
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
    middle = lambda data: "a." + base64.urlsafe_b64encode(data).decode().rstrip("=") + ".c"
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


def test_a_refresh_keeps_its_tokens_only_while_storage_still_holds_the_session_it_refreshed(js):
    refreshed = {"accessToken": "a0", "idToken": "i0", "refreshToken": "r1", "expiresAt": 0}
    fresh = {"status": 200, "ok": True, "body": {"access_token": "a1", "id_token": "i1", "expires_in": 3600}}
    refused = {"status": 400, "ok": False, "body": {"error": "invalid_grant"}}
    outcome = lambda stored, answer: js(
        f"session.refreshOutcome({json.dumps(refreshed)}, {json.dumps(stored)}, {json.dumps(answer)}, 1000)")
    # Storage unchanged (or refreshed by another tab with the same refresh token): the answer decides
    assert outcome(refreshed, fresh) == {"action": "keep", "session": {
        "accessToken": "a1", "idToken": "i1", "refreshToken": "r1", "expiresAt": 1000 + 3600_000}}
    assert outcome({**refreshed, "accessToken": "a9"}, fresh)["action"] == "keep"
    assert outcome(refreshed, refused) == {"action": "signed-out"}
    assert outcome(refreshed, None) == {"action": "retry"}  # no answer, or no config to ask with
    assert outcome(refreshed, {"status": 503, "ok": False, "body": {}}) == {"action": "retry"}
    # Another tab signed out (or in as someone else) while the request was out: storage wins, whatever the answer
    for stored in (None, {**refreshed, "refreshToken": "r2"}):
        for answer in (fresh, refused, None):
            assert outcome(stored, answer) == {"action": "adopt"}, (stored, answer)


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


def test_a_race_lasts_whole_minutes_from_1_to_60(js):
    assert [js(f"fields.durationProblem({value!r})") for value in ("1", "5", " 60 ")] == [None, None, None]
    assert "How long" in js("fields.durationProblem('')") and "How long" in js("fields.durationProblem(undefined)")
    assert "at least 1 minute" in js("fields.durationProblem('0')")
    assert "61 is too long" in js("fields.durationProblem('61')")
    assert "“2.5” is not one" in js("fields.durationProblem('2.5')")


def test_a_start_is_a_local_day_and_time_and_not_a_minute_already_over(js):
    at = "fields.localStart('2026-11-22T18:30')"
    assert js(f"{at} === new Date(2026, 10, 22, 18, 30).getTime()")
    assert js("fields.localStart('2026-02-30T10:00')") is None  # NaN: no such day
    assert js("fields.localStart('')") is None and js("fields.localStart('18:30')") is None
    assert js(f"fields.localInput({at})") == "2026-11-22T18:30"
    assert "Choose the day and the time" in js("fields.startProblem('')")
    # At 18:30:35 the minute under way is fine ("now"), an earlier one is over: no racer could join before it,
    # and the message names the earliest start (the first whole minute at least a minute away: 18:32)
    now = "new Date(2026, 10, 22, 18, 30, 35).getTime()"
    assert js(f"fields.startProblem('2026-11-22T18:30', {now})") is None
    assert "has passed" in js(f"fields.startProblem('2026-11-22T18:29', {now})")
    assert "Choose 18:32 or later" in js(f"fields.startProblem('2026-11-22T18:29', {now})")
    assert js(f"fields.startProblem('2026-11-22T19:00', {now})") is None


def test_now_is_the_first_whole_minute_at_least_a_minute_away(js):
    local = lambda hours, minutes, seconds=0: f"new Date(2026, 10, 22, {hours}, {minutes}, {seconds}).getTime()"
    # The case: scheduled "now" (20:45) at 20:45:35 starts at 20:47:00, 85 s ahead, not at 20:45:00
    assert js(f"fields.startFor('2026-11-22T20:45', {local(20, 45, 35)}) === {local(20, 47)}")
    assert js(f"fields.startFor('2026-11-22T20:45', {local(20, 45, 0)}) === {local(20, 46)}")  # 60 s ahead
    assert js(f"fields.startFor('2026-11-22T20:46', {local(20, 45, 50)}) === {local(20, 47)}")  # 10 s ahead: too soon
    # A start a minute or more away is kept as chosen
    assert js(f"fields.startFor('2026-11-22T20:47', {local(20, 45, 50)}) === {local(20, 47)}")
    assert js(f"fields.startFor('2026-11-22T21:00', {local(20, 45, 50)}) === {local(21, 0)}")


def test_the_start_offered_is_the_next_whole_5_minutes_at_least_2_minutes_ahead(js):
    at = lambda hours, minutes, seconds: f"Date.UTC(2026, 10, 22, {hours}, {minutes}, {seconds})"
    assert js(f"fields.nextStart({at(18, 27, 59)}) === {at(18, 30, 0)}")
    assert js(f"fields.nextStart({at(18, 28, 0)}) === {at(18, 30, 0)}")
    assert js(f"fields.nextStart({at(18, 28, 1)}) === {at(18, 35, 0)}")


def test_a_totp_secret_reads_in_groups_of_four_and_its_uri_names_the_account(js):
    assert js("fields.groupedSecret('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXPQ')") == "JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP Q"
    assert js("fields.otpauthUri('zoë@example.com', 'JBSWY3DP')") == (
        "otpauth://totp/Alleycat:zo%C3%AB%40example.com?secret=JBSWY3DP&issuer=Alleycat")
    assert js("fields.totpCode(' 123 456 ')") == "123456"
    assert js("fields.totpCode('12345')") is None and js("fields.totpCode('12345a')") is None


# --- auth.js on a stand-in page -------------------------------------------------------------------

# A page for frontend/src/auth.js in Node: localStorage and sessionStorage, window (its storage
# listeners in `events`), location, history, a fetch answered by `answer(url, options)` (every URL
# asked in `asked`), and timers that run only when a test fires them (`fire(ms)`; `pending()` are the
# delays of those waiting): an hour passes at once, and nothing runs behind the test's back.
STAND_IN = """
const define = (name, value) => Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
class FakeStorage {
  #items = new Map();
  getItem(key) { return this.#items.has(key) ? this.#items.get(key) : null; }
  setItem(key, value) { this.#items.set(key, String(value)); }
  removeItem(key) { this.#items.delete(key); }
}
define("localStorage", new FakeStorage());
define("sessionStorage", new FakeStorage());
const events = {};
define("window", { addEventListener: (type, listener) => (events[type] ||= []).push(listener) });
define("document", { addEventListener() {}, visibilityState: "visible" });
const assigned = [];
define("location", { origin: "https://site.example", search: "", hash: "#/", assign: (url) => assigned.push(url) });
const replaced = [];
define("history", { replaceState: (state, title, url) => replaced.push(url) });

const timers = new Map();
let lastTimer = 0;
define("setTimeout", (run, ms = 0) => { timers.set(++lastTimer, { run, ms }); return lastTimer; });
define("clearTimeout", (id) => { timers.delete(id); });
const settle = async () => { for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve)); };
const pending = () => [...timers.values()].map((timer) => timer.ms).sort((a, b) => a - b);
async function fire(ms) {
  for (const [id, timer] of [...timers]) if (timer.ms === ms) { timers.delete(id); timer.run(); }
  await settle();
}

const asked = [];
let answer = () => { throw new TypeError("Failed to fetch"); };
define("fetch", (url, options = {}) => {
  asked.push(String(url));
  return Promise.resolve().then(() => answer(String(url), options));
});
const respond = (status, body) => ({ ok: status >= 200 && status < 300, status, json: async () => body });
const never = (url, { signal }) => new Promise((resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));

const CONFIG = { auth: { domain: "https://pool.example", clientId: "client-1" } };
const KEY = "alleycat.session";
const stored = (refreshToken, idToken = ID_TOKEN) =>
  JSON.stringify({ accessToken: "a0", idToken, refreshToken, expiresAt: Date.now() + 3600_000 });
const TOKENS = { access_token: "a1", id_token: ID_TOKEN, expires_in: 3600 };
const kept = () => JSON.parse(localStorage.getItem(KEY));
"""


@pytest.fixture(scope="module")
def page_js(tmp_path_factory):
    """page_js(body) -> the JSON value the async function `body` returns, run after STAND_IN with the
    modules `auth` (auth.js's export), `push` and `session` of frontend/src (fresh for every call)."""
    folder = package(tmp_path_factory.mktemp("auth_page"), FRONTEND.glob("*.js"))
    modules = imported(folder, authModule="auth.js", push="push.js", session="session.js")

    def on_the_page(body, id_token=None):
        return run(f"const ID_TOKEN = {json.dumps(id_token or jwt({'sub': 'u-1', 'email': 'a@example.com'}))};",
                   STAND_IN, modules, "const { auth } = authModule;", printed(body))

    return on_the_page


CONFIG = {"auth": {"domain": "https://pool.example", "clientId": "client-1"}}


def test_a_config_json_that_could_not_be_had_is_asked_for_again_and_one_that_came_is_kept(page_js):
    found = page_js("""
        const seen = [];
        seen.push(await push.siteConfig());                 // no answer
        answer = () => respond(503, {});
        seen.push(await push.siteConfig());                 // an answer that is not OK
        answer = () => ({ ok: true, status: 200, json: async () => { throw new SyntaxError("not JSON"); } });
        seen.push(await push.siteConfig());                 // not JSON
        answer = () => respond(200, CONFIG);
        seen.push(...await Promise.all([push.siteConfig(), push.siteConfig()]));  // asked for once
        answer = () => { throw new Error("asked again"); };
        seen.push(await push.siteConfig());                 // kept
        return { seen, asked };
    """)
    assert found["seen"] == [{}, {}, {}, CONFIG, CONFIG, CONFIG]
    assert found["asked"] == ["/config.json"] * 4


def test_a_refresh_without_config_json_is_tried_again_and_keeps_the_racer_signed_in(page_js):
    found = page_js("""
        localStorage.setItem(KEY, stored("r1"));
        await auth.start();                                 // the timer: 55 minutes on
        const before = pending();
        const refreshed = await auth.refresh();             // /config.json gets no answer
        const waiting = pending();
        answer = (url) => url === "/config.json" ? respond(200, CONFIG) : respond(200, TOKENS);
        await fire(session.RETRY_MS);                       // 30 s later: the config, then the tokens
        return { before, refreshed, waiting, asked, kept: kept(), who: auth.identity?.racerId, after: pending() };
    """)
    assert found["refreshed"] is False and len(found["before"]) == 1 and found["before"][0] > 54 * MINUTE
    assert found["waiting"] == [30_000]  # not left signed in on a token that will expire
    assert found["asked"] == ["/config.json", "/config.json", "https://pool.example/oauth2/token"]
    assert found["kept"]["accessToken"] == "a1" and found["kept"]["refreshToken"] == "r1" and found["who"] == "u-1"
    assert len(found["after"]) == 1 and found["after"][0] > 54 * MINUTE  # the next refresh, on its timer


def test_a_refresh_that_ends_after_another_tab_signed_out_brings_nothing_back(page_js):
    found = page_js("""
        localStorage.setItem(KEY, stored("r1"));
        let release;
        answer = (url) => url === "/config.json" ? respond(200, CONFIG)
          : new Promise((resolve) => { release = () => resolve(respond(200, TOKENS)); });
        await auth.start();
        const refreshing = auth.refresh();
        await settle();                                     // the token request is out
        localStorage.removeItem(KEY);                       // another tab signs out; its storage event is still to come
        release();
        const refreshed = await refreshing;
        const now = { refreshed, stored: localStorage.getItem(KEY), who: auth.identity, timers: pending() };
        for (const listener of events.storage) listener({ key: KEY });  // and then it comes
        return { ...now, storedLater: localStorage.getItem(KEY), whoLater: auth.identity };
    """)
    assert found == {"refreshed": False, "stored": None, "who": None, "timers": [], "storedLater": None, "whoLater": None}


def test_a_refresh_that_ends_after_another_tab_signed_in_as_someone_else_takes_their_session(page_js):
    other = jwt({"sub": "u-2", "email": "b@example.com"})
    found = page_js(f"""
        localStorage.setItem(KEY, stored("r1"));
        let release;
        answer = (url) => url === "/config.json" ? respond(200, CONFIG)
          : new Promise((resolve) => {{ release = () => resolve(respond(200, TOKENS)); }});
        await auth.start();
        const refreshing = auth.refresh();
        await settle();
        localStorage.setItem(KEY, stored("r2", {json.dumps(other)}));  // signed out and in again, elsewhere
        release();
        const refreshed = await refreshing;
        return {{ refreshed, kept: kept().refreshToken, who: auth.identity.racerId }};
    """)
    assert found == {"refreshed": True, "kept": "r2", "who": "u-2"}


def test_a_sign_in_whose_token_endpoint_stalls_gives_up_after_ten_seconds_and_says_so(page_js):
    found = page_js("""
        sessionStorage.setItem("alleycat.signin", JSON.stringify({ state: "s1", verifier: "v1", hash: "#/me" }));
        location.search = "?code=c1&state=s1";
        answer = (url, options) => url === "/config.json" ? respond(200, CONFIG) : never(url, options);
        let started = false;
        const starting = auth.start().then(() => { started = true; });
        await settle();
        const waiting = { started, timers: pending() };     // the first page is not drawn yet
        await fire(session.TOKEN_TIMEOUT_MS);
        await starting;
        return { waiting, started, notice: auth.notice, who: auth.identity, replaced, stored: localStorage.getItem(KEY),
                 timers: pending() };
    """)
    assert found["waiting"] == {"started": False, "timers": [10_000]}
    assert found["started"] is True and found["who"] is None and found["stored"] is None and found["timers"] == []
    assert found["notice"] == "Sign-in did not complete (the sign-in service did not answer). Please try again."
    assert found["replaced"] == ["/#/me"]  # the code and state left the address bar all the same


def test_a_token_answer_whose_body_stalls_is_no_answer_either(page_js):
    found = page_js("""
        sessionStorage.setItem("alleycat.signin", JSON.stringify({ state: "s1", verifier: "v1", hash: "#/" }));
        location.search = "?code=c1&state=s1";
        answer = (url, { signal }) => url === "/config.json" ? respond(200, CONFIG)
          : { ok: true, status: 200, json: () => never(url, { signal }) };
        const starting = auth.start();
        await settle();
        await fire(session.TOKEN_TIMEOUT_MS);
        await starting;
        return auth.notice;
    """)
    assert found == "Sign-in did not complete (the sign-in service did not answer). Please try again."


def test_a_refresh_whose_token_endpoint_stalls_is_tried_again(page_js):
    found = page_js("""
        localStorage.setItem(KEY, stored("r1"));
        answer = (url, options) => url === "/config.json" ? respond(200, CONFIG) : never(url, options);
        await auth.start();
        const refreshing = auth.refresh();
        await settle();
        await fire(session.TOKEN_TIMEOUT_MS);
        return { refreshed: await refreshing, timers: pending(), who: auth.identity?.racerId, kept: kept().refreshToken };
    """)
    assert found == {"refreshed": False, "timers": [30_000], "who": "u-1", "kept": "r1"}


def test_sign_in_on_a_page_that_is_not_secure_points_at_the_address_make_local_prints(page_js):
    notice = page_js("""
        answer = () => respond(200, CONFIG);
        define("crypto", { getRandomValues: (bytes) => bytes });  // no crypto.subtle: http, not on this computer
        await auth.start();
        await auth.signIn();
        return auth.notice;
    """)
    assert "make local" in notice and "https" in notice and "localhost" not in notice


# --- the build (frontend/build.mjs) ---------------------------------------------------------------

@pytest.fixture(scope="module")
def built_assets():
    """built_assets(outputs) -> build.mjs's builtAssets of a metafile's outputs, or {"error": message}."""
    build = (ROOT / "frontend" / "build.mjs").as_uri()

    return lambda outputs: run(f"const {{ builtAssets }} = await import({json.dumps(build)});", printed(
        f"try {{ return builtAssets({json.dumps(outputs)}); }} catch (error) {{ return {{ error: error.message }}; }}"))


def test_the_build_puts_the_entrys_script_and_its_stylesheet_in_the_page_whatever_their_order(built_assets):
    outputs = {  # a stylesheet that names the entry too, listed first (as an esbuild might)
        "dist/assets/app-C.css.map": {}, "dist/assets/app-C.css": {"entryPoint": "src/main.js"},
        "dist/assets/app-J.js.map": {},
        "dist/assets/app-J.js": {"entryPoint": "src/main.js", "cssBundle": "dist/assets/app-C.css"},
    }
    assert built_assets(outputs) == {"script": "dist/assets/app-J.js", "stylesheet": "dist/assets/app-C.css"}


def test_the_build_stops_and_says_why_when_the_script_or_the_stylesheet_is_missing(built_assets):
    no_script = built_assets({"dist/assets/app-C.css": {"entryPoint": "src/main.js"}})["error"]
    assert "0 scripts for src/main.js" in no_script and "dist/assets/app-C.css" in no_script
    no_css = built_assets({"dist/assets/app-J.js": {"entryPoint": "src/main.js"}})["error"]
    assert "no stylesheet for src/main.js" in no_css and "style.css" in no_css
    dangling = built_assets({"dist/assets/app-J.js": {"entryPoint": "src/main.js", "cssBundle": "dist/assets/gone.css"}})
    assert "no stylesheet" in dangling["error"]
