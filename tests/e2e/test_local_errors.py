"""The local server answers every request in the contract's JSON error shape, even ones it cannot parse."""

import json
import socket
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
    (b"PATCH /racers/amy HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 501),          # unknown method
    (b"BREW /coffee HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 501),
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
