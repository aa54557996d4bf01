"""Tests for res_repro.evaluation.metrics on cases worked out by hand, and for the tables that read it."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import pytest
from episode_records import episode_record
from hydra_config import compose_config
from hydra_config import metric_settings as default_metrics

from res_repro.agents import SCRIPTED_AGENTS
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import (
    BENCHMARK_STYLES,
    TOLERANCE,
    MetricSettings,
    RateEstimate,
    benchmark_style,
    mean_score,
    mean_with_ci,
    pass_at_1,
    pass_flags,
    pooled_rpr_with_ci,
    rate_with_ci,
    reaches,
    rpr,
    rubric_counts,
    succeeded,
    success_description,
    success_flags,
)
from res_repro.evaluation.statistics import cluster_bootstrap_interval
from res_repro.evaluation.summary import metrics_for
from res_repro.pipelines.cells import metric_settings
from res_repro.pipelines.depth import build_depth_table


def test_pass_at_1_counts_scores_at_threshold() -> None:
    # 0.8 and 1.0 pass, 0.79 and 0.0 fail: 2 / 4.
    assert pass_at_1([0.8, 0.79, 1.0, 0.0]) == 0.5


def test_pass_at_1_tolerates_rounding_below_threshold() -> None:
    # 0.1 + 0.7 = 0.7999999999999999 in floating point; it is meant to be 0.8.
    assert pass_at_1([0.1 + 0.7]) == 1.0
    assert pass_at_1([0.7999]) == 0.0


def test_pass_at_1_custom_threshold() -> None:
    # At 0.9 only 1.0 passes: 1 / 4.
    assert pass_at_1([0.8, 0.79, 1.0, 0.0], threshold=0.9) == 0.25


def test_mean_score() -> None:
    # (0.8 + 0.79 + 1.0 + 0.0) / 4 = 2.59 / 4 = 0.6475
    assert mean_score([0.8, 0.79, 1.0, 0.0]) == pytest.approx(0.6475)


@pytest.mark.parametrize("metric", [pass_at_1, mean_score])
def test_score_metrics_reject_scores_off_the_native_scale(metric) -> None:
    with pytest.raises(ValueError, match=r"scores\[1\]"):
        metric([0.5, 87.0])
    with pytest.raises(ValueError, match=r"scores\[0\]"):
        metric([float("nan")])


def test_pass_at_1_rejects_bad_threshold() -> None:
    with pytest.raises(ValueError, match="threshold"):
        pass_at_1([0.5], threshold=80)


def _workspace(*rubrics: tuple[bool, ...]) -> list[EpisodeRecord]:
    """Workspace episodes whose grader verdict is "every item passed", as the verifier decides."""
    return [
        episode_record(benchmark="workspace_bundled", score=sum(r) / len(r), passed=all(r), rubric=r)
        for r in rubrics
    ]


FOUR_OF_FIVE, THREE_OF_FIVE, FIVE_OF_FIVE = (True,) * 4 + (False,), (True,) * 3 + (False,) * 2, (True,) * 5


def test_tcr_at_80() -> None:
    # 4/5 = 0.8 and 5/5 complete, 3/5 = 0.6 does not: 2 of 3, although only 5/5 passed the verifier.
    records = _workspace(FOUR_OF_FIVE, THREE_OF_FIVE, FIVE_OF_FIVE)
    assert success_flags(records, default_metrics()) == [True, False, True]


def test_tcr_at_other_fraction() -> None:
    # At 60% all three complete; at 100% only 5/5 does.
    records = _workspace(FOUR_OF_FIVE, THREE_OF_FIVE, FIVE_OF_FIVE)
    assert success_flags(records, default_metrics(tcr_fraction=0.6)) == [True, True, True]
    assert success_flags(records, default_metrics(tcr_fraction=1.0)) == [False, False, True]


def test_tcr_counts_an_episode_without_rubric_items_as_not_completed() -> None:
    [ungraded] = _workspace(FIVE_OF_FIVE)
    ungraded.grade = None
    no_items = episode_record(benchmark="workspace_bundled", score=0.0, passed=False)
    assert success_flags([ungraded, no_items], default_metrics(tcr_fraction=0.0)) == [False, False]


def test_rpr_pools_items() -> None:
    # (4 + 3 + 5) / (5 + 5 + 5) = 12 / 15 = 0.8
    assert rpr([(4, 5), (3, 5), (5, 5)]) == pytest.approx(12 / 15)


def test_rpr_weighs_tasks_by_item_count() -> None:
    # (1 + 0) / (1 + 9) = 0.1, not the mean of per-task rates (1.0 + 0.0) / 2.
    assert rpr([(1, 1), (0, 9)]) == pytest.approx(0.1)


def test_rpr_rejects_task_without_items() -> None:
    with pytest.raises(ValueError, match=r"rubric\[1\]"):
        rpr([(1, 2), (0, 0)])


def test_rpr_rejects_more_passed_than_total() -> None:
    with pytest.raises(ValueError, match=r"rubric\[0\]"):
        rpr([(3, 2)])


def test_pooled_rpr_skips_episodes_without_items() -> None:
    # (4 + 3) / (5 + 5); the rubric-less episode adds nothing; n counts tasks.
    no_items = episode_record(benchmark="workspace_bundled", score=0.0, passed=False)
    estimate = pooled_rpr_with_ci([*_workspace(FOUR_OF_FIVE, THREE_OF_FIVE), no_items])
    assert (estimate.value, estimate.n) == (pytest.approx(0.7), 2)
    # two tasks: every resample is 4/5, 3/5 or 7/10, so the interval spans [0.6, 0.8]
    assert (estimate.low, estimate.high) == (pytest.approx(0.6), pytest.approx(0.8))
    assert pooled_rpr_with_ci([no_items]) == RateEstimate(0.0, 0.0, 0.0, 0)


def test_binary_success_is_the_verifiers_verdict() -> None:
    # A partial reward of 0.9 did not pass the verifier; no threshold makes it pass.
    records = [
        episode_record(benchmark="terminal_bundled"),
        episode_record(benchmark="terminal_bundled", score=0.9, passed=False),
    ]
    assert success_flags(records, default_metrics(threshold=0.5)) == [True, False]
    assert benchmark_style("some/harbor/folder") == "binary"


def test_native_success_follows_the_threshold_not_the_graders_verdict() -> None:
    # agentce grades with a pass threshold of 1.0; Pass@1 uses metrics.threshold.
    record = episode_record(benchmark="agentce", score=0.85, passed=False)
    assert succeeded(record, default_metrics(threshold=0.8))
    assert not succeeded(record, default_metrics(threshold=0.9))


def test_rates_reject_non_boolean_outcomes() -> None:
    with pytest.raises(ValueError, match=r"successes\[1\]"):
        rate_with_ci([True, "yes"])


def test_pass_flags_per_task() -> None:
    assert pass_flags([0.8, 0.79, 1.0, 0.0]) == [True, False, True, False]
    assert pass_flags([0.8, 0.79, 1.0, 0.0], threshold=0.7) == [True, True, True, False]


def test_settings_come_from_the_metrics_config_group() -> None:
    cfg = compose_config("metrics.threshold=0.7", "metrics.tcr_fraction=0.6", "seed=3")
    assert metric_settings(cfg) == MetricSettings(0.7, 0.6, 0.95, 10_000, 3)
    assert MetricSettings.from_config(compose_config().metrics) == default_metrics()


def test_table1_metrics_follow_the_threshold() -> None:
    (pass_metric, score_metric), prefix = metrics_for("claw_bundled")
    records = [episode_record(score=0.8), episode_record(score=0.6, passed=False)]
    assert prefix == "claw"
    assert pass_metric.estimate(records, default_metrics(threshold=0.7)).value == 0.5
    assert pass_metric.estimate(records, default_metrics(threshold=0.5)).value == 1.0
    assert score_metric.estimate(records, default_metrics()).value == pytest.approx(0.7)


def _depth_pass_rates(threshold: str) -> dict[str, str]:
    """The depth study's pass cells for a Claw-style agent scoring 0.8, 0.85 and 0.6 under an override."""
    cfg = compose_config("experiment=res_depth", "benchmark=claw_bundled", f"metrics.threshold={threshold}")
    # the grader's own verdict (threshold 0.80) is recorded but must not decide the depth study's rate
    scores = {"depth 0": (0.8, 0.85, 0.6), "depth 1": (0.85, 0.6, 0.6)}
    records = {
        ("oracle", condition): [episode_record(score=s, passed=s >= 0.8) for s in values]
        for condition, values in scores.items()
    }
    agents = {"oracle": SCRIPTED_AGENTS["oracle"]()}
    table, logged = build_depth_table(records, agents, metric_settings(cfg), cfg.benchmark.name)
    column = table.columns.index("oracle pass (%)")
    assert logged["oracle.depth_0.pass_rate"] == pytest.approx(float(table.rows[0][column]) / 100, abs=1e-3)
    return {row[0]: row[column] for row in table.rows} | {"note": table.notes[1]}


