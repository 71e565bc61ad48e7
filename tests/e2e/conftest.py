"""The local stack over real HTTP, as a user of `make local` meets it."""

import json
import urllib.error
import urllib.request

import pytest

from alleycat.clock import iso
from local.dynamodb_local import QUICK_JIT, EmbeddedDynamoDB
from local.server import LocalStack


@pytest.fixture(scope="package")
def stack():
    # DynamoDB Local in memory, with the tests' JIT (tests/conftest.py): less of the CPU the other
    # worker's tests share; the stack starts it as `make local` starts its own.
    # The history writer's window shortened (docs/local.md): these tests read history seconds after they post, on
    # the wall clock, and never wait the stack's 30 s.
    running = LocalStack(port=0, dynamodb=EmbeddedDynamoDB(jvm_options=QUICK_JIT), history_window_seconds=1).start()
    yield running
    running.stop()


class Client:
    def __init__(self, base_url: str, clock=None):
        self.base_url, self.clock = base_url, clock

    def starts_in(self, seconds: float = 0) -> str:
        """A race's ``startsAt`` that many seconds from the stack's now; negative: a race that started that
        long ago, whose seconds up to then have happened (one already over finishes at once)."""
        return iso(self.clock.now() + seconds)

    def call(self, method, path, body=None, token=None, raw=None):
        status, _, answer = self.exchange(method, path, body, token, raw)
        return status, answer

    def exchange(self, method, path, body=None, token=None, raw=None):
        """(status, response headers, JSON body)."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.headers, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, error.headers, json.loads(error.read() or b"null")

    def token(self, sub, groups=()):
        return self.call("POST", "/local/token", {"sub": sub, "groups": list(groups)})[1]["token"]


@pytest.fixture(scope="package")
def client(stack):
    return Client(stack.url, stack.clock)


# --- browsers: the site's real CSP ----------------------------------------------------------------

# Every browser page runs under the Content-Security-Policy CloudFront sends (the local server sends the same,
# stacks.headers): what it blocks is reported by the page (a securitypolicyviolation event) and by
# Chromium's console; any such report fails the test that caused it
# (a test module's browser fixture yields ``CspWatchedBrowser(browser)``). So `page.wait_for_function` takes
# a function (`() => ...`): Playwright evaluates a bare expression again at each poll, an eval the CSP
# refuses (no 'unsafe-eval'), and a function once, while it is called from outside the page.
REPORT_CSP_VIOLATIONS = """document.addEventListener("securitypolicyviolation", (event) =>
  console.error(`CSP violation: ${event.effectiveDirective} blocked ${event.blockedURI || "inline"}`));"""
CSP_VIOLATIONS: list[str] = []


class CspWatchedBrowser:
    """The browser, each of whose contexts reports CSP violations into ``CSP_VIOLATIONS``."""

    def __init__(self, browser):
        self._browser = browser

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        context.add_init_script(REPORT_CSP_VIOLATIONS)
        context.on("console", lambda message: message.type == "error" and (
            "Content Security Policy" in message.text or message.text.startswith("CSP violation"))
            and CSP_VIOLATIONS.append(f"{message.page.url if message.page else ''}: {message.text}"))
        return context


@pytest.fixture(autouse=True)
def no_csp_violation():
    CSP_VIOLATIONS.clear()
    yield
    assert not CSP_VIOLATIONS, CSP_VIOLATIONS
