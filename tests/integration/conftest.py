"""Handlers against moto's DynamoDB, fed with the real-shaped events kept under events/."""

import copy
import json
import os
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from alleycat import store
from alleycat.schema import create_table_request
from local import handlers

EVENTS = Path(__file__).resolve().parents[2] / "events"
TABLE = "alleycat-test"


@pytest.fixture
def table():
    os.environ["TABLE_NAME"] = TABLE
    os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    with mock_aws():
        store.client.cache_clear()
        boto3.client("dynamodb").create_table(**create_table_request(TABLE))
        yield boto3.client("dynamodb")
        store.client.cache_clear()


class Api:
    """Invokes a function with its events/ file, overriding what a test needs."""

    def __call__(self, function, path_parameters=None, body=..., query=..., claims=...):
        event = copy.deepcopy(json.loads((EVENTS / f"{function}.json").read_text()))
        if path_parameters:
            event["pathParameters"].update(path_parameters)
            path = event["resource"]
            for name, value in event["pathParameters"].items():
                path = path.replace("{" + name + "}", value)
            event["path"] = path
        if body is not ...:
            event["body"] = body if body is None or isinstance(body, str) else json.dumps(body)
        if query is not ...:
            event["queryStringParameters"] = query
            event["multiValueQueryStringParameters"] = {k: [v] for k, v in query.items()} if query else None
        if claims is not ...:
            event["requestContext"]["authorizer"] = {"claims": claims} if claims else None
        response = handlers.invoke(function, event)
        return response["statusCode"], json.loads(response["body"]) if response.get("body") else None


@pytest.fixture
def api(table):
    return Api()


ADMIN = {"sub": "ops", "cognito:groups": "admin"}


def racer_claims(racer_id):
    return {"sub": racer_id, "cognito:groups": ""}


@pytest.fixture
def race(api):
    """A class 'hill-climb' with one open race, and racer-1 registered."""
    assert api("put_class", body={"name": "Hill climb"}, claims=ADMIN)[0] == 200
    assert api("put_racer", {"racerId": "racer-1"}, body={"name": "Racer One"}, claims=racer_claims("racer-1"))[0] == 200
    status, body = api("create_race", body={"startsAt": "2026-11-22T10:00:00Z"}, claims=ADMIN)
    assert status == 201
    return body
