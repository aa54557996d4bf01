"""Which metrics a benchmark reports, computed from episode records with intervals and paired tests.

A benchmark's *style* (see :mod:`res_repro.evaluation.metrics`) decides its metrics, following the paper:
``binary`` (Terminal-style Pass@1 of a verifier), ``native`` (Claw-style Pass@1 at a threshold on native
scores, and the mean Score), ``rubric`` (Workspace-style TCR@80 and pooled RPR). Every value comes from
the definitions in ``metrics``; this module adds the paired test of each and its key in the paper's
reported figures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    rubric_share,
    verifier_passed,
)
from res_repro.evaluation.statistics import mcnemar_exact, paired_bootstrap


@dataclass(frozen=True)
class Metric:
    """One reported metric: how to estimate it, how to compare two paired conditions, its paper key."""

    label: str
    paper_suffix: str
    estimate: Callable[[Sequence[EpisodeRecord], MetricSettings], RateEstimate]
    paired: Callable[[Sequence[EpisodeRecord], Sequence[EpisodeRecord], MetricSettings], float]


def _rate(rule: SuccessRule) -> Callable[[Sequence[EpisodeRecord], MetricSettings], RateEstimate]:
    """The rate of ``rule`` over records, with its Wilson interval."""
    return lambda records, s: rate_with_ci([rule(r, s) for r in records], s.confidence)


def _mcnemar(rule: SuccessRule):
    """Exact McNemar p of ``rule``'s verdicts on paired records."""
    return lambda a, b, s: mcnemar_exact([rule(r, s) for r in a], [rule(r, s) for r in b]).p_value


def _bootstrap(value: Callable[[EpisodeRecord], float]):
    """Paired bootstrap p of the mean of ``value`` on paired records (None under two pairs, where
    resampling one pair tells nothing)."""
    return lambda a, b, s: (
        paired_bootstrap(
            [value(r) for r in a],
            [value(r) for r in b],
            n_resamples=s.n_bootstrap,
            confidence=s.confidence,
            seed=s.seed,
        ).p_value
        if min(len(a), len(b)) >= 2
        else None
    )


BINARY_PASS = Metric("Pass@1", "pass_at_1", _rate(verifier_passed), _mcnemar(verifier_passed))
NATIVE_PASS = Metric("Pass@1", "pass_at_1", _rate(native_passed), _mcnemar(native_passed))
NATIVE_SCORE = Metric(
    "Score",
    "score",
    lambda rs, s: mean_with_ci([r.score for r in rs], s.confidence),
    _bootstrap(lambda r: r.score),
)
TCR = Metric("TCR@80", "tcr_at_80", _rate(rubric_completed), _mcnemar(rubric_completed))
RPR = Metric("RPR", "rpr", lambda rs, s: pooled_rpr_with_ci(rs, s.confidence), _bootstrap(rubric_share))

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
