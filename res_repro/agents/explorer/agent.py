"""The explorer agents: scripted baselines that follow the seed task's plan and adapt by acting.

An explorer knows only the original reference plan of the seed task (``solution/solve.py`` for a
tool-API task; ``solution/base_solve.sh``, or ``solution/solve.sh`` before any scaling, for a Harbor
task). It reads that file once at the start; everything else it learns from tool results. Each tool
call is one turn, within its tier's budget and the configured turn limit, and the episode stops at the
configured time limit. The episode's seed orders the alternatives it tries (see ``choices``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from res_repro.agents.base import Agent, Attempt
from res_repro.agents.explorer.choices import Choices
from res_repro.agents.explorer.shell import ShellExplorer
from res_repro.agents.explorer.tiers import BASIC, EXPERT, STANDARD, Skill, Tier
from res_repro.agents.explorer.tool_client import AdaptiveClient
from res_repro.agents.explorer.trace import BudgetExhausted, Trace
from res_repro.env.formats import format_of
from res_repro.env.formats.tool_api import ToolError
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.env.task_code import TaskCodeError, run_task_function

if TYPE_CHECKING:
    from res_repro.env.environment import Environment


def plan_path(task: Task) -> Path | None:
    """The seed task's original reference plan, or None when the task ships none."""
    return format_of(task).original_plan(task)


class ExplorerAgent(Agent):
    """Runs the original plan through the environment's tools with one tier's skills and budget.

    ``max_turns`` and ``time_limit_s`` are the run's limits (``agent_loop``, or the scaling target's turn
    limit): the tier's budget is capped by ``max_turns``, and the episode stops when its time is spent.
    """

    tier: ClassVar[Tier]

    def __init__(self, *, max_turns: int | None = None, time_limit_s: float | None = None) -> None:
        if max_turns is not None and max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        self.max_turns = max_turns
        self.time_limit_s = time_limit_s

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.name = cls.tier.name

    @property
    def budget(self) -> int:
        """The turns an episode may spend: the tier's budget within the turn limit."""
        return self.tier.budget if self.max_turns is None else min(self.tier.budget, self.max_turns)

    def fingerprint(self) -> dict[str, Any]:
        """The tier (name, skills, repair limit) and the limits that bind it (turns, time)."""
        return {
            "name": self.name,
            "tier": self.tier.name,
            "budget": self.budget,
            "skills": sorted(self.tier.skills),
            "recoveries_per_call": self.tier.recoveries_per_call,
            "max_turns": self.max_turns,
            "time_limit_s": self.time_limit_s,
        }

    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Follow the plan; stop with an answer, without one when the plan fails, or at a limit (turns or
        time). ``attempt.seed`` orders the alternatives the explorer tries."""
        limit = float("inf") if self.time_limit_s is None else self.time_limit_s
        trace = Trace(environment, self.budget, self.name, task.instruction, time_limit_s=limit)
        choices = Choices(f"{attempt.seed}-{task.task_id}")
        path = plan_path(task)
        if path is None:
            trace.note("There is no reference plan to follow, so I stop here.")
            return self._outcome(StopReason.ANSWERED, trace, None, "no reference plan")
        try:
            if format_of(task).interface == "shell":
                plan = path.read_text(encoding="utf-8")
                explorer = ShellExplorer(
                    trace, self.tier, context=f"{plan}\n{task.instruction}", choices=choices
                )
                succeeded, summary = explorer.run(plan)
                answer, error = (summary, None) if succeeded else (None, summary)
            else:
                answer = self._run_program(path, environment, trace, task.instruction, choices)
                error = None
        except BudgetExhausted as exc:
            trace.note(f"I stop: {exc}.")
            return self._outcome(exc.stop_reason, trace, None, str(exc))
        except TaskCodeError as exc:  # the plan broke on something the tier could not repair
            answer, error = None, str(exc)
        except Exception as exc:  # a shell plan broke the same way
            answer, error = None, f"{type(exc).__name__}: {exc}"
        trace.note(answer if answer is not None else f"I could not complete the plan: {error}")
        return self._outcome(StopReason.ANSWERED, trace, answer, error)

    def _run_program(
        self, path: Path, environment: Environment, trace: Trace, instruction: str, choices: Choices
    ) -> str:
        """Run the plan's ``solve`` with the adaptive client; its return value is the answer."""
        client = AdaptiveClient(trace, self.tier, environment.tools, choices)
        if self.tier.has(Skill.POLICIES):
            client.read_policies()
        return str(run_task_function(path, "solve", [instruction], call=client, forwarded=(ToolError,)))

    @staticmethod
    def _outcome(stop: StopReason, trace: Trace, answer: str | None, error: str | None) -> AgentOutcome:
        return AgentOutcome(
            stop_reason=stop,
            answer=answer,
            turns=trace.tool_calls,
            tool_calls=trace.tool_calls,
            messages=trace.messages,
            accounting=trace.accounting(),
            error=error,
        )


class BasicExplorer(ExplorerAgent):
    """Small budget, no repairs: runs the plan as it stands."""

    tier = BASIC
    fixed_on_scaled = (
        "it follows the seed's reference plan and repairs nothing, and every accepted depth-1 change must "
        "make that plan fail or lose points (the parent_reference_fails check), so its drop follows from "
        "how the changes were selected"
    )


class StandardExplorer(ExplorerAgent):
    """Retries transient failures, gathers pages, follows `next` and links, reads a failing tool's
    documentation, and investigates failed shell steps."""

    tier = STANDARD


class ExpertExplorer(ExplorerAgent):
    """Every skill and the largest budget."""

    tier = EXPERT
    fixed_on_scaled = (
        "its recovery skills were written for this operator library (a skill per kind of change), so its "
        "success on scaled environments measures that match, not an agent's ability"
    )


EXPLORERS: tuple[type[ExplorerAgent], ...] = (BasicExplorer, StandardExplorer, ExpertExplorer)
