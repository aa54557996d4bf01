"""Reference adapters: how a scaled tool environment's reference program copes with each change.

An operator that changes a tool environment records an adapter (the operator's name and parameters) in
the task's ``solution/adapters.json``; the reference program then calls its tools through those
adapters, oldest change nearest the program. Operators live above this layer, so adapters are found by
name among the providers registered under the entry-point group :data:`GROUP` (the harness registers
its own operator library there; a package of extra operators registers its own provider the same way).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from res_repro.env.errors import TaskFormatError

GROUP = "res_repro.reference_adapters"

Call = Callable[..., Any]
Adapter = Callable[[Call, dict[str, Any]], Call]

_found: dict[str, Adapter] = {}


def _discover(refresh: bool = False) -> dict[str, Adapter]:
    """Every adapter the installed providers offer (each entry point names a function returning them).

    The answer is kept; ``refresh`` asks the providers again, for operators registered since.
    """
    global _found
    if refresh or not _found:
        found: dict[str, Adapter] = {}
        for entry in entry_points(group=GROUP):
            provider: Callable[[], Mapping[str, Adapter]] = entry.load()
            found.update(provider())
        _found = found
    return _found


def adapted(call: Call, adapters: list[dict[str, Any]], source: Path) -> Call:
    """``call`` wrapped in ``adapters`` (oldest first in the list, so the oldest ends up innermost)."""
    known = _discover() if adapters else {}
    if any(entry.get("operator", "") not in known for entry in adapters):
        known = _discover(refresh=True)  # an operator registered after the first look
    for index, entry in reversed(list(enumerate(adapters))):
        adapter = known.get(entry.get("operator", ""))
        if adapter is None:
            raise TaskFormatError(
                source,
                f"{index}.operator",
                f"no reference adapter named {entry.get('operator')!r} is installed "
                f"(entry-point group {GROUP}); expected one of {sorted(known)}",
            )
        call = adapter(call, entry["params"])
    return call
