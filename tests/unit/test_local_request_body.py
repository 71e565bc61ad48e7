"""The local stack's events carry a body as API Gateway's HTTP API does: text for text types, base64 else."""

import base64

import pytest

from local.events import request_body


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8", "Application/JSON",
                                          "text/plain", "text/csv", "application/xml", "application/javascript"])
def test_a_text_type_body_is_text(content_type):
    assert request_body('{"name": "Amélie"}'.encode(), content_type) == ('{"name": "Amélie"}', False)


@pytest.mark.parametrize("content_type", [None, "", "application/x-www-form-urlencoded", "application/octet-stream",
                                          "multipart/form-data; boundary=x", "application/vnd.api+json", "image/png"])
def test_any_other_body_is_base64(content_type):
    raw = b'{"name": "Am\xc3\xa9lie"}'
    assert request_body(raw, content_type) == (base64.b64encode(raw).decode(), True)


def test_bytes_that_are_not_utf8_under_a_text_type_arrive_as_sent_never_with_replacement_characters():
    raw = '{"name": "Amélie"}'.encode("latin-1")
    body, encoded = request_body(raw, "application/json")
    assert encoded and base64.b64decode(body) == raw


def test_no_body_is_none():
    assert request_body(b"", "application/json") == (None, False)
