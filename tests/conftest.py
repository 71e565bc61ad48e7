"""Shared test setup: no real AWS, the environment the local stack gives the functions, each test marked
with its layer, the order `make test` hands work to its two workers, and DynamoDB Local.

Layers are folders: ``unit`` (no subprocess, no network, no JVM), ``integration`` (handlers
against DynamoDB Local, Node, loopback servers), ``infrastructure`` (the synthesized app), ``e2e``
(the local stack over HTTP and in a browser). ``make test-unit`` and its siblings run one; each
test also carries its layer as a marker (``-m "not e2e"``).
"""

import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

os.environ.setdefault("PAGE_TOKEN_KEY", "test-page-token-key")
# As the local stack sets it (local.server.configure_environment): the embedded engine shares the
# machine with both workers, so no 1.5 s read timeout for handlers invoked directly.
os.environ.setdefault("DYNAMODB_READ_TIMEOUT_SECONDS", "30")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "Alleycat")
os.environ.setdefault("POWERTOOLS_SERVICE_NAME", "alleycat")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")



def share_botocore_data() -> None:
    """One botocore data loader for every session this process makes: the layer makes its client from a
    new botocore session (``alleycat.storage.dynamo.client``), as a Lambda does once a process, and the
    integration tests make one a test, each loading and parsing the same service model and endpoint
    files again (70-240 ms a test; 14 ms with the files loaded once). The clients stay each test's own."""
    import functools

    import botocore.loaders
    import botocore.session

    botocore.session.create_loader = functools.cache(botocore.loaders.create_loader)


share_botocore_data()

LAYERS = ("unit", "integration", "infrastructure", "e2e")
# Files whose tests are each a work unit of their own (long tests meant to run side by side).
ALONE = ("tests/integration/test_live_pipeline_model.py",)
# e2e files on the stack whose clock the tests move (tests/e2e/manual_clock/conftest.py): two work
# units of about equal length (the ride page's files, the rest), each worker that takes one starting
# its own stack (the package's fixtures are a process's), beside the shared stack's.
MANUAL_CLOCK = "tests/e2e/manual_clock/"
MANUAL_CLOCK_RIDES = "tests/e2e/manual_clock/test_ride"
# Work `make test` starts first (its two workers take work units in collection order): the
# longest, so that neither worker is left with a long one at the end. The rest follow as collected.
FIRST = ("tests/integration/test_live_pipeline_model.py", "tests/e2e/", "tests/infrastructure/")


def work_unit(nodeid: str) -> str:
    """What runs on one worker, so an expensive fixture is made once: the local stack of e2e, the
    synthesized app of infrastructure, a module's DynamoDB Local; ``ALONE`` files' tests one by one."""
    path = nodeid.split("::", 1)[0]
    if path.startswith(MANUAL_CLOCK):
        return "manual-clock-rides" if path.startswith(MANUAL_CLOCK_RIDES) else "manual-clock"
    if path.startswith(("tests/e2e/", "tests/infrastructure/")):
        return path.split("/")[1]
    return nodeid if path in ALONE else path


def first(item: pytest.Item) -> int:
    return next((n for n, prefix in enumerate(FIRST) if item.nodeid.startswith(prefix)), len(FIRST))


def pytest_collection_modifyitems(config, items):
    for item in items:
        folder, layer = Path(item.path).relative_to(ROOT).parts[:2]
        layer = layer if folder == "tests" else "unit"  # bench/tests: the bench's own, pure Python
        if layer in LAYERS:
            item.add_marker(getattr(pytest.mark, layer))
    items.sort(key=first)  # stable: within a rank, as collected


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A skipped test fails: a machine without a tool the tests need (Chromium, Node, a 3.13) must not
    pass by running less (``make test`` installs them)."""
    report = yield
    if report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome, report.longrepr = "failed", f"skipped, which no test may be: {reason}"
    return report


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``make test``'s scheduler: xdist's, with ``work_unit`` as its scope (xdist's own groups are
    read from a node id attribute pytest 9 no longer has)."""
    from xdist.scheduler import LoadScopeScheduling

    class ByWorkUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return ByWorkUnit(config, log)


@pytest.fixture(autouse=True)
def settings_read_afresh():
    """Each test's functions read the environment as it left it (``alleycat.settings.load`` reads it
    once a process); a test that changes it halfway calls ``settings.reset`` itself."""
    from alleycat import settings

    settings.reset()
    yield
    settings.reset()


class Engines:
    """DynamoDB Local, a fresh engine per test module, the next one started while one serves.

    One engine for a whole session gets slower with every stream record it has ever taken, in
    any table, deleted or not (measured: 50 writes to a new table take 0.2 s on a fresh engine,
    1.7 s once 30,000 records of other tables are held); a new JVM costs about 1 s, started in
    the background, with ``QUICK_JIT``. Tests see a plain ``EmbeddedDynamoDB``.
    """

    def __init__(self):
        self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dynamodb-local")
        self._next: Future = self._starter.submit(self._start)

    def _start(self):
        from local.dynamodb_local import QUICK_JIT, EmbeddedDynamoDB

        return EmbeddedDynamoDB(jvm_options=QUICK_JIT).start()

    def take(self):
        engine, self._next = self._next.result(), self._starter.submit(self._start)
        return engine

    def close(self) -> None:
        self._next.result().stop()
        self._starter.shutdown()


@pytest.fixture(scope="session")
def engines():
    pool = Engines()
    yield pool
    pool.close()


@pytest.fixture(scope="module")
def dynamodb_local(engines):
    """AWS's DynamoDB Local for the module's tests (each makes its own table in it)."""
    engine = engines.take()
    yield engine
    engine.stop()
