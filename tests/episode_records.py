"""Episode records built by hand for table and failure tests: one agent's episode that either answered
(graded as passed) or ended with ``stop_reason`` (an infrastructure error such as ``provider_error``)."""

from __future__ import annotations

from res_repro.env.grade import Grade
from res_repro.evaluation.episode import EpisodeRecord


def episode_record(agent: str, stop_reason: str = "answered", environment: str = "original") -> EpisodeRecord:
    """An episode of ``agent`` in ``environment`` of one Claw-style task, passed when it answered."""
    return EpisodeRecord(
        episode_id="e",
        task_id="t",
        benchmark="claw_bundled",
        task_hash="h",
        agent=agent,
        scripted=False,
        environment=environment,
        sandbox="local",
        stop_reason=stop_reason,
        grade=Grade(score=1.0, passed=True) if stop_reason == "answered" else None,
    )