def test_a_threshold_override_changes_the_depth_study() -> None:
    # 0.8 and 0.85 sit between the thresholds: 2 of 3 pass at 0.7, none at 0.9.
    assert _depth_pass_rates("0.7") == {
        "depth 0": "66.7",
        "depth 1": "33.3",
        "note": "Pass: native score >= 0.70.",
    }
    assert _depth_pass_rates("0.9") == {
        "depth 0": "0.0",
        "depth 1": "0.0",
        "note": "Pass: native score >= 0.90.",
    }


@pytest.mark.parametrize(
    "call",
    [
        lambda: pass_at_1([]),
        lambda: mean_score([]),
        lambda: pass_flags([]),
        lambda: rpr([]),
        lambda: rate_with_ci([]),
        lambda: mean_with_ci([]),
    ],
)
def test_empty_input_is_rejected(call) -> None:
    with pytest.raises(ValueError, match="empty"):
        call()


def test_rate_with_ci_eight_of_ten() -> None:
    # Wilson 95% for 8/10, worked out in test_statistics: (0.490164, 0.943318).
    estimate = rate_with_ci([True] * 8 + [False] * 2)
    assert estimate == RateEstimate(
        value=0.8, low=pytest.approx(0.490164, abs=1e-5), high=pytest.approx(0.943318, abs=1e-5), n=10
    )


