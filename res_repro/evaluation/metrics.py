"""Every metric of the RES paper, defined once; tables, figures and the depth study all read them here.

Values are fractions in [0, 1] (tables print them times 100). The thresholds come from the ``metrics``
config group (``conf/metrics``) through :class:`MetricSettings`.

- Pass@1 (Claw-style, ``native``): the share of tasks whose native score reaches ``threshold`` (0.80).
- Score (Claw-style): the mean native score.
- TCR@80 (Workspace-style, ``rubric``): the share of tasks with at least ``tcr_fraction`` (80%) of their
  rubric items passed; RPR: the passed rubric items pooled across tasks over all items pooled (its
  interval by a per-task cluster bootstrap).
- Pass@1 (Terminal-style, ``binary``): the share of tasks whose verifier passed.

A benchmark's *style* picks its success rule (:func:`succeeded`): whether one episode counts as a success
in a pass rate. Native scores must lie in [0, 1]. Thresholds are compared with a tolerance of
``TOLERANCE`` so that a value meant to equal the threshold but a rounding error below it (0.7999999999
from summing partial credits) still counts as reaching it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev
from typing import TYPE_CHECKING, Any

from res_repro.evaluation.statistics import (
    check_confidence,
    cluster_bootstrap_interval,
    t_quantile,
    wilson_interval,
)

if TYPE_CHECKING:  # records are only read here; importing them would load the sandboxes
    from res_repro.evaluation.episode import EpisodeRecord

TOLERANCE = 1e-9
"""Slack allowed below a threshold when deciding whether a value reaches it."""

BINARY, NATIVE, RUBRIC = "binary", "native", "rubric"

BENCHMARK_STYLES: dict[str, str] = {
    "terminal_bundled": BINARY,
    "claw_bundled": NATIVE,
    "claw_eval_live": NATIVE,
    "workspace_bundled": RUBRIC,
    "agentce": NATIVE,
}
"""The metric style of each registered benchmark; any other benchmark (a Harbor folder) is ``binary``."""


@dataclass(frozen=True)
class MetricSettings:
    """Thresholds and interval settings: the ``metrics`` config group and the run's seed."""

    threshold: float
    tcr_fraction: float
    confidence: float
    n_bootstrap: int
    seed: int

    @classmethod
    def from_config(cls, metrics: Any, seed: int = 0) -> MetricSettings:
        """Settings from a ``metrics`` config node (threshold, tcr_fraction, confidence, n_bootstrap)."""
        return cls(
            threshold=float(metrics.threshold),
            tcr_fraction=float(metrics.tcr_fraction),
            confidence=float(metrics.confidence),
            n_bootstrap=int(metrics.n_bootstrap),
            seed=int(seed),
        )


@dataclass(frozen=True)
class RateEstimate:
    """A point estimate with a two-sided confidence interval ``[low, high]`` from ``n`` observations."""

    value: float
    low: float
    high: float
    n: int

    def as_metrics(self, name: str) -> dict[str, float]:
        """The estimate as tracking metrics: ``name`` itself, ``name.n`` and, when the interval is
        defined, ``name.ci_low`` and ``name.ci_high``."""
        logged = {name: self.value, f"{name}.n": float(self.n)}
        if not (math.isnan(self.low) or math.isnan(self.high)):
            logged.update({f"{name}.ci_low": self.low, f"{name}.ci_high": self.high})
        return logged


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


def reaches(value: float, threshold: float) -> bool:
    """Whether ``value`` reaches ``threshold``: ``value >= threshold - TOLERANCE``."""
    return value >= threshold - TOLERANCE


# Native scores (Claw-style)


def pass_flags(scores: Sequence[float], threshold: float = 0.80) -> list[bool]:
    """Per task, whether its native score reaches ``threshold`` (Pass@1 before averaging)."""
    _check_fraction("threshold", threshold)
    return [reaches(value, threshold) for value in _native_scores(scores)]


def pass_at_1(scores: Sequence[float], threshold: float = 0.80) -> float:
    """Claw-style Pass@1: the share of tasks whose native score reaches ``threshold``."""
    flags = pass_flags(scores, threshold)
    return sum(flags) / len(flags)


