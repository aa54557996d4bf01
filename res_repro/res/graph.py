"""The dependency graph of an environment: what must be obtained before what.

Nodes are named artifacts (a credential, a record, a session, an extracted file). An edge ``a -> b``
says ``b`` can only be obtained once ``a`` is. ``observation`` is what the agent has at the start (the
instruction and the tool list) and ``goal`` is completing the task. A feasible environment's graph is
acyclic and every node in it is reachable from ``observation``.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

OBSERVATION = "observation"
GOAL = "goal"


@dataclass(frozen=True)
class Edge:
    """``dependent`` needs ``prerequisite`` first; ``how`` says how one leads to the other."""

    prerequisite: str
    dependent: str
    how: str = ""

    def to_dict(self) -> dict[str, str]:
        """A JSON-serialisable dict."""
        return {"prerequisite": self.prerequisite, "dependent": self.dependent, "how": self.how}


def released() -> list[Edge]:
    """The graph of a released environment: the goal is reachable from the first observation."""
    return [Edge(OBSERVATION, GOAL, "the released task")]


@dataclass
class DependencyGraph:
    """Nodes and edges, always holding ``observation`` and ``goal``. A graph is not changed once built
    (:meth:`extend` makes a new one), so its node set is computed once."""

    edges: list[Edge] = field(default_factory=released)

    @cached_property
    def nodes(self) -> frozenset[str]:
        """Every node named by an edge, plus ``observation`` and ``goal``."""
        names = {OBSERVATION, GOAL}
        for edge in self.edges:
            names.update((edge.prerequisite, edge.dependent))
        return frozenset(names)

    def extend(self, edges: Iterable[Edge]) -> DependencyGraph:
        """A new graph with ``edges`` added (duplicates dropped)."""
        merged = list(self.edges)
        for edge in edges:
            if edge not in merged:
                merged.append(edge)
        return DependencyGraph(merged)

    def _successors(self) -> dict[str, list[str]]:
        successors: dict[str, list[str]] = defaultdict(list)
        for edge in self.edges:
            successors[edge.prerequisite].append(edge.dependent)
        return successors

    def cycle(self) -> list[str] | None:
        """Some cycle as a list of nodes, or None when the graph is acyclic."""
        successors = self._successors()
        state: dict[str, int] = {}  # 1 on the current path, 2 finished
        path: list[str] = []

        def visit(node: str) -> list[str] | None:
            state[node] = 1
            path.append(node)
            for nxt in successors.get(node, ()):
                if state.get(nxt) == 1:
                    return [*path[path.index(nxt) :], nxt]
                if nxt not in state and (found := visit(nxt)):
                    return found
            path.pop()
            state[node] = 2
            return None

        for node in sorted(self.nodes):
            if node not in state and (found := visit(node)):
                return found
        return None

    def unreachable(self) -> set[str]:
        """Nodes that cannot be reached from ``observation``."""
        successors = self._successors()
        seen, queue = {OBSERVATION}, deque([OBSERVATION])
        while queue:
            for nxt in successors.get(queue.popleft(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return set(self.nodes - seen)

    def depth(self) -> int:
        """The longest chain of prerequisites from ``observation`` (0 for an empty graph)."""
        if self.cycle():
            raise ValueError("an acyclic graph has a depth; this one has a cycle")
        successors = self._successors()
        longest: dict[str, int] = {}

        def walk(node: str) -> int:
            if node not in longest:
                longest[node] = max((1 + walk(n) for n in successors.get(node, ())), default=0)
            return longest[node]

        return walk(OBSERVATION)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {"nodes": sorted(self.nodes), "edges": [edge.to_dict() for edge in self.edges]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DependencyGraph:
        """Rebuild a graph written by :meth:`to_dict`."""
        return cls([Edge(**edge) for edge in data.get("edges", ())])
