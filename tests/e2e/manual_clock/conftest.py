"""The files here share a second local stack, on a clock the tests move (``ManualClock``): races'
ends, token lifetimes and a ride's seconds pass for the stack (and the browser, with Playwright's
clock), not for the test. They are one work unit (``tests/conftest.py::work_unit``)."""

import time

import pytest

from alleycat.settings import PUSH_MESSAGES_PER_SECOND
from local.clock import ManualClock
from local.dynamodb_local import QUICK_JIT, EmbeddedDynamoDB
from local.server import LocalStack

from ..conftest import Client
from .browsing import chromium


@pytest.fixture(scope="package")
def stack():
    # Boards are pushed at most so many times a wall second (alleycat.rules.push_gate: AppSync bills by the
    # wall clock), which these tests do not move: the race seconds they pass in one wall second get
    # ten messages, not one (tests/integration/test_push_gate.py holds the pacing itself).
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(PUSH_MESSAGES_PER_SECOND, "10")
        running = LocalStack(port=0, dynamodb=EmbeddedDynamoDB(jvm_options=QUICK_JIT),
                             clock=ManualClock(float(int(time.time())))).start()
        yield running
        running.stop()


@pytest.fixture(scope="package")
def client(stack):
    return Client(stack.url, stack.clock)


@pytest.fixture(scope="module")
def browser(stack):
    with chromium() as launched:
        yield launched
