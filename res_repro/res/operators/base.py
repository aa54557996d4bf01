"""The operator interface: one programmatic change of an environment, its reference update and edges.

An operator belongs to one of three families. It can propose parameters for a given environment (or say
it does not apply), apply them to a draft (changing E and updating the reference solution R), declare
the dependency edges the change adds, and check afterwards that the change took effect.
"""

from __future__ import annotations

import abc
import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from jsonschema import Draft202012Validator

from res_repro.res.graph import DependencyGraph, Edge

Call = Callable[..., Any]  # the reference program's tool client: call(tool, **arguments) -> body


class Family(StrEnum):
    """The three kinds of environment change."""

    INFORMATION_ACCESS = "information_access"
    RESOURCE_RELATIONS = "resource_relations"
    EXECUTION_DEPENDENCIES = "execution_dependencies"


@dataclass(frozen=True)
class Application:
    """One operator applied with its parameters, and the edges it added."""

    operator: str
    family: str
    params: dict[str, Any]
    edges: tuple[Edge, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "operator": self.operator,
            "family": self.family,
            "params": self.params,
            "edges": [edge.to_dict() for edge in self.edges],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Application:
        """Rebuild an application written by :meth:`to_dict`."""
        return cls(
            data["operator"], data["family"], dict(data["params"]), tuple(Edge(**e) for e in data["edges"])
        )

    @property
    def composes(self) -> bool:
        """True when it consumed an artifact of an earlier change (an edge from a non-observation node)."""
        return any(edge.how.startswith("composed:") for edge in self.edges)


@dataclass(frozen=True)
class Altered:
    """What a change altered of its parent environment (not what it added): the tools whose behaviour or
    responses it changed, and the workspace files (paths relative to the workspace) it moved, encoded,
    split or locked."""

    tools: tuple[str, ...] = ()
    files: tuple[str, ...] = ()


class Operator(abc.ABC):
    """A programmatic environment change. Subclasses set the class attributes and the three methods."""

    name: ClassVar[str]
    family: ClassVar[Family]
    kind: ClassVar[str]  # the kind of draft it edits (a format's Draft.kind: "tool" or "harbor")
    description: ClassVar[str]
    params_schema: ClassVar[dict[str, Any]]

    def validate(self, params: dict[str, Any]) -> str | None:
        """The first schema violation of ``params`` as one line, or None."""
        validator = Draft202012Validator(self.params_schema)
        error = next(iter(validator.iter_errors(params)), None)
        if error is None:
            return None
        where = "/".join(str(p) for p in error.absolute_path) or "params"
        return f"{self.name}: {where}: {error.message}"

    @abc.abstractmethod
    def propose(self, draft: Any, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Parameters for this environment, or None when the operator does not apply to it.

        With dependency composition on, ``graph`` holds earlier changes' artifacts that the operator may
        build on; with it off, the graph is empty.
        """

    @abc.abstractmethod
    def apply(self, draft: Any, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Change the draft (environment and reference) and return the dependency edges added."""

    @abc.abstractmethod
    def applied(self, draft: Any, params: dict[str, Any]) -> str | None:
        """None when the change is present in the draft, else what is missing."""

    def altered(self, params: dict[str, Any]) -> Altered:
        """What a change with ``params`` altered of the parent environment. The base names nothing."""
        return Altered()

    def composes(self, params: dict[str, Any], graph: DependencyGraph) -> bool:
        """True when ``params`` applied on an environment whose graph is ``graph`` build on an earlier
        change's artifact (the edges added would be marked ``composed:``). The base never composes."""
        return False

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """For tool operators: wrap the reference program's client so it copes with the change."""
        return call
