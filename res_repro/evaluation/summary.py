"""Which metrics a benchmark reports, computed from episode records with intervals and paired tests.

A benchmark's *style* (see :mod:`res_repro.evaluation.metrics`) decides its metrics, following the paper:
``binary`` (Terminal-style Pass@1 of a verifier), ``native`` (Claw-style Pass@1 at a threshold on native
scores, and the mean Score), ``rubric`` (Workspace-style TCR@80 and pooled RPR). Every value comes from
the definitions in ``metrics``; this module adds the paired tests of each and its key in the paper's
reported figures.

Pass rates are compared by exact McNemar. Score and RPR are compared by a paired bootstrap over tasks of
the reported statistic itself (the mean score; the pooled RPR, by cluster) and, beside it, by a paired
permutation test of the same statistic (exact up to 20 differing tasks), since the bootstrap p is
optimistic at small n. ``interval`` and ``tests`` name them for a table's notes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import (
    BINARY,
    NATIVE,
    RUBRIC,
    MetricSettings,
    RateEstimate,
    SuccessRule,
    benchmark_style,
    mean_with_ci,
    native_passed,
    pooled_rpr_with_ci,
    rate_with_ci,
    rubric_completed,
    rubric_counts,
    verifier_passed,
)
from res_repro.evaluation.statistics import (
    EXACT_PERMUTATION_MAX,
    mcnemar_exact,
    paired_bootstrap,
    paired_permutation_test,
    paired_ratio_bootstrap,
    pooled_ratio,
    task_mean,
)

Records = Sequence[EpisodeRecord]
PairedTest = Callable[[Records, Records, MetricSettings], "float | None"]


@dataclass(frozen=True)
class Metric:
    """One reported metric: how to estimate it, how to compare two paired conditions (``paired``, and
    ``permutation`` beside a bootstrap), what its interval and tests are called, its paper key."""

    label: str
    paper_suffix: str
    estimate: Callable[[Records, MetricSettings], RateEstimate]
    paired: PairedTest
    interval: str
    test: str
    permutation: PairedTest | None = None


def _rate(rule: SuccessRule, records: Records, s: MetricSettings) -> RateEstimate:
    """The rate of ``rule`` over records, with its Wilson interval."""
    return rate_with_ci([rule(r, s) for r in records], s.confidence)


def _mcnemar(rule: SuccessRule, a: Records, b: Records, s: MetricSettings) -> float:
    """Exact McNemar p of ``rule``'s verdicts on paired records."""
    return mcnemar_exact([rule(r, s) for r in a], [rule(r, s) for r in b]).p_value


def _mean_score(records: Records, s: MetricSettings) -> RateEstimate:
    """The mean native score with its Student t interval."""
    return mean_with_ci(_scores(records), s.confidence)


def _pooled_rpr(records: Records, s: MetricSettings) -> RateEstimate:
    """The pooled rubric pass rate with its per-task cluster bootstrap interval."""
    return pooled_rpr_with_ci(records, s.confidence, n_bootstrap=s.n_bootstrap, seed=s.seed)


def _scores(records: Records) -> list[float]:
    return [r.score for r in records]


def _rubric(records: Records) -> list[tuple[int, int]]:
    """(passed, total) rubric items per episode; a paired test needs items in every episode of both."""
    return [rubric_counts(r) for r in records]


def _has_items(a: Records, b: Records) -> bool:
    return all(total > 0 for _, total in (*_rubric(a), *_rubric(b)))


def _score_bootstrap(a: Records, b: Records, s: MetricSettings) -> float | None:
    """Paired bootstrap p of the mean score (None under two pairs, where resampling tells nothing)."""
    if min(len(a), len(b)) < 2:
        return None
    return paired_bootstrap(
        _scores(a), _scores(b), n_resamples=s.n_bootstrap, confidence=s.confidence, seed=s.seed
    ).p_value


