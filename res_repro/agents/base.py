"""The agent interface: an agent acts on an environment through its tools, then stops."""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from res_repro.env.outcome import AgentOutcome
from res_repro.env.task import Task

if TYPE_CHECKING:
    from res_repro.env.environment import Environment


@dataclass(frozen=True)
class Attempt:
    """Which sample an episode is. ``sample`` is the episode's id (task content, agent, environment,
    backend and seed, or a scaling role such as a target attempt at a node): a model agent keys its
    cached responses by it, so a resumed episode replays its own responses and never another's (another
    attempt, role, agent or environment). ``seed`` seeds the episode's own random choices."""

    sample: str = ""
    seed: int = 0


class Agent(abc.ABC):
    """An agent. ``scripted`` agents are programs, labelled as such in every table; ``seeded`` says whether
    an episode's outcome can vary with its seed (a model's sampling, an explorer's order of alternatives).
    An agent that is not seeded repeats itself exactly, so no test of chance applies to it.

    ``fixed_on_scaled`` says why the agent's outcomes on scaled environments follow from how they were
    built rather than from the agent (None for an agent they do not bind): tables mark those rows "by
    construction" with the reason, apart from the evidence."""

    name: str
    scripted: ClassVar[bool] = True
    seeded: ClassVar[bool] = True
    fixed_on_scaled: ClassVar[str | None] = None

    def fingerprint(self) -> dict[str, Any]:
        """Everything about this agent that can change an episode's outcome (part of the episode id)."""
        return {"name": self.name}

    @abc.abstractmethod
    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Attempt ``task`` in a freshly opened ``environment`` as the sample ``attempt``."""
