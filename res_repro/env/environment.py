"""The environment an agent acts on during one episode, whatever the task's format.

Every environment offers tools and answers tool calls; it can also run the task's reference solution
(for the oracle and for RES checks) and grade a finished attempt. :func:`open_environment` picks the
implementation by the task's ``kind``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol

from res_repro.agents.outcome import AgentOutcome
from res_repro.env.grade import Grade
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall, ToolResponse, ToolSpec
from res_repro.errors import UserInputError
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


@contextmanager
def _tool_environment(task: Task, backend: Backend, seed: int) -> Iterator[Environment]:
    from res_repro.env.tool_task import ToolEnvironment

    environment = ToolEnvironment(task, seed=seed)
    try:
        yield environment
    finally:
        environment.close()


@contextmanager
def _terminal_environment(task: Task, backend: Backend, seed: int) -> Iterator[Environment]:
    from res_repro.env.terminal import TerminalEnvironment, sandbox_spec_for
    from res_repro.sandbox import make_sandbox

    with make_sandbox(backend, sandbox_spec_for(task)) as sandbox:
        yield TerminalEnvironment(task, sandbox)


Opener = Callable[[Task, str, int], AbstractContextManager[Environment]]


def _claw_eval_live_environment(
    task: Task, backend: Backend, seed: int
) -> AbstractContextManager[Environment]:
    from res_repro.benchmarks.claw_eval_live import open_claw_eval_live

    return open_claw_eval_live(task, backend, seed)


OPENERS: dict[str, Opener] = {
    "harbor": _terminal_environment,
    "tool": _tool_environment,
    "claw_eval_live": _claw_eval_live_environment,
}


def open_environment(task: Task, *, backend: Backend, seed: int = 0) -> AbstractContextManager[Environment]:
    """A fresh environment for ``task``; ``backend`` names the sandbox for tasks that need one."""
    try:
        opener = OPENERS[task.kind]
    except KeyError:
        raise UserInputError(
            f"task {task.task_id}: unknown kind {task.kind!r}; expected one of {sorted(OPENERS)}"
        ) from None
    return opener(task, backend, seed)
