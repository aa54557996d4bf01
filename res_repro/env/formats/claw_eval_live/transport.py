"""A small JSON-over-HTTP client for the local mock services (standard library, never via a proxy)."""

from __future__ import annotations

import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# No ProxyHandler entries: requests to 127.0.0.1 must never go through a proxy from the environment.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: its status and its body as text."""

    status: int
    text: str

    def json(self) -> Any:
        """The body parsed as JSON; raises ValueError when it is not JSON."""
        return json.loads(self.text)


def send(
    method: str,
    url: str,
    payload: Any = None,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float = 30.0,
) -> Reply:
    """Send one request; ``payload`` (if not None) goes as a JSON body.

    Any HTTP status is a :class:`Reply`; a connection failure, a timeout or a broken answer raises
    :class:`OSError`.
    """
    all_headers = dict(headers or {})
    data = None if method.upper() == "GET" else b""
    if payload is not None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        all_headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=data, headers=all_headers, method=method.upper())
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            return Reply(response.status, response.read().decode("utf-8", errors="replace"))
    except urllib.error.HTTPError as exc:
        with exc:
            return Reply(exc.code, exc.read().decode("utf-8", errors="replace"))
    except http.client.HTTPException as exc:
        raise ConnectionError(f"{type(exc).__name__}: {exc}") from exc
