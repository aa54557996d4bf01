"""An episode's messages as turns, and where two trajectories first differ.

A turn is one assistant message with the tool calls it made and the results they got (the project's
model turns, :func:`res_repro.traces.turns`). Two trajectories are aligned turn by turn; the first
divergence is the first turn whose calls (tool names and arguments) or results differ, or the first turn
one trajectory has and the other has not. What the assistant says around its calls does not count, nor
do the call ids a provider assigns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import zip_longest
from typing import Any

from res_repro.traces import tool_results, turns
from res_repro.viewer.readable import parsed


@dataclass(frozen=True)
class Call:
    """One tool call of a turn: the tool, its arguments (parsed when JSON) and the result it got (None
    when none came back)."""

    name: str
    arguments: Any
    result: Any

    def strings(self) -> list[str]:
        """Every string in the arguments (the text a call acts on: a path, a command, an id)."""
        found: list[str] = []

        def collect(value: Any) -> None:
            if isinstance(value, str):
                found.append(value)
            elif isinstance(value, dict):
                for item in value.values():
                    collect(item)
            elif isinstance(value, list):
                for item in value:
                    collect(item)

        collect(self.arguments)
        return found


@dataclass(frozen=True)
class Turn:
    """One assistant message (numbered from 1) with its calls."""

    number: int
    message: dict[str, Any]
    calls: tuple[Call, ...]

    def signature(self) -> list[tuple[str, str, str]]:
        """What the alignment compares: each call's tool, arguments and result, as canonical JSON."""
        return [(c.name, _canonical(c.arguments), _canonical(c.result)) for c in self.calls]


def _canonical(value: Any) -> str:
    return json.dumps(parsed(value), sort_keys=True, default=str)


def episode_turns(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[Turn]]:
    """The messages before the first turn (the prompt) and the turns."""
    results = tool_results(messages)
    found = turns(messages)
    prompt = found[0][0] if found else list(messages)
    return prompt, [
        Turn(
            number,
            message,
            tuple(
                Call(
                    call.get("function", {}).get("name", ""),
                    parsed(call.get("function", {}).get("arguments")),
                    parsed(results.get(call.get("id", ""))),
                )
                for call in message.get("tool_calls") or []
            ),
        )
        for number, (_, message) in enumerate(found, start=1)
    ]


def first_divergence(left: list[Turn], right: list[Turn]) -> int | None:
    """The number of the first turn where two trajectories differ, or None when they never do."""
    for number, (a, b) in enumerate(zip_longest(left, right), start=1):
        if a is None or b is None or a.signature() != b.signature():
            return number
    return None