def test_mean_with_ci_t_interval() -> None:
    # mean 3, s = sqrt(10 / 4) = 1.581139, s / sqrt(5) = 0.707107, t(0.975, df=4) = 2.776445
    # half width = 2.776445 * 0.707107 = 1.963243
    estimate = mean_with_ci([1.0, 2.0, 3.0, 4.0, 5.0])
    assert estimate.value == 3.0
    assert estimate.n == 5
    assert (estimate.low, estimate.high) == pytest.approx((3 - 1.963243, 3 + 1.963243), abs=1e-5)


def test_mean_with_ci_constant_values() -> None:
    # Zero spread gives a zero-width interval.
    estimate = mean_with_ci([0.4, 0.4, 0.4])
    assert (estimate.value, estimate.low, estimate.high, estimate.n) == (
        pytest.approx(0.4),
        estimate.value,
        estimate.value,
        3,
    )


def test_mean_with_ci_single_value_has_undefined_interval() -> None:
    estimate = mean_with_ci([0.7])
    assert (estimate.value, estimate.n) == (0.7, 1)
    assert math.isnan(estimate.low)
    assert math.isnan(estimate.high)


def test_mean_with_ci_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="finite"):
        mean_with_ci([1.0, float("inf")])
    with pytest.raises(ValueError, match="confidence"):
        mean_with_ci([1.0, 2.0], confidence=95)


def test_an_estimate_is_logged_with_its_n_and_interval_bounds():
    estimate = rate_with_ci([True, False, True, True], 0.95)
    logged = estimate.as_metrics("oracle.res.pass_at_1")
    assert logged == {
        "oracle.res.pass_at_1": 0.75,
        "oracle.res.pass_at_1.n": 4.0,
        "oracle.res.pass_at_1.ci_low": estimate.low,
        "oracle.res.pass_at_1.ci_high": estimate.high,
    }
    assert 0.0 < estimate.low < 0.75 < estimate.high < 1.0
    assert mean_with_ci([0.5], 0.95).as_metrics("s") == {"s": 0.5, "s.n": 1.0}  # no interval from one value


# Edges and messages, each worked out by hand


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pass_at_1([0.5], threshold=1.5), "threshold must lie in [0, 1], got 1.5"),
        (lambda: pass_at_1([0.5], threshold=-0.1), "threshold must lie in [0, 1], got -0.1"),
        (lambda: mean_score([0.5, 1.5]), "scores[1] = 1.5 is not a native score in [0, 1]"),
        (lambda: mean_score([-0.01]), "scores[0] = -0.01 is not a native score in [0, 1]"),
        (lambda: rpr([(1, 2), (0, 0)]), "rubric[1] has 0 rubric items; every task needs at least one"),
        (lambda: rpr([(3, 2)]), "rubric[0] has 3 passed of 2 items"),
        (lambda: rpr([(-1, 2)]), "rubric[0] has -1 passed of 2 items"),
        (lambda: rate_with_ci([True, "yes"]), "successes[1] is not a boolean outcome: 'yes'"),
        (lambda: rate_with_ci([]), "successes is empty: a metric needs at least one task"),
        (lambda: mean_score([]), "scores is empty: a metric needs at least one task"),
        (lambda: rpr([]), "rubric is empty: a metric needs at least one task"),
        (lambda: mean_with_ci([]), "values is empty: a metric needs at least one task"),
        (lambda: mean_with_ci([1.0, float("nan")]), "values must be finite"),
    ],
)
def test_bad_input_is_rejected_with_its_exact_reason(call, message) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


