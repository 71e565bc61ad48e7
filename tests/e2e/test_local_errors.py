"""The local server answers every request in the contract's JSON error shape, even ones it cannot parse."""

import json
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest


def raw_request(base_url: str, data: bytes) -> tuple[int, dict, dict]:
    """Sends bytes as they are; (status, headers, JSON body) of the answer."""
    url = urlsplit(base_url)
    with socket.create_connection((url.hostname, url.port), timeout=10) as connection:
        connection.sendall(data)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(body[: int(headers.get("content-length", len(body)))])


@pytest.mark.parametrize("request_bytes, status", [
    (b"BREW /coffee HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 501),             # a method CloudFront refuses
    (b"GET\r\n\r\n", 400),                                                                # malformed request line
    (b"GET /races/x HTTP/9.9\r\nHost: x\r\n\r\n", 505),                                   # unknown HTTP version
    (b"PUT /racers/amy HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\nConnection: close\r\n\r\n{}", 400),
    (b"PUT /racers/amy HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\nConnection: close\r\n\r\n{}", 400),
])
def test_requests_the_server_cannot_take_get_a_json_error(stack, request_bytes, status):
    answered, headers, body = raw_request(stack.url, request_bytes)
    assert answered == status
    assert headers["content-type"] == "application/json"
    assert isinstance(body["message"], str) and body["message"]


@pytest.mark.parametrize("method, path", [
    ("PATCH", "/racers/amy"), ("OPTIONS", "/racers/amy"), ("OPTIONS", "/races"), ("DELETE", "/classes"),
    ("POST", "/races/01JD5Z6Q8X0000000000000000"), ("PUT", "/nowhere"),
])
def test_a_method_no_route_has_is_api_gateways_404(stack, method, path):
    # API Gateway's routes are a method and a path: "If no routes match a request, API Gateway returns
    # {"message":"Not Found"}" (docs: Create routes for HTTP APIs); no CORS is configured, so OPTIONS too
    request = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
    status, headers, body = raw_request(stack.url, request)
    assert (status, body) == (404, {"message": "Not Found"})
    assert headers["content-type"] == "application/json"


def test_head_of_an_api_route_is_404_and_of_the_site_its_headers_alone(stack):
    url = urlsplit(stack.url)
    for path, status in (("/races/01JD5Z6Q8X0000000000000000", 404), ("/", 200)):
        with socket.create_connection((url.hostname, url.port), timeout=10) as connection:
            connection.sendall(f"HEAD {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            received = b""
            while chunk := connection.recv(65536):
                received += chunk
        head, _, body = received.partition(b"\r\n\r\n")
        assert int(head.split()[1]) == status and body == b""


def test_a_body_that_is_not_utf8_reaches_the_function_as_api_gateway_sends_it_and_is_400(stack, client):
    token = client.token("amy")
    latin1 = '{"name": "Am\xe9lie"}'.encode("latin-1")
    for content_type in ("application/x-www-form-urlencoded", "application/json", "text/plain", None):
        request = urllib.request.Request(f"{stack.url}/racers/amy", data=latin1, method="PUT")
        request.add_header("Authorization", f"Bearer {token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        else:
            request.remove_header("Content-type")
        try:
            urllib.request.urlopen(request, timeout=30)
            raise AssertionError(f"{content_type}: accepted")
        except urllib.error.HTTPError as error:
            assert error.code == 400, content_type
            assert "not UTF-8 text" in json.loads(error.read())["message"], content_type
    # while the same name in UTF-8, under the form type curl sends by default, is read as JSON
    utf8 = '{"name": "Am\xe9lie"}'.encode()
    request = urllib.request.Request(f"{stack.url}/racers/amy", data=utf8, method="PUT")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.loads(response.read())["name"] == "Am\xe9lie"
