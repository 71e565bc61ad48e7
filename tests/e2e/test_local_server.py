"""The local API server under a burst: every connection answered, none reset; and every answer
with the security headers CloudFront adds in AWS."""

import http.client
import re
import socket
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

from stacks import headers


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


# --- every answer: CloudFront's security headers ----------------------------------------------------

def answers(stack) -> dict[str, tuple[int, "http.client.HTTPMessage"]]:
    """What the local stack answers to a page load, its files, the API (found, missing, refused,
    unauthorized), its tools and a request it cannot parse: request -> (status, headers)."""
    host, port = urlsplit(stack.url).hostname, urlsplit(stack.url).port
    page = urllib.request.urlopen(stack.url + "/", timeout=30).read().decode()
    script = re.search(r'src="(/assets/app-[^"]+\.js)"', page).group(1)
    requests = [("GET", "/", None), ("GET", script, None), ("GET", "/config.json", None), ("GET", "/openapi.json", None),
                ("GET", "/classes", None), ("GET", "/races/01JD5Z6Q8X0000000000000009", None), ("GET", "/nowhere", None),
                ("DELETE", "/classes", None), ("PUT", "/classes/hdr", b"{}"), ("POST", "/local/token", b'{"sub": "hdr"}')]
    found = {}
    for method, path, body in requests:
        connection = http.client.HTTPConnection(host, port, timeout=30)
        connection.request(method, path, body=body)
        response = connection.getresponse()
        response.read()
        found[f"{method} {path}"] = (response.status, response.msg)
        connection.close()
    with socket.create_connection((host, port), timeout=30) as connection:  # http.server's own 400
        connection.sendall(b"NONSENSE\r\n\r\n")
        raw = connection.makefile("rb")
        status = int(raw.readline().split()[1])
        found["a request line it cannot parse"] = (status, http.client.parse_headers(raw))
    return found


def test_every_answer_carries_cloudfronts_security_headers_from_the_one_definition(stack):
    # Given the headers CloudFront sends in AWS (stacks.headers), the CSP's connect list made from what
    # the local stack's /config.json points at: the live boards' socket (and sign-in, where it serves one)
    expected = headers.security_headers(headers.connect_origins(stack.site_config))
    realtime = stack.site_config["events"]["realtime"]
    assert realtime.startswith("ws://") and headers.origin(realtime) in expected["Content-Security-Policy"]
    # When the page, its files, the API and the stack's tools answer, whatever the status
    seen = answers(stack)
    assert {status for status, _ in seen.values()} >= {200, 400, 401, 404}
    # Then every answer carries each of them, once, with CloudFront's value
    wrong = {request: {name: answer.get_all(name) for name in expected if answer.get_all(name) != [expected[name]]}
             for request, (_, answer) in seen.items()}
    assert not {request: names for request, names in wrong.items() if names}
