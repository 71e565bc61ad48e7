"""The files here share a second local stack, on a clock the tests move (``ManualClock``): races'
ends, token lifetimes and a ride's seconds pass for the stack (and the browser, with Playwright's
clock), not for the test. They are two work units (``tests/conftest.py::work_unit``)."""

import time

import pytest

from local.clock import ManualClock
from local.dynamodb_local import QUICK_JIT, EmbeddedDynamoDB
from local.server import LocalStack

from ..conftest import Client
from .browsing import chromium


@pytest.fixture(scope="package")
def stack():
    # Races' tickers push a board a race second on this clock too (alleycat.flows.ticking)
    running = LocalStack(port=0, dynamodb=EmbeddedDynamoDB(jvm_options=QUICK_JIT),
                         clock=ManualClock(float(int(time.time())))).start()
    yield running
    running.stop()


@pytest.fixture(scope="package")
def client(stack):
    return Client(stack.url, stack.clock)


@pytest.fixture(scope="package")
def chromium_browser(stack):
    """One Chromium (and Playwright driver) for the package: launching them took about a second a module."""
    with chromium() as launched:
        yield launched


def without_ingest(route):
    """``/config.json`` without ``ingest``, as the deployed site's is until IoT Core takes telemetry: a ride sends
    over HTTP, and what counted comes in the API's answers (a page's own route for it takes precedence)."""
    from playwright.sync_api import Error

    try:
        answer = route.fetch()
        config = answer.json()
        config.pop("ingest", None)
        route.fulfill(response=answer, json=config)
    except Error:  # the page or its context closed meanwhile
        pass


class ModuleBrowser:
    """The package's Chromium as a module's tests see it: the contexts they open are closed when the module
    ends, so no page of one module (its timers, its polls) runs on beside the next module's tests. Their pages
    ride over HTTP (``without_ingest``) unless a context is opened with ``mqtt=True``."""

    def __init__(self, browser):
        self._browser, self._contexts = browser, []

    def new_context(self, mqtt=False, **options):
        context = self._browser.new_context(**options)
        if not mqtt:
            context.route("**/config.json", without_ingest)
        self._contexts.append(context)
        return context

    def close_contexts(self) -> None:
        for context in self._contexts:
            context.close()


@pytest.fixture(scope="module")
def browser(chromium_browser):
    module_browser = ModuleBrowser(chromium_browser)
    yield module_browser
    module_browser.close_contexts()


@pytest.fixture(scope="package")
def idp(stack):
    """The user pool API as an app calls it: unsigned, the app client's id in each request."""
    import boto3
    from botocore import UNSIGNED
    from botocore.config import Config

    return boto3.client("cognito-idp", endpoint_url=stack.users.config["idpUrl"], region_name=stack.users.pool.region,
                        config=Config(signature_version=UNSIGNED))
