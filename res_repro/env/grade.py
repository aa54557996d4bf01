"""What a grader returns: a native score, rubric items, or a binary verifier result, plus evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from res_repro.storage import record_fields

FULFILMENT_TOLERANCE = 1e-9
"""Slack below a score of 1.0 still counted as complete (weighted partial credits summed in floats)."""


@dataclass(frozen=True)
class RubricItem:
    """One rubric check of a Workspace-style task."""

    name: str
    passed: bool


@dataclass(frozen=True)
class Grade:
    """The outcome of grading one episode.

    ``score`` is the native score in [0, 1]; ``passed`` is the grader's own verdict (for a binary
    verifier, whether it passed); ``rubric`` lists rubric items when the grader has them; ``evidence``
    keeps the raw material (verifier output, reward file contents) for later inspection.
    """

    score: float
    passed: bool
    rubric: tuple[RubricItem, ...] = ()
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def fulfilled(self) -> bool:
        """Complete fulfilment, the paper's stopping rule for scaling, on every benchmark alike: a passing
        verdict with the full native score (Claw-style score 1.0, not just the pass threshold; every
        Workspace rubric item passed; a Terminal verifier pass, whose reward is 1.0)."""
        return self.passed and self.score >= 1.0 - FULFILMENT_TOLERANCE

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict (sharing the evidence: it is written, not changed)."""
        rubric = [{"name": item.name, "passed": item.passed} for item in self.rubric]
        return {**record_fields(self), "rubric": rubric}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Grade:
        """Rebuild a grade written by :meth:`to_dict`."""
        rubric = tuple(RubricItem(**item) for item in data.get("rubric", ()))
        return cls(
            score=float(data["score"]),
            passed=bool(data["passed"]),
            rubric=rubric,
            evidence=dict(data.get("evidence", {})),
        )
