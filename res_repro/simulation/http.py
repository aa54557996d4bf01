"""The HTTP side shared by the loopback servers: ``POST /v1/chat/completions`` answered by a responder.

A server module builds its responder and calls :func:`serve`, which listens on a free loopback port,
prints ``listening PORT`` once ready (what :func:`~res_repro.simulation.process.loopback_server` waits
for) and serves until it is killed.
"""

from __future__ import annotations

import json
import math
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol

from res_repro.simulation.timing import RateLimited
from res_repro.simulation.wire import RequestError

ROUTE = "/v1/chat/completions"


class Responder(Protocol):
    """What a loopback server answers requests with."""

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion answering ``body``; :class:`RequestError` for what cannot be answered."""
        ...


def handler(responder: Responder) -> type[BaseHTTPRequestHandler]:
    """A request handler answering chat completions from ``responder``."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.path.rstrip("/") != ROUTE:
                return self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                self._send(200, responder.respond(body))
            except RateLimited as exc:  # as the providers refuse a request over a rate limit
                error = {"message": str(exc), "type": "requests", "code": "rate_limit_exceeded"}
                self._send(429, {"error": error}, {"retry-after": f"{math.ceil(exc.retry_after)}"})
            except Exception as exc:  # an unanswerable request fails alone; the server keeps serving
                message = str(exc) if isinstance(exc, RequestError) else f"{type(exc).__name__}: {exc}"
                self._send(400, {"error": {"message": message, "type": "invalid_request_error"}})

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the harness records what matters."""

    return Handler


def serve(responder: Responder) -> None:
    """Serve ``responder`` on a free loopback port, announcing the port on stdout, until killed."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(responder))
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()
