"""Episode records built by hand for table, metric and failure tests: one agent's episode of one
Claw-style task, graded unless it ended on an infrastructure error (``provider_error`` and the like).
A test names only what it varies; every other field keeps a plain default."""

from __future__ import annotations

from typing import Any

from res_repro.env.grade import Grade, RubricItem
from res_repro.env.outcome import StopReason
from res_repro.evaluation.episode import EpisodeRecord


def episode_record(
    agent: str = "a",
    stop_reason: str = "answered",
    environment: str = "original",
    *,
    score: float = 1.0,
    passed: bool = True,
    rubric: tuple[bool, ...] = (),
    **fields: Any,
) -> EpisodeRecord:
    """An episode of ``agent`` in ``environment`` that ended with ``stop_reason``.

    Unless that is an infrastructure failure it is graded ``score`` and ``passed``, with one rubric item
    (named by its position) for each entry of ``rubric``. ``fields`` set any other field of the record,
    ``grade`` included (``grade=None`` for an ungraded episode)."""
    if "grade" not in fields:
        items = tuple(RubricItem(name=str(i), passed=p) for i, p in enumerate(rubric))
        graded = not StopReason(stop_reason).is_infrastructure
        fields["grade"] = Grade(score=score, passed=passed, rubric=items) if graded else None
    defaults: dict[str, Any] = {
        "episode_id": "e",
        "task_id": "t",
        "benchmark": "claw_bundled",
        "task_hash": "h",
        "scripted": False,
        "sandbox": "local",
    }
    return EpisodeRecord(
        **{**defaults, **fields}, agent=agent, environment=environment, stop_reason=stop_reason
    )
