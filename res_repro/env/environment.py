"""The environment an agent acts on during one episode, whatever the task's format.

Every environment offers tools and answers tool calls; it can also run the task's reference solution
(for the oracle and for RES checks) and grade a finished attempt. Each task format opens its own
implementation (:func:`res_repro.env.formats.open_environment`).
"""

from __future__ import annotations

from typing import Protocol

from res_repro.env.grade import Grade
from res_repro.env.outcome import AgentOutcome
from res_repro.env.tools import ToolCall, ToolResponse, ToolSpec


class Environment(Protocol):
    """What agents, the oracle and graders need from an environment."""

    @property
    def tools(self) -> list[ToolSpec]:
        """The tools the agent may call."""
        ...

    def call(self, call: ToolCall) -> ToolResponse:
        """Answer one tool call."""
        ...

    def run_reference(self) -> AgentOutcome:
        """Run the task's reference solution in this environment."""
        ...

    def grade(self, answer: str | None) -> Grade:
        """Grade the attempt made so far, given the agent's final answer (if any)."""
        ...
