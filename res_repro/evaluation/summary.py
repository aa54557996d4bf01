"""Which metrics a benchmark reports, computed from episode records with intervals and paired tests.

A benchmark's *style* decides its metrics, following the paper: ``binary`` (Terminal-style Pass@1 of a
verifier), ``native`` (Claw-style Pass@1 at a threshold on native scores, and the mean Score), ``rubric``
(Workspace-style TCR@80 and pooled RPR). Each metric also names its key in the paper's reported figures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import TOLERANCE, RateEstimate, mean_with_ci, rate_with_ci
from res_repro.evaluation.statistics import mcnemar_exact, paired_bootstrap, wilson_interval


@dataclass(frozen=True)
class MetricSettings:
    """Thresholds and interval settings, built from the ``metrics`` config group and the run's seed (see
    ``res_repro.pipelines.table1.metric_settings``)."""

    threshold: float
    tcr_fraction: float
    confidence: float
    n_bootstrap: int
    seed: int


@dataclass(frozen=True)
class Metric:
    """One reported metric: how to estimate it, how to compare two paired conditions, its paper key."""

    label: str
    paper_suffix: str
    estimate: Callable[[Sequence[EpisodeRecord], MetricSettings], RateEstimate]
    paired: Callable[[Sequence[EpisodeRecord], Sequence[EpisodeRecord], MetricSettings], float]


def _rubric_share(record: EpisodeRecord) -> float:
    items = record.grade.rubric if record.grade else ()
    return sum(item.passed for item in items) / len(items) if items else 0.0


def _pass_flags(records: Sequence[EpisodeRecord], settings: MetricSettings) -> list[bool]:
    return [r.score >= settings.threshold - TOLERANCE for r in records]


def _tcr_flags(records: Sequence[EpisodeRecord], settings: MetricSettings) -> list[bool]:
    return [_rubric_share(r) >= settings.tcr_fraction - TOLERANCE for r in records]


def _pooled_rpr(records: Sequence[EpisodeRecord], settings: MetricSettings) -> RateEstimate:
    passed = sum(sum(i.passed for i in r.grade.rubric) for r in records if r.grade)
    total = sum(len(r.grade.rubric) for r in records if r.grade)
    if total == 0:
        return RateEstimate(0.0, 0.0, 0.0, 0)
    low, high = wilson_interval(passed, total, settings.confidence)
    return RateEstimate(passed / total, low, high, total)


def _mcnemar(flags: Callable[[Sequence[EpisodeRecord], MetricSettings], list[bool]]):
    return lambda a, b, s: mcnemar_exact(flags(a, s), flags(b, s)).p_value


def _bootstrap(value: Callable[[EpisodeRecord], float]):
    return lambda a, b, s: (
        paired_bootstrap(
            [value(r) for r in a],
            [value(r) for r in b],
            n_resamples=s.n_bootstrap,
            confidence=s.confidence,
            seed=s.seed,
        ).p_value
    )


BINARY_PASS = Metric(
    "Pass@1",
    "pass_at_1",
    lambda rs, s: rate_with_ci([r.passed for r in rs], s.confidence),
    _mcnemar(lambda rs, s: [r.passed for r in rs]),
)
NATIVE_PASS = Metric(
    "Pass@1", "pass_at_1", lambda rs, s: rate_with_ci(_pass_flags(rs, s), s.confidence), _mcnemar(_pass_flags)
)
NATIVE_SCORE = Metric(
    "Score",
    "score",
    lambda rs, s: mean_with_ci([r.score for r in rs], s.confidence),
    _bootstrap(lambda r: r.score),
)
TCR = Metric(
    "TCR@80", "tcr_at_80", lambda rs, s: rate_with_ci(_tcr_flags(rs, s), s.confidence), _mcnemar(_tcr_flags)
)
RPR = Metric("RPR", "rpr", _pooled_rpr, _bootstrap(_rubric_share))

STYLES: dict[str, tuple[Metric, ...]] = {
    "binary": (BINARY_PASS,),
    "native": (NATIVE_PASS, NATIVE_SCORE),
    "rubric": (TCR, RPR),
}

# benchmark -> (style, prefix of the paper's metric keys; None when the paper has no such benchmark)
BENCHMARK_STYLES: dict[str, tuple[str, str | None]] = {
    "terminal_bundled": ("binary", "terminal"),
    "claw_bundled": ("native", "claw"),
    "claw_eval_live": ("native", "claw"),
    "workspace_bundled": ("rubric", "workspace"),
    "agentce": ("native", None),
}


def metrics_for(benchmark: str) -> tuple[tuple[Metric, ...], str | None]:
    """The metrics of a benchmark and its paper key prefix (a Harbor folder counts as ``binary``)."""
    style, prefix = BENCHMARK_STYLES.get(benchmark, ("binary", None))
    return STYLES[style], prefix
