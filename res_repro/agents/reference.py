"""The two reference agents that validate a task: oracle runs the reference solution, nop does nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from res_repro.agents.base import Agent, Attempt
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task

if TYPE_CHECKING:
    from res_repro.env.environment import Environment


class OracleAgent(Agent):
    """Runs the task's reference solution (solve.sh in a sandbox, solve.py against the tools)."""

    name = "oracle"
    seeded = False
    fixed_on_scaled = (
        "it runs each environment's reference solution, which every accepted change must leave passing "
        "(the reference_passes check)"
    )

    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Let the environment run its reference solution."""
        return environment.run_reference()


class NopAgent(Agent):
    """Does nothing and answers nothing: a task that nop passes is invalid."""

    name = "nop"
    seeded = False

    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Return at once without touching the environment."""
        return AgentOutcome(stop_reason=StopReason.ANSWERED)
