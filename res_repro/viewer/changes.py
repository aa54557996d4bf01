"""The RES changes behind an environment, in words, and which of them a trajectory met.

Each lineage node's manifest lists the operator applications it introduced; the changes behind a node
are those of every node from the seed down to it. What a change altered of its parent is the operator's
own statement (:meth:`res_repro.res.operators.Operator.altered`): tools whose behaviour or responses it
changed, and task files it moved, encoded, split or locked. A trajectory **meets** a change at the first
turn with a call that touches what it altered: a call of an altered tool, or a call whose arguments name
an altered file (its path under the workspace, its ``/app`` path, or a folder above it as an ``/app``
path, as the operators tell whether a task uses a file). What the change added (its notes, helpers,
vaults) does not count: seeing a change's artifacts is not acting on what it altered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from res_repro.res.operators import OPERATORS, Altered
from res_repro.res.operators.harbor_common import mentioned
from res_repro.viewer.trajectory import Call, Turn

LISTED = 8  # list items and mapping entries shown before "and N more"
PLACEHOLDER = re.compile(r"`([a-z_]+)`|<([a-z_]+)>")


@dataclass(frozen=True)
class Change:
    """One operator application of a lineage node, with what it altered."""

    seed: str
    node_id: str
    depth: int
    index: int  # its place among the node's applications
    application: dict[str, Any]
    altered: Altered

    @property
    def href(self) -> str:
        """Its place on its node's page, relative to the bundle's root."""
        return f"nodes/{self.seed}/{self.node_id}.html#change-{self.index}"

    @property
    def operator(self) -> str:
        """The operator's name."""
        return str(self.application["operator"])

    def met_by(self, call: Call) -> bool:
        """Whether ``call`` touches what the change altered."""
        if call.name in self.altered.tools:
            return True
        text = "\n".join(call.strings())
        return any(mentioned(rel, text) for rel in self.altered.files)


def altered(application: dict[str, Any]) -> Altered:
    """What an application altered, as its operator says (nothing for an operator this library lacks)."""
    operator = OPERATORS.get(application["operator"])
    return operator.altered(application["params"]) if operator else Altered()


def changes_behind(manifests: list[dict[str, Any]], node_id: str) -> list[Change]:
    """The changes from the seed down to ``node_id``, oldest first (none when the node is not shown)."""
    by_id = {m["node_id"]: m for m in manifests}
    chain = []
    while node_id in by_id:
        chain.append(by_id[node_id])
        node_id = by_id[node_id]["parent_id"]
    return [
        Change(m["seed_task_id"], m["node_id"], m["depth"], i, a, altered(a))
        for m in reversed(chain)
        for i, a in enumerate(m["applications"])
    ]


def meetings(turns: list[Turn], changes: list[Change]) -> dict[int, list[Change]]:
    """The changes met at each turn (by number), each at the first turn that meets it."""
    found: dict[int, list[Change]] = {}
    for change in changes:
        turn = next((t for t in turns if any(change.met_by(call) for call in t.calls)), None)
        if turn is not None:
            found.setdefault(turn.number, []).append(change)
    return found


def shown(value: Any) -> str:
    """A parameter value in words: lists joined by commas, mappings as their entries, both cut after
    :data:`LISTED` items."""
    if isinstance(value, list):
        items = [shown(v) for v in value]
    elif isinstance(value, dict):
        items = [f"{k} → {shown(v)}" for k, v in value.items()]
    else:
        return "none" if value is None else str(value)
    more = f" and {len(items) - LISTED} more" if len(items) > LISTED else ""
    return ", ".join(items[:LISTED]) + more


def sentence(application: dict[str, Any]) -> str:
    """The operator's description with each parameter it names (`` `name` `` or ``<name>``) replaced by
    the value, in backticks; the operator's name alone when this library lacks it."""
    operator = OPERATORS.get(application["operator"])
    if operator is None:
        return f"`{application['operator']}` (an operator this library does not have)"
    params = application["params"]

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in params:
            return match.group(0)
        return f"`{shown(params[name])}`" if match.group(1) else shown(params[name])

    return PLACEHOLDER.sub(fill, operator.description)


def parameters(application: dict[str, Any]) -> list[tuple[str, str]]:
    """The parameters as ``(name in words, value in words)``."""
    return [(name.replace("_", " "), shown(value)) for name, value in application["params"].items()]
