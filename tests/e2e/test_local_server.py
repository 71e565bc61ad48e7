"""The local API server under a burst: every connection answered, none reset."""

import socket
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit


def test_a_burst_of_simultaneous_connections_is_answered_not_reset(stack):
    # Given 1,000 clients that connect at the same moment (a second of a full race's bikes)
    host, port = urlsplit(stack.url).hostname, urlsplit(stack.url).port

    def get() -> bytes:
        with socket.create_connection((host, port), timeout=30) as connection:
            connection.sendall(b"GET /races/01JD5Z6Q8X0000000000000000 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
            return answer

    # When each sends a request
    with ThreadPoolExecutor(max_workers=1000) as pool:
        answers = list(pool.map(lambda _: get(), range(1000)))
    # Then every one gets an HTTP answer (the race does not exist: 404), none a reset connection
    assert all(answer.startswith(b"HTTP/1.") and b" 404 " in answer.split(b"\r\n")[0] for answer in answers)