def _rpr_bootstrap(a: Records, b: Records, s: MetricSettings) -> float | None:
    """Paired cluster bootstrap p of the pooled RPR (None under two pairs or without items everywhere)."""
    if min(len(a), len(b)) < 2 or not _has_items(a, b):
        return None
    return paired_ratio_bootstrap(
        _rubric(a), _rubric(b), n_resamples=s.n_bootstrap, confidence=s.confidence, seed=s.seed
    ).p_value


def _score_permutation(a: Records, b: Records, s: MetricSettings) -> float | None:
    """Paired permutation p of the mean score (None without pairs)."""
    if not a or len(a) != len(b):
        return None
    return paired_permutation_test(
        _scores(a), _scores(b), statistic=task_mean, n_resamples=s.n_bootstrap, seed=s.seed
    ).p_value


def _rpr_permutation(a: Records, b: Records, s: MetricSettings) -> float | None:
    """Paired permutation p of the pooled RPR, swapping whole tasks (None without items everywhere)."""
    if not a or len(a) != len(b) or not _has_items(a, b):
        return None
    return paired_permutation_test(
        _rubric(a), _rubric(b), statistic=pooled_ratio, n_resamples=s.n_bootstrap, seed=s.seed
    ).p_value


PERMUTATION = f"paired permutation (exact up to {EXACT_PERMUTATION_MAX} differing tasks, else Monte Carlo)"
"""How a permutation p beside a bootstrap is computed, for notes."""

# Each rate metric binds its success rule with partial: _rate and _mcnemar run when a table uses them.
BINARY_PASS = Metric(
    "Pass@1",
    "pass_at_1",
    partial(_rate, verifier_passed),
    partial(_mcnemar, verifier_passed),
    "Wilson",
    "exact McNemar",
)
NATIVE_PASS = Metric(
    "Pass@1",
    "pass_at_1",
    partial(_rate, native_passed),
    partial(_mcnemar, native_passed),
    "Wilson",
    "exact McNemar",
)
NATIVE_SCORE = Metric(
    "Score",
    "score",
    _mean_score,
    _score_bootstrap,
    "Student t",
    "paired bootstrap over tasks",
    _score_permutation,
)
TCR = Metric(
    "TCR@80",
    "tcr_at_80",
    partial(_rate, rubric_completed),
    partial(_mcnemar, rubric_completed),
    "Wilson",
    "exact McNemar",
)
RPR = Metric(
    "RPR",
    "rpr",
    _pooled_rpr,
    _rpr_bootstrap,
    "per-task cluster bootstrap",
    "paired cluster bootstrap over tasks",
    _rpr_permutation,
)

STYLES: dict[str, tuple[Metric, ...]] = {
    BINARY: (BINARY_PASS,),
    NATIVE: (NATIVE_PASS, NATIVE_SCORE),
    RUBRIC: (TCR, RPR),
}

BENCHMARK_PREFIXES: dict[str, str] = {
    "terminal_bundled": "terminal",
    "claw_bundled": "claw",
    "claw_eval_live": "claw",
    "workspace_bundled": "workspace",
}
"""The prefix of a benchmark's keys in the paper's reported figures (absent: the paper has no such one)."""


def metrics_for(benchmark: str) -> tuple[tuple[Metric, ...], str | None]:
    """The metrics of a benchmark and its paper key prefix (a Harbor folder counts as ``binary``)."""
    return STYLES[benchmark_style(benchmark)], BENCHMARK_PREFIXES.get(benchmark)


def statistics_note(metrics: Sequence[Metric], confidence: float) -> str:
    """A table note naming each metric's interval and paired tests."""
    parts = []
    for metric in metrics:
        tests = metric.test + (f", and beside it a {PERMUTATION}" if metric.permutation else "")
        parts.append(f"{metric.label}: {metric.interval} interval, {tests}")
    return f"Intervals at {confidence:.0%} and two-sided paired tests. " + "; ".join(parts) + "."
