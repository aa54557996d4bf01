"""Benchmark metrics of the RES paper, as fractions in [0, 1] (tables print them times 100).

- Claw-Eval-Live: Pass@1 is the share of tasks with native score >= 0.80; Score is the mean native
  score.
- Workspace-Bench-Lite: TCR@80 is the share of tasks with at least 80% of their rubric items passed;
  RPR is the passed rubric items pooled across tasks over all items pooled.
- Terminal-Bench: Pass@1 is the share of tasks whose binary verifier passed.

Native scores must lie in [0, 1]. Thresholds are compared with a tolerance of ``TOLERANCE`` so that
a value meant to equal the threshold but a rounding error below it (0.7999999999 from summing
partial credits) still counts as reaching it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean, stdev

from scipy import special

from res_repro.evaluation.statistics import check_confidence, wilson_interval

TOLERANCE = 1e-9
"""Slack allowed below a threshold when deciding whether a value reaches it."""


@dataclass(frozen=True)
class RateEstimate:
    """A point estimate with a two-sided confidence interval ``[low, high]`` from ``n`` observations."""

    value: float
    low: float
    high: float
    n: int


def _check_fraction(name: str, value: float) -> None:
    """Raise ``ValueError`` unless ``value`` lies in [0, 1]."""
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must lie in [0, 1], got {value!r}")


def _check_non_empty(name: str, values: Sequence[object]) -> None:
    """Raise ``ValueError`` if ``values`` is empty."""
    if len(values) == 0:
        raise ValueError(f"{name} is empty: a metric needs at least one task")


def _native_scores(scores: Sequence[float]) -> list[float]:
    """Return ``scores`` as floats after checking each is a native score in [0, 1]."""
    _check_non_empty("scores", scores)
    checked = []
    for index, score in enumerate(scores):
        value = float(score)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"scores[{index}] = {score!r} is not a native score in [0, 1]")
        checked.append(value)
    return checked


def _rubric_counts(rubric: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Return ``rubric`` after checking each task has ``0 <= passed <= total`` and ``total > 0``."""
    _check_non_empty("rubric", rubric)
    for index, (passed, total) in enumerate(rubric):
        if total <= 0:
            raise ValueError(f"rubric[{index}] has {total} rubric items; every task needs at least one")
        if not 0 <= passed <= total:
            raise ValueError(f"rubric[{index}] has {passed} passed of {total} items")
    return list(rubric)


def _outcomes(name: str, outcomes: Sequence[bool]) -> list[bool]:
    """Return ``outcomes`` as bools after checking it is non-empty and holds only booleans."""
    _check_non_empty(name, outcomes)
    for index, outcome in enumerate(outcomes):
        if outcome not in (True, False):
            raise ValueError(f"{name}[{index}] is not a boolean outcome: {outcome!r}")
    return [bool(outcome) for outcome in outcomes]


def pass_at_1(scores: Sequence[float], threshold: float = 0.80) -> float:
    """Claw-style Pass@1: the share of tasks whose native score reaches ``threshold``.

    A score counts as passing when ``score >= threshold - TOLERANCE``.
    """
    _check_fraction("threshold", threshold)
    values = _native_scores(scores)
    return sum(value >= threshold - TOLERANCE for value in values) / len(values)


def mean_score(scores: Sequence[float]) -> float:
    """Claw-style Score: the mean native score over tasks."""
    return fmean(_native_scores(scores))


def tcr_at(rubric: Sequence[tuple[int, int]], fraction: float = 0.80) -> float:
    """Task completion rate (TCR@80 by default): the share of tasks with enough rubric items passed.

    ``rubric`` holds ``(passed, total)`` per task; a task completes when
    ``passed / total >= fraction - TOLERANCE``.
    """
    _check_fraction("fraction", fraction)
    counts = _rubric_counts(rubric)
    return sum(passed / total >= fraction - TOLERANCE for passed, total in counts) / len(counts)


def rpr(rubric: Sequence[tuple[int, int]]) -> float:
    """Rubric pass rate: passed rubric items pooled across tasks over all rubric items pooled.

    ``rubric`` holds ``(passed, total)`` per task; tasks with more items weigh more.
    """
    counts = _rubric_counts(rubric)
    return sum(passed for passed, _ in counts) / sum(total for _, total in counts)


def binary_pass_rate(outcomes: Sequence[bool]) -> float:
    """Terminal-style Pass@1: the share of tasks whose binary verifier passed."""
    values = _outcomes("outcomes", outcomes)
    return sum(values) / len(values)


def rate_with_ci(successes: Sequence[bool], confidence: float = 0.95) -> RateEstimate:
    """Success rate over tasks with its Wilson score interval (see ``wilson_interval``)."""
    values = _outcomes("successes", successes)
    low, high = wilson_interval(sum(values), len(values), confidence)
    return RateEstimate(value=sum(values) / len(values), low=low, high=high, n=len(values))


def mean_with_ci(values: Sequence[float], confidence: float = 0.95) -> RateEstimate:
    """Mean of ``values`` with a Student-t confidence interval.

    The interval is ``mean ± t * s / sqrt(n)`` with ``s`` the sample standard deviation and ``t``
    the two-sided quantile of the t distribution with ``n - 1`` degrees of freedom. It is not
    clipped to the range of the data. With a single value the interval is undefined and both
    bounds are NaN.
    """
    check_confidence(confidence)
    _check_non_empty("values", values)
    data = [float(value) for value in values]
    if not all(math.isfinite(value) for value in data):
        raise ValueError("values must be finite")
    mean = fmean(data)
    if len(data) == 1:
        return RateEstimate(value=mean, low=math.nan, high=math.nan, n=1)
    t = float(special.stdtrit(len(data) - 1, 0.5 + confidence / 2))
    half = t * stdev(data) / math.sqrt(len(data))
    return RateEstimate(value=mean, low=mean - half, high=mean + half, n=len(data))
