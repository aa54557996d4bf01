"""Serving a written bundle on localhost with the standard library's HTTP server."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files without a log line per request."""

    def log_message(self, format: str, *args: object) -> None:
        """Requests are not logged."""


def serve(folder: Path, port: int, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """A server for ``folder`` bound to ``host:port`` (port 0: any free one); call ``serve_forever``."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    return ThreadingHTTPServer((host, port), handler)
