"""What AWS's rest-json stand-ins on loopback share: a handler that reads the body, checks SigV4 and
answers as AWS does, and a server for it on threads of its own."""

from __future__ import annotations

import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ACCOUNT = "000000000000"  # the account id of every local ARN


class RestJsonHandler(BaseHTTPRequestHandler):
    """What the handlers of rest-json stand-ins (local/lambda_api.py, local/scheduler.py) share: the body, the SigV4
    check, the answer. ``api`` is the stand-in served; its ``verifier`` checks signatures."""

    api: Any
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave together: no 40 ms delayed ACK a request

    def log_message(self, fmt, *args):
        pass

    def handle(self):
        try:
            super().handle()
        except ConnectionResetError:  # a client's pooled connection closed before a request
            pass

    def body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def refusal(self, body: bytes) -> tuple[str, str] | None:
        """``(error type, message)`` when the stand-in's credentials did not sign the request, as AWS answers (403)."""
        if "Authorization" not in self.headers:
            return "MissingAuthenticationTokenException", "Missing Authentication Token"
        why = self.api.verifier.verify(self.command, self.path, dict(self.headers.items()), body)
        return ("InvalidSignatureException", why) if why else None

    def answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", "x-amzn-RequestId": str(uuid.uuid4()),
                            **headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def serve(host: str, port: int, handler: type[RestJsonHandler], api) -> ThreadingHTTPServer:
    """Serves ``api`` with ``handler`` on threads of their own until ``shutdown()`` (within 0.1 s)."""
    server = ThreadingHTTPServer((host, port), type(f"Bound{handler.__name__}", (handler,), {"api": api}))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.1,), name=handler.__name__, daemon=True).start()
    return server
