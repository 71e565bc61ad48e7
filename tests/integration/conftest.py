"""Handlers against DynamoDB Local, fed with the real-shaped events kept under events/."""

import json
import os

import pytest

from alleycat import settings
from alleycat.clock import epoch
from alleycat.storage import dynamo
from alleycat.storage.schema import HISTORY_WRITER_TYPES, create_table_request
from local import handlers
from local.events import sample_event, with_header
from local.streams import StreamTail, passes_filter

TABLE = "alleycat-test"


@pytest.fixture
def table(dynamodb_local):
    """An empty table for the test, as the functions see it (TABLE_NAME, endpoint)."""
    os.environ.update(TABLE_NAME=TABLE, AWS_ENDPOINT_URL_DYNAMODB=dynamodb_local.url)
    settings.reset()
    dynamo.client.cache_clear()
    engine = dynamodb_local.client()
    engine.create_table(**create_table_request(TABLE))
    yield engine
    engine.delete_table(TableName=TABLE)
    dynamo.client.cache_clear()


class Api:
    """Invokes a function with its events/ file, overriding what a test needs."""

    def __call__(self, function, path_parameters=None, body=..., query=..., claims=..., headers=None, at=None):
        """``at``: when the request reaches the API (an ISO time), else the sample event's time."""
        event = sample_event(function, path_parameters, body, query, claims)
        if at is not None:
            event["requestContext"]["timeEpoch"] = int(epoch(at) * 1000)
        for name, value in (headers or {}).items():
            with_header(event, name, value)
        response = handlers.invoke(function, event)
        return response["statusCode"], json.loads(response["body"]) if response.get("body") else None


@pytest.fixture
def api(table):
    return Api()


# Claims as the HTTP API's JWT authorizer passes a Cognito token's (a user in no group has no groups claim).
ADMIN = {"sub": "ops", "cognito:groups": "[admin]"}


def racer_claims(racer_id):
    return {"sub": racer_id}


@pytest.fixture
def race(api):
    """A class 'hill-climb' with one open race, and racer-1 registered."""
    assert api("put_class", body={"name": "Hill climb"}, claims=ADMIN)[0] == 200
    assert api("put_racer", {"racerId": "racer-1"}, body={"name": "Racer One"}, claims=racer_claims("racer-1"))[0] == 200
    status, body = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)
    assert status == 201
    return body


@pytest.fixture
def chunk_path(monkeypatch):
    """The fan-in off (``ALLEYCAT_FAN_IN=off``): telemetry writes the racers' chunks itself, as before the fan-in, for
    the tests of that path's own writes, requests and retries (it stays reachable)."""
    monkeypatch.setenv(settings.FAN_IN, "off")
    settings.reset()
    yield
    settings.reset()


@pytest.fixture
def faults(table):
    """Injects DynamoDB errors at the boto3 client (see tests/integration/faults.py)."""
    from .faults import Faults

    injected = Faults()
    yield injected
    injected.clear()


class StreamAfterHistory(StreamTail):
    """The table's stream as the stream processor's mapping sees it once the history writer's window has passed:
    ``read()`` hands what is new to the history writer (its second blocks) until it writes nothing more, and returns
    every record read (``writes_history = False``: what is new, the writer left to the test)."""

    writes_history = True

    def read(self) -> list[dict]:
        records = fresh = super().read()
        while self.writes_history and fresh:
            assert write_history(fresh) == {"batchItemFailures": []}
            fresh = super().read()
            records = records + fresh
        return records


@pytest.fixture
def server(table, dynamodb_local):
    """The table's stream, read from its first record (``server.read()``: what is new since)."""
    arn = dynamodb_local.client().describe_table(TableName=TABLE)["Table"]["LatestStreamArn"]
    return StreamAfterHistory(StreamTail.of_table(dynamodb_local, TABLE).client, arn)


def process(records):
    """Invokes the stream handler as the event source mapping would (never with no records)."""
    if not records:
        return {"batchItemFailures": []}
    return handlers.invoke("stream_processor", {"Records": records})


def write_history(records):
    """Invokes the history writer with ``records``' second blocks, as its mapping's filter passes them."""
    blocks = [record for record in records if passes_filter(record, HISTORY_WRITER_TYPES)]
    return handlers.invoke("write_history", {"Records": blocks}) if blocks else {"batchItemFailures": []}


@pytest.fixture
def request_counter():
    """Counts DynamoDB requests made through botocore while the test runs."""
    from alleycat.storage import dynamo

    calls = []

    def count(event_name, **kwargs):
        calls.append(event_name.rsplit(".", 1)[-1])

    dynamo.client().meta.events.register("before-call.dynamodb", count)
    yield calls
    dynamo.client().meta.events.unregister("before-call.dynamodb", count)


@pytest.fixture
def clock(monkeypatch):
    """Retries and backoff wait on a clock the test controls (tests/integration/clock.py)."""
    from .clock import install

    return install(monkeypatch)
