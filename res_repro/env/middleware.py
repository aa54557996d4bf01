"""Middleware layers for tool environments, looked up by name.

Each layer wraps the dispatcher's handler (see :class:`res_repro.env.tools.Middleware`). Layers are
built per episode from the task file's ``middleware`` list with a seed, so seeded behaviour (which
calls fail) is the same on every rerun.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from res_repro.env.tools import Handler, Middleware, ToolCall, ToolResponse, ToolSpec, error
from res_repro.errors import UserInputError


class TransientFailures:
    """Fails a seeded share of calls to some tools with 429 or 503 and a ``Retry-After`` header.

    Params: ``tools`` (names; empty means every tool), ``rate`` (share of calls that fail),
    ``max_consecutive`` (a retry after this many failures in a row always goes through).
    """

    name = "transient_failures"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params.get("tools", ()))
        self.rate = float(params.get("rate", 0.5))
        self.max_consecutive = int(params.get("max_consecutive", 2))
        self._rng = random.Random(seed)
        self._streak = 0

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Fail the call or forward it."""
        targeted = not self.targets or call.tool in self.targets
        if targeted and self._streak < self.max_consecutive and self._rng.random() < self.rate:
            self._streak += 1
            status = self._rng.choice((429, 503))
            return error(status, "temporarily unavailable; retry later", **{"Retry-After": "1"})
        self._streak = 0
        return forward(call)


class Pagination:
    """Cuts the ``items`` of list-like tools into pages of ``page_size`` with an opaque ``next_cursor``.

    Params: ``tools`` (names), ``page_size``. The caller passes ``cursor`` to get the next page.
    """

    name = "pagination"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.page_size = int(params["page_size"])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward without the cursor, then return the requested page."""
        if call.tool not in self.targets:
            return forward(call)
        arguments = dict(call.arguments)
        cursor = arguments.pop("cursor", None)
        response = forward(ToolCall(call.tool, arguments))
        if response.is_error or not isinstance(response.body, dict) or "items" not in response.body:
            return response
        try:
            start = int(str(cursor or "p0").removeprefix("p"))
        except ValueError:
            return error(400, f"invalid cursor {cursor!r}; pass the next_cursor of the previous page")
        items = response.body["items"]
        page = items[start : start + self.page_size]
        more = start + self.page_size < len(items)
        body = {
            **response.body,
            "items": page,
            "count": len(page),
            "next_cursor": f"p{start + self.page_size}" if more else None,
        }
        return ToolResponse(response.status, body, response.headers)


class RequireToken:
    """Refuses calls to ``tools`` without the right ``token`` argument, pointing to where it is kept.

    Params: ``tools``, ``token``, ``hint`` (where the credential can be found) and optionally ``next``
    (the call that reveals it, ``{"tool": ..., "arguments": {...}}``).
    """

    name = "require_token"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.token = str(params["token"])
        self.guidance: dict[str, Any] = {"hint": str(params["hint"])}
        if params.get("next"):
            self.guidance["next"] = params["next"]

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Check and strip the token, then forward."""
        if call.tool not in self.targets:
            return forward(call)
        arguments = dict(call.arguments)
        given = arguments.pop("token", None)
        if given is None:
            return ToolResponse(401, {"error": "authentication required: pass `token`", **self.guidance})
        if str(given) != self.token:
            return ToolResponse(403, {"error": "invalid token", **self.guidance})
        return forward(ToolCall(call.tool, arguments))


MiddlewareFactory = Callable[[Mapping[str, Any], int], Middleware]

MIDDLEWARE: dict[str, MiddlewareFactory] = {
    layer.name: layer for layer in (TransientFailures, Pagination, RequireToken)
}


def make_middleware(name: str, params: Mapping[str, Any], seed: int) -> Middleware:
    """Build a registered middleware layer; unknown names get an error listing the known ones."""
    try:
        factory = MIDDLEWARE[name]
    except KeyError:
        raise UserInputError(f"unknown middleware {name!r}; expected one of {sorted(MIDDLEWARE)}") from None
    return factory(params, seed)
