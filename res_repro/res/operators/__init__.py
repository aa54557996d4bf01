"""The operator library by name, and the named subsets (``full``, ``basic``) used by experiments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from res_repro.errors import UserInputError
from res_repro.res.operators.base import Altered, Application, Family, Operator
from res_repro.res.operators.harbor_operators import HARBOR_OPERATORS
from res_repro.res.operators.tool_operators import TOOL_OPERATORS

OPERATORS: dict[str, Operator] = {op.name: op for op in (*TOOL_OPERATORS, *HARBOR_OPERATORS)}


def reference_adapters() -> dict[str, Callable[..., Any]]:
    """Every operator's reference adapter by operator name (the provider behind the entry point
    ``res_repro.reference_adapters``, through which the environment layer finds them)."""
    return {name: operator.adapt for name, operator in OPERATORS.items()}


def library(names: list[str] | None) -> list[Operator]:
    """The operators named (all of them for None); unknown names get one clear error."""
    if names is None:
        return list(OPERATORS.values())
    unknown = [name for name in names if name not in OPERATORS]
    if unknown:
        raise UserInputError(
            f"scaling.library: unknown operators {unknown}; expected names from {sorted(OPERATORS)}"
        )
    return [OPERATORS[name] for name in names]


__all__ = ["OPERATORS", "Altered", "Application", "Family", "Operator", "library", "reference_adapters"]
