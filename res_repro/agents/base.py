"""The agent interface: an agent acts on an environment through its tools, then stops."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, Any, ClassVar

from res_repro.env.outcome import AgentOutcome
from res_repro.env.task import Task

if TYPE_CHECKING:
    from res_repro.env.environment import Environment


class Agent(abc.ABC):
    """An agent. ``scripted`` agents are deterministic programs, labelled as such in every table."""

    name: str
    scripted: ClassVar[bool] = True

    def fingerprint(self) -> dict[str, Any]:
        """Everything about this agent that can change an episode's outcome (part of the episode id)."""
        return {"name": self.name}

    @abc.abstractmethod
    def run(self, task: Task, environment: Environment) -> AgentOutcome:
        """Attempt ``task`` in a freshly opened ``environment``."""