def test_the_bounds_of_the_native_scale_and_of_a_threshold_are_allowed() -> None:
    assert pass_flags([0.0, 1.0], threshold=0.0) == [True, True]
    assert pass_flags([0.0, 1.0], threshold=1.0) == [False, True]
    assert mean_score([0.0, 1.0]) == 0.5
    assert rate_with_ci([True, False, 1, 0]).value == 0.5  # 1 and 0 are boolean outcomes


def test_a_threshold_is_reached_within_the_tolerance_only() -> None:
    assert reaches(0.8 - TOLERANCE, 0.8)
    assert not reaches(0.8 - 3 * TOLERANCE, 0.8)
    assert reaches(0.8, 0.8) and not reaches(0.5, 0.8)


def test_rubric_counts_of_an_episode() -> None:
    [graded] = _workspace(THREE_OF_FIVE)
    assert rubric_counts(graded) == (3, 5)
    graded.grade = None
    assert rubric_counts(graded) == (0, 0)


def test_every_benchmark_has_its_style_and_its_success_description() -> None:
    settings = default_metrics(threshold=0.75, tcr_fraction=0.6)
    styles = {name: benchmark_style(name) for name in BENCHMARK_STYLES}
    assert styles == {
        "terminal_bundled": "binary",
        "claw_bundled": "native",
        "claw_eval_live": "native",
        "workspace_bundled": "rubric",
        "agentce": "native",
    }
    assert success_description("claw_bundled", settings) == "native score >= 0.75"
    assert success_description("workspace_bundled", settings) == "at least 60% of the rubric items passed"
    assert success_description("terminal_bundled", settings) == "the verifier passed"
    assert success_description("a/harbor/folder", settings) == "the verifier passed"


def test_a_native_success_counts_a_score_at_the_threshold() -> None:
    record = episode_record(score=0.8, passed=False)
    assert succeeded(record, default_metrics(threshold=0.8))
    assert not succeeded(episode_record(score=0.79), default_metrics(threshold=0.8))


def test_intervals_follow_the_confidence_level() -> None:
    # Wilson 90% for 2 of 4 (z = 1.644854): [0.18240, 0.81760]; Student t 90% for [1, 2, 3]:
    # t(0.95, 2) = 2.919986, half-width 2.919986 / sqrt(3) = 1.685854.
    rate = rate_with_ci([True, False, True, False], confidence=0.9)
    assert (rate.low, rate.high) == pytest.approx((0.18240, 0.81760), abs=1e-5)
    mean = mean_with_ci([1.0, 2.0, 3.0], confidence=0.9)
    assert (mean.low, mean.high) == pytest.approx((2 - 1.685854, 2 + 1.685854), abs=1e-5)


def test_the_pooled_rpr_interval_uses_the_given_resamples_seed_and_confidence() -> None:
    records = _workspace(FOUR_OF_FIVE, THREE_OF_FIVE, FIVE_OF_FIVE, (True, False))
    counts = [(4, 5), (3, 5), (5, 5), (1, 2)]
    estimate = pooled_rpr_with_ci(records, 0.9, n_bootstrap=300, seed=4)
    low, high = cluster_bootstrap_interval(counts, n_resamples=300, confidence=0.9, seed=4)
    assert estimate == RateEstimate(pytest.approx(13 / 17), low, high, 4)
    assert pooled_rpr_with_ci(records, 0.95, n_bootstrap=300, seed=4).low <= low


def test_settings_are_read_as_numbers() -> None:
    metrics = SimpleNamespace(threshold="0.7", tcr_fraction=1, confidence="0.9", n_bootstrap="200")
    assert MetricSettings.from_config(metrics, "5") == MetricSettings(0.7, 1.0, 0.9, 200, 5)
    assert MetricSettings.from_config(metrics).seed == 0


def test_one_rubric_item_counts_toward_tcr_and_rpr() -> None:
    one_passed, one_failed = _workspace((True,), (False,))
    assert success_flags([one_passed, one_failed], default_metrics()) == [True, False]
    estimate = pooled_rpr_with_ci([one_passed, one_failed])
    assert (estimate.value, estimate.n) == (0.5, 2)


def test_the_pooled_rpr_interval_defaults_to_ten_thousand_resamples_seeded_zero() -> None:
    records = _workspace(FOUR_OF_FIVE, THREE_OF_FIVE, FIVE_OF_FIVE, (True, False))
    low, high = cluster_bootstrap_interval(
        [(4, 5), (3, 5), (5, 5), (1, 2)], n_resamples=10_000, confidence=0.95, seed=0
    )
    estimate = pooled_rpr_with_ci(records)
    assert (estimate.low, estimate.high) == (low, high)
