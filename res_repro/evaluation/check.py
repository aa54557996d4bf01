"""Task validation with the reference agents: oracle must pass and nop must fail."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from res_repro.agents import build_agents
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore

SCORE_TOLERANCE = 1e-9
NOP_CEILING = 0.5


@dataclass(frozen=True)
class TaskValidity:
    """The verdict on one task, with the two episodes behind it."""

    task_id: str
    oracle: EpisodeRecord
    nop: EpisodeRecord

    @property
    def problems(self) -> list[str]:
        """Why the task is invalid; empty when it is valid."""
        found = [
            f"{record.agent}: {record.stop_reason} ({record.error})"
            for record in (self.oracle, self.nop)
            if record.infrastructure_failure
        ]
        if found:
            return found
        if not self.oracle.passed or self.oracle.score < 1.0 - SCORE_TOLERANCE:
            found.append(f"oracle failed (score {self.oracle.score:.2f}, expected 1.00)")
        if self.nop.passed or self.nop.score >= NOP_CEILING:
            found.append(f"nop passed (score {self.nop.score:.2f}, expected below {NOP_CEILING:.2f})")
        return found

    @property
    def valid(self) -> bool:
        """True when the oracle scored 1 and passed, nop scored under 0.5 and failed, with no infra failure.

        The one rule covers every grader: a binary verifier scores 1 or 0, a rubric scores the share
        of items passed (nop must pass under half), a native score must reach 1 under the oracle.
        """
        return not self.problems

    def line(self) -> str:
        """One human-readable line for this task."""
        verdict = "valid  " if self.valid else "INVALID"
        scores = f"oracle={self.oracle.score:.2f} nop={self.nop.score:.2f}"
        detail = f"  {'; '.join(self.problems)}" if self.problems else ""
        return f"{verdict} {self.task_id:<40} {scores}{detail}"


def check_tasks(
    tasks: Sequence[Task], *, backend: str, store: EpisodeStore, workers: int = 1
) -> list[TaskValidity]:
    """Run oracle and nop on every task and return one verdict per task, in task order."""
    requests = [EpisodeRequest(task, agent) for task in tasks for agent in ("oracle", "nop")]
    agents = build_agents(["oracle", "nop"])
    records = evaluate(requests, agents=agents, backend=backend, store=store, workers=workers)
    return [
        TaskValidity(task.task_id, oracle=records[2 * i], nop=records[2 * i + 1])
        for i, task in enumerate(tasks)
    ]


def summary_line(verdicts: Sequence[TaskValidity]) -> str:
    """The closing line: ``N tasks: M valid``."""
    return f"{len(verdicts)} tasks: {sum(v.valid for v in verdicts)} valid"
