"""Tests for res_repro.evaluation.metrics on cases worked out by hand."""

from __future__ import annotations

import math

import pytest

from res_repro.evaluation.metrics import (
    RateEstimate,
    binary_pass_rate,
    mean_score,
    mean_with_ci,
    pass_at_1,
    rate_with_ci,
    rpr,
    tcr_at,
)


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


def test_tcr_at_80() -> None:
    # 4/5 = 0.8 and 5/5 complete, 3/5 = 0.6 does not: 2 / 3.
    assert tcr_at([(4, 5), (3, 5), (5, 5)]) == pytest.approx(2 / 3)


def test_tcr_at_other_fraction() -> None:
    # At 60% all three complete; at 100% only 5/5 does.
    assert tcr_at([(4, 5), (3, 5), (5, 5)], fraction=0.6) == 1.0
    assert tcr_at([(4, 5), (3, 5), (5, 5)], fraction=1.0) == pytest.approx(1 / 3)


def test_rpr_pools_items() -> None:
    # (4 + 3 + 5) / (5 + 5 + 5) = 12 / 15 = 0.8
    assert rpr([(4, 5), (3, 5), (5, 5)]) == pytest.approx(12 / 15)


def test_rpr_weighs_tasks_by_item_count() -> None:
    # (1 + 0) / (1 + 9) = 0.1, not the mean of per-task rates (1.0 + 0.0) / 2.
    assert rpr([(1, 1), (0, 9)]) == pytest.approx(0.1)


@pytest.mark.parametrize("metric", [tcr_at, rpr])
def test_rubric_metrics_reject_task_without_items(metric) -> None:
    with pytest.raises(ValueError, match=r"rubric\[1\]"):
        metric([(1, 2), (0, 0)])


@pytest.mark.parametrize("metric", [tcr_at, rpr])
def test_rubric_metrics_reject_more_passed_than_total(metric) -> None:
    with pytest.raises(ValueError, match=r"rubric\[0\]"):
        metric([(3, 2)])


def test_binary_pass_rate() -> None:
    # 3 of 4 verifiers passed.
    assert binary_pass_rate([True, True, False, True]) == 0.75


def test_binary_pass_rate_rejects_non_boolean() -> None:
    with pytest.raises(ValueError, match=r"outcomes\[1\]"):
        binary_pass_rate([True, "yes"])


@pytest.mark.parametrize(
    "call",
    [
        lambda: pass_at_1([]),
        lambda: mean_score([]),
        lambda: tcr_at([]),
        lambda: rpr([]),
        lambda: binary_pass_rate([]),
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
    assert estimate.value == 0.7
    assert math.isnan(estimate.low)
    assert math.isnan(estimate.high)


def test_mean_with_ci_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="finite"):
        mean_with_ci([1.0, float("inf")])
    with pytest.raises(ValueError, match="confidence"):
        mean_with_ci([1.0, 2.0], confidence=95)
