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


MiddlewareFactory = Callable[[Mapping[str, Any], int], Middleware]

MIDDLEWARE: dict[str, MiddlewareFactory] = {TransientFailures.name: TransientFailures}


def make_middleware(name: str, params: Mapping[str, Any], seed: int) -> Middleware:
    """Build a registered middleware layer; unknown names get an error listing the known ones."""
    try:
        factory = MIDDLEWARE[name]
    except KeyError:
        raise UserInputError(f"unknown middleware {name!r}; expected one of {sorted(MIDDLEWARE)}") from None
    return factory(params, seed)
