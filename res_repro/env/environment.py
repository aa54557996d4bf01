"""The environment an agent acts on during one episode, whatever the task's format.

Every environment offers tools and answers tool calls; it can also run the task's reference solution
(for the oracle and for RES checks) and grade a finished attempt. :func:`open_environment` picks the
implementation through the task's format (:mod:`res_repro.env.formats`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from res_repro.env.formats import format_of
from res_repro.env.grade import Grade
from res_repro.env.outcome import AgentOutcome
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall, ToolResponse, ToolSpec
from res_repro.sandbox import Backend


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


def open_environment(task: Task, *, backend: Backend, seed: int = 0) -> AbstractContextManager[Environment]:
    """A fresh environment for ``task`` from its format (``backend``: the sandbox, where one is used)."""
    return format_of(task).open(task, backend, seed)