def mean_score(scores: Sequence[float]) -> float:
    """Claw-style Score: the mean native score over tasks."""
    return fmean(_native_scores(scores))


# Rubric items (Workspace-style)


def rubric_counts(record: EpisodeRecord) -> tuple[int, int]:
    """``(passed, total)`` rubric items of an episode; ``(0, 0)`` when ungraded or graded without items."""
    items = record.grade.rubric if record.grade is not None else ()
    return sum(item.passed for item in items), len(items)


def rpr(rubric: Sequence[tuple[int, int]]) -> float:
    """Rubric pass rate: passed rubric items pooled across tasks over all rubric items pooled.

    ``rubric`` holds ``(passed, total)`` per task; tasks with more items weigh more.
    """
    counts = _rubric_counts(rubric)
    return sum(passed for passed, _ in counts) / sum(total for _, total in counts)


# Success rules: one episode, one verdict


def verifier_passed(record: EpisodeRecord, settings: MetricSettings) -> bool:
    """Terminal-style success: the binary verifier passed (an ungraded episode has not)."""
    return record.passed


def native_passed(record: EpisodeRecord, settings: MetricSettings) -> bool:
    """Claw-style success (Pass@1): the native score reaches ``settings.threshold``."""
    return reaches(record.score, settings.threshold)


def rubric_completed(record: EpisodeRecord, settings: MetricSettings) -> bool:
    """Workspace-style success (TCR): at least ``settings.tcr_fraction`` of the rubric items passed.

    An episode without rubric items (ungraded, or a grader that wrote none) has not completed.
    """
    passed, total = rubric_counts(record)
    return total > 0 and reaches(passed / total, settings.tcr_fraction)


SuccessRule = Callable[["EpisodeRecord", MetricSettings], bool]

SUCCESS_RULES: dict[str, SuccessRule] = {
    BINARY: verifier_passed,
    NATIVE: native_passed,
    RUBRIC: rubric_completed,
}
"""The success rule of each style."""


def benchmark_style(benchmark: str) -> str:
    """The metric style of a benchmark (``binary`` for one not registered, such as a Harbor folder)."""
    return BENCHMARK_STYLES.get(benchmark, BINARY)


def succeeded(record: EpisodeRecord, settings: MetricSettings) -> bool:
    """Whether an episode counts as a success under its benchmark's style and ``settings``."""
    return SUCCESS_RULES[benchmark_style(record.benchmark)](record, settings)


def success_description(benchmark: str, settings: MetricSettings) -> str:
    """What counts as a success on ``benchmark`` under ``settings``, for a table's notes."""
    style = benchmark_style(benchmark)
    if style == NATIVE:
        return f"native score >= {settings.threshold:.2f}"
    if style == RUBRIC:
        return f"at least {settings.tcr_fraction:.0%} of the rubric items passed"
    return "the verifier passed"


def success_flags(records: Sequence[EpisodeRecord], settings: MetricSettings) -> list[bool]:
    """Per episode, :func:`succeeded`."""
    return [succeeded(record, settings) for record in records]


# Estimates with intervals


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
    t = t_quantile(confidence, len(data) - 1)
    half = t * stdev(data) / math.sqrt(len(data))
    return RateEstimate(value=mean, low=mean - half, high=mean + half, n=len(data))


def pooled_rpr_with_ci(
    records: Sequence[EpisodeRecord], confidence: float = 0.95, *, n_bootstrap: int = 10_000, seed: int = 0
) -> RateEstimate:
    """RPR over episodes with a per-task (cluster) bootstrap interval; ``n`` counts the tasks resampled.

    Items of one task are not independent, so whole tasks are resampled (an interval over pooled items
    would treat them as independent and come out far too narrow). Episodes without rubric items add
    nothing; with no item at all the estimate is 0 of 0; one task leaves the interval undefined (NaN).
    """
    counts = [c for c in map(rubric_counts, records) if c[1] > 0]
    if not counts:
        return RateEstimate(0.0, 0.0, 0.0, 0)
    low, high = cluster_bootstrap_interval(counts, n_resamples=n_bootstrap, confidence=confidence, seed=seed)
    return RateEstimate(rpr(counts), low, high, len(counts))
