"""Helpers shared by the operators that change tool-API environments."""

from __future__ import annotations

import random
from typing import Any

from res_repro.env.tool_task import MiddlewareDef, ToolDef
from res_repro.res.drafts import ToolDraft

LIST_OPERATIONS = frozenset({"list", "search"})


def list_tools(draft: ToolDraft) -> list[ToolDef]:
    """Tools that return ``items`` lists."""
    return [tool for tool in draft.config.tools if tool.operation in LIST_OPERATIONS]


def tool(draft: ToolDraft, name: str) -> ToolDef:
    """The tool called ``name`` (KeyError when absent)."""
    for candidate in draft.config.tools:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def add_argument(tool_def: ToolDef, name: str, schema: dict[str, Any], *, required: bool = False) -> None:
    """Let the tool's schema accept (or demand) one more argument."""
    input_schema = tool_def.input_schema
    input_schema.setdefault("type", "object")
    input_schema.setdefault("properties", {})[name] = schema
    if required and name not in input_schema.setdefault("required", []):
        input_schema["required"].append(name)


def add_outer_layer(draft: ToolDraft, name: str, params: dict[str, Any]) -> None:
    """Put a middleware layer outermost (nearest the agent): newer changes wrap older ones."""
    draft.config.middleware.insert(0, MiddlewareDef(name=name, params=params))


def has_layer(draft: ToolDraft, name: str, **match: Any) -> bool:
    """True when a layer ``name`` whose params contain ``match`` is in the stack."""
    return any(
        layer.name == name and all(layer.params.get(k) == v for k, v in match.items())
        for layer in draft.config.middleware
    )


def token(rng: random.Random, prefix: str) -> str:
    """A seeded opaque credential string."""
    return f"{prefix}-{rng.getrandbits(48):012x}"
