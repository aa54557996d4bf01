"""One episode: one agent's attempt at one task's environment, graded, with its accounting."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent, Attempt
from res_repro.env.formats import open_environment
from res_repro.env.grade import Grade
from res_repro.env.outcome import StopReason
from res_repro.env.services import ServiceError
from res_repro.env.task import Task
from res_repro.errors import UserInputError
from res_repro.sandbox import SandboxBackend, SandboxError, backend_name
from res_repro.storage import record_fields


@dataclass
class EpisodeRecord:
    """Everything kept about an episode; one JSON document on disk."""

    episode_id: str
    task_id: str
    benchmark: str
    task_hash: str
    agent: str
    scripted: bool
    environment: str
    sandbox: str
    stop_reason: str
    grade: Grade | None
    turns: int = 0
    tool_calls: int = 0
    wall_seconds: float = 0.0
    error: str | None = None
    answer: str | None = None
    accounting: dict[str, float] = field(default_factory=dict)
    tools: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    role: str = "evaluated"  # why it ran: evaluated, check, teacher (see EpisodeRequest)
    seed_task_id: str | None = None  # the lineage the environment belongs to, when it is a lineage node
    node_id: str | None = None
    depth: int | None = None

    @property
    def infrastructure_failure(self) -> bool:
        """True when the episode says nothing about the agent (retried, never scored)."""
        return StopReason(self.stop_reason).is_infrastructure

    @property
    def passed(self) -> bool:
        """The grader's verdict; an ungraded episode has not passed."""
        return self.grade is not None and self.grade.passed

    @property
    def fulfilled(self) -> bool:
        """Complete fulfilment (see :attr:`Grade.fulfilled`); an ungraded episode has not fulfilled it."""
        return self.grade is not None and self.grade.fulfilled

    @property
    def score(self) -> float:
        """The native score; an ungraded episode scores 0."""
        return self.grade.score if self.grade is not None else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict (sharing the record's lists: it is written, not changed)."""
        grade = self.grade.to_dict() if self.grade is not None else None
        return {**record_fields(self), "grade": grade}

    @classmethod
    def unfinished(
        cls, task: Task, agent: Agent, environment: str, episode_id: str, backend: str | SandboxBackend
    ) -> EpisodeRecord:
        """The record of an episode before it has run: a sandbox error until an outcome replaces it."""
        return cls(
            episode_id=episode_id,
            task_id=task.task_id,
            benchmark=task.benchmark,
            task_hash=task.content_hash,
            agent=agent.name,
            scripted=agent.scripted,
            environment=environment,
            sandbox=backend_name(backend),
            stop_reason=StopReason.SANDBOX_ERROR.value,
            grade=None,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EpisodeRecord:
        """Rebuild a record written by :meth:`to_dict`."""
        grade = Grade.from_dict(data["grade"]) if data.get("grade") else None
        return cls(**{**data, "grade": grade})


def read_episodes(path: Path) -> Iterator[EpisodeRecord]:
    """Episode records from an ``episodes.jsonl`` file; a line that is not one is a
    :class:`UserInputError` naming the file and the line."""
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = EpisodeRecord.from_dict(json.loads(line.decode("utf-8")))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:  # UnicodeDecodeError included
                raise UserInputError(
                    f"{path}: line {number} is not an episode record ({type(exc).__name__}); expected the "
                    "episodes.jsonl a run writes, one JSON record per line"
                ) from None
            yield record


def infrastructure_failures(records: Iterable[EpisodeRecord]) -> dict[str, int]:
    """Agents whose every episode in ``records`` ended in an infrastructure failure, with how many."""
    failed: dict[str, int] = {}
    succeeded: set[str] = set()
    for record in records:
        if record.infrastructure_failure:
            failed[record.agent] = failed.get(record.agent, 0) + 1
        else:
            succeeded.add(record.agent)
    return {agent: count for agent, count in failed.items() if agent not in succeeded}


@dataclass(frozen=True)
class LineagePlace:
    """Where an environment sits in a lineage: its seed task, node id and depth (0 for E0)."""

    seed_task_id: str
    node_id: str
    depth: int


def run_episode(
    task: Task,
    agent: Agent,
    *,
    backend: str | SandboxBackend,
    episode_id: str,
    environment: str = "original",
    seed: int = 0,
) -> EpisodeRecord:
    """Open a fresh environment for ``task``, let ``agent`` act, grade, and always close it.

    A sandbox that fails (a service that cannot start included) becomes a record with stop reason
    ``sandbox_error``, a service that dies during the episode one with ``service_error``, rather than
    an exception; the runner retries both. ``backend`` is a backend name or a :class:`SandboxBackend`.
    """
    record = EpisodeRecord.unfinished(task, agent, environment, episode_id, backend)
    started = time.perf_counter()
    try:
        with open_environment(task, backend=backend, seed=seed) as env:
            record.tools = [tool.to_dict() for tool in env.tools]
            outcome = agent.run(task, env, Attempt(episode_id, seed))
            try:
                if not outcome.stop_reason.is_infrastructure:
                    record.grade = env.grade(outcome.answer)
            except ServiceError as exc:  # grading checks that every service outlived the episode
                error = f"{type(exc).__name__}: {exc}"
                outcome = replace(outcome, stop_reason=StopReason.SERVICE_ERROR, error=error)
        record.stop_reason = outcome.stop_reason.value
        record.answer, record.error, record.accounting = outcome.answer, outcome.error, outcome.accounting
        record.turns, record.tool_calls = outcome.turns, outcome.tool_calls
        record.messages = outcome.messages
    except (SandboxError, OSError) as exc:
        record.stop_reason, record.grade = StopReason.SANDBOX_ERROR.value, None
        record.error = f"{type(exc).__name__}: {exc}"
    record.wall_seconds = time.perf_counter() - started
    return record
