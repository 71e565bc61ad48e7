"""Bodies as API Gateway's HTTP API delivers them (payload format 2.0): text for text/*, JSON, XML and
JavaScript content types, base64 (``isBase64Encoded``) for every other, the form type of
`curl --data-binary` included. A body that is not UTF-8 JSON is a 400 on every write route, never a 5xx."""

import base64
import json

import pytest

from alleycat.edge import routes
from local import handlers
from local.events import sample_event

from .conftest import ADMIN

WRITE_ROUTES = [route.function for route in routes.ROUTES if route.method != "GET"]
NOT_UTF8 = {
    "a Latin-1 form, as curl --data-binary sends a file": "name=Am\xe9lie".encode("latin-1"),
    "JSON with a Latin-1 letter": '{"name": "Am\xe9lie"}'.encode("latin-1"),
    "a byte-order mark of UTF-16": b"\xff\xfe{\x00}\x00",
    "a surrogate encoded as UTF-8 would (CESU-8)": b'{"name": "\xed\xa0\x80"}',
    "a truncated sequence at the end": b'{"name": "Amy"}\xe2\x82',
}


def base64_event(function, raw: bytes):
    event = sample_event(function, claims=ADMIN)
    event["body"], event["isBase64Encoded"] = base64.b64encode(raw).decode(), True
    event["headers"]["content-type"] = "application/x-www-form-urlencoded"
    return event


def answer(event):
    response = handlers.invoke(_function(event), event)
    return response["statusCode"], json.loads(response["body"])


def _function(event):
    return next(route.function for route in routes.ROUTES if route.key == event["routeKey"])


@pytest.mark.parametrize("raw", NOT_UTF8.values(), ids=NOT_UTF8)
@pytest.mark.parametrize("function", WRITE_ROUTES)
def test_a_base64_body_that_is_not_utf8_is_400_on_every_write_route(table, function, raw):
    # Given bytes that are not UTF-8, base64-encoded as the HTTP API delivers a form's body
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")
    # When an admin sends them to the route
    status, body = answer(base64_event(function, raw))
    # Then it is a 400 that says the body is not UTF-8 text
    assert status == 400, body
    assert "not UTF-8 text" in body["message"] and "application/json" in body["message"]


@pytest.mark.parametrize("function", WRITE_ROUTES)
def test_a_body_marked_base64_that_is_not_is_400(table, function):
    event = sample_event(function, claims=ADMIN)
    event["body"], event["isBase64Encoded"] = "{not base64!}", True
    status, body = answer(event)
    assert (status, body["message"]) == (400, "the body is marked base64 but is not")


def test_utf8_json_sent_base64_encoded_is_read_as_the_same_json(api):
    # Given a racer's name sent as JSON under a content type the HTTP API base64-encodes
    name = "Amélie 🚴"
    event = base64_event("put_racer", json.dumps({"name": name}, ensure_ascii=False).encode())
    # When it is put / Then the racer has that name
    assert answer(event) == (200, {"racerId": "racer-1", "name": name})
    assert api("get_racer_results", {"racerId": "racer-1"})[1]["name"] == name
