"""The agent interface: an agent acts on a task's environment through a sandbox, then stops."""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from res_repro.env.task import Task
from res_repro.sandbox.base import Sandbox


class StopReason(StrEnum):
    """Why an episode ended. Task outcomes and infrastructure failures are kept apart."""

    ANSWERED = "answered"  # the agent finished on its own
    TURN_LIMIT = "turn_limit"
    TIME_LIMIT = "time_limit"
    PROVIDER_ERROR = "provider_error"  # infrastructure: the model's service failed after retries
    SANDBOX_ERROR = "sandbox_error"  # infrastructure: the sandbox failed

    @property
    def is_infrastructure(self) -> bool:
        """True for failures that say nothing about the agent and are retried, never scored."""
        return self in {StopReason.PROVIDER_ERROR, StopReason.SANDBOX_ERROR}


@dataclass
class AgentOutcome:
    """What an agent reports about its own attempt."""

    stop_reason: StopReason
    turns: int = 0
    tool_calls: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)


class Agent(abc.ABC):
    """An agent. ``scripted`` agents are deterministic programs, labelled as such in every table."""

    name: ClassVar[str]
    scripted: ClassVar[bool] = True

    @abc.abstractmethod
    def run(self, task: Task, sandbox: Sandbox) -> AgentOutcome:
        """Attempt ``task`` inside ``sandbox`` (already started, /app populated)."""
