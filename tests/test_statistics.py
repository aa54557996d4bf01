"""Tests for res_repro.evaluation.statistics on cases worked out by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from res_repro.evaluation.statistics import (
    McNemarResult,
    PairedBootstrapResult,
    cluster_bootstrap_interval,
    mcnemar_exact,
    paired_bootstrap,
    paired_permutation_test,
    paired_ratio_bootstrap,
    pooled_ratio,
    wilson_interval,
)


def test_wilson_eight_of_ten() -> None:
    # p = 0.8, z = 1.959964, z^2 = 3.841459, 1 + z^2/n = 1.3841459
    # centre = (0.8 + 0.1920729) / 1.3841459 = 0.716741
    # half = 1.959964 / 1.3841459 * sqrt(0.016 + 0.0096036) = 1.416008 * 0.160011 = 0.226577
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.490164, abs=1e-5)
    assert high == pytest.approx(0.943318, abs=1e-5)


def test_wilson_zero_successes_starts_at_zero() -> None:
    # p = 0: centre = half = (z^2 / 2n) / (1 + z^2/n), so the upper bound is
    # (z^2/n) / (1 + z^2/n) = 0.3841459 / 1.3841459 = 0.277533
    low, high = wilson_interval(0, 10)
    assert low == 0.0
    assert high == pytest.approx(0.277533, abs=1e-5)


def test_wilson_all_successes_ends_at_one() -> None:
    # Mirror image of the zero case: (1 - 0.277533, 1).
    low, high = wilson_interval(10, 10)
    assert low == pytest.approx(1 - 0.277533, abs=1e-5)
    assert high == 1.0


@pytest.mark.parametrize("n", [1, 7, 15, 89, 105])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_wilson_matches_scipy(n: int, confidence: float) -> None:
    for successes in range(n + 1):
        reference = stats.binomtest(successes, n).proportion_ci(confidence, method="wilson")
        assert wilson_interval(successes, n, confidence) == pytest.approx(
            (reference.low, reference.high), abs=1e-12
        )


@pytest.mark.parametrize(
    ("successes", "n", "confidence"),
    [(1, 0, 0.95), (-1, 10, 0.95), (11, 10, 0.95), (5, 10, 0.0), (5, 10, 1.0)],
)
def test_wilson_rejects_bad_arguments(successes: int, n: int, confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, confidence)


def test_mcnemar_one_against_six() -> None:
    # a fails / b passes on 1 task, a passes / b fails on 6; 3 tasks agree.
    # p = 2 * P(X <= 1), X ~ Bin(7, 1/2) = 2 * (C(7,0) + C(7,1)) / 2^7 = 2 * 8 / 128 = 0.125
    a = [False] + [True] * 6 + [True, False, True]
    b = [True] + [False] * 6 + [True, False, True]
    assert mcnemar_exact(a, b) == McNemarResult(b01=1, b10=6, p_value=pytest.approx(0.125))


def test_mcnemar_five_discordant_one_way() -> None:
    # b01 = 5, b10 = 0: p = 2 * P(X >= 5), X ~ Bin(5, 1/2) = 2 / 32 = 0.0625
    result = mcnemar_exact([False] * 5, [True] * 5)
    assert (result.b01, result.b10) == (5, 0)
    assert result.p_value == pytest.approx(0.0625)


def test_mcnemar_balanced_discordance_gives_one() -> None:
    # b01 = b10 = 3: the observed split is the most likely one, so p = 1.
    result = mcnemar_exact([True] * 3 + [False] * 3, [False] * 3 + [True] * 3)
    assert result == McNemarResult(b01=3, b10=3, p_value=pytest.approx(1.0))


def test_mcnemar_without_discordant_pairs() -> None:
    assert mcnemar_exact([True, False, True], [True, False, True]) == McNemarResult(0, 0, 1.0)
    assert mcnemar_exact([], []) == McNemarResult(0, 0, 1.0)


def test_mcnemar_accepts_numpy_booleans() -> None:
    result = mcnemar_exact(np.array([False, True]), np.array([True, True]))
    assert (result.b01, result.b10) == (1, 0)


def test_mcnemar_rejects_length_mismatch() -> None:
    with pytest.raises(ValueError, match="length"):
        mcnemar_exact([True, False], [True])


def test_mcnemar_rejects_non_boolean_outcome() -> None:
    with pytest.raises(ValueError, match=r"b\[1\]"):
        mcnemar_exact([True, False], [True, 0.5])


def test_bootstrap_identical_arrays() -> None:
    # Every resample takes the same tasks from both arrays, so every delta is exactly 0.
    values = [0.1, 0.5, 0.9, 0.3]
    assert paired_bootstrap(values, values) == PairedBootstrapResult(0.0, 0.0, 0.0, 1.0)


def test_bootstrap_constant_shift() -> None:
    # b = a + 0.5 on every task: every resampled delta is 0.5 (up to rounding), none reaches 0.
    a = np.linspace(0.0, 0.5, 30)
    result = paired_bootstrap(a, a + 0.5)
    assert result.delta == pytest.approx(0.5)
    assert (result.low, result.high) == pytest.approx((0.5, 0.5))
    assert result.p_value == 0.0


def test_bootstrap_two_tasks_by_hand() -> None:
    # a = [0, 0], b = [0, 1]: observed delta = 0.5. A resample's delta is the share of draws
    # picking task 1: 0 with probability 1/4, 0.5 with 1/2, 1 with 1/4.
    # p = 2 * P(delta <= 0) = 2 * 1/4 = 0.5; the 95% interval spans (0, 1).
    result = paired_bootstrap([0.0, 0.0], [0.0, 1.0])
    assert result.delta == 0.5
    assert (result.low, result.high) == (0.0, 1.0)
    assert result.p_value == pytest.approx(0.5, abs=0.03)
    reverse = paired_bootstrap([0.0, 1.0], [0.0, 0.0])
    assert reverse.delta == -0.5
    assert reverse.p_value == pytest.approx(0.5, abs=0.03)


def test_bootstrap_detects_clear_shift() -> None:
    rng = np.random.default_rng(7)
    a = rng.uniform(0.0, 1.0, size=100)
    b = a + 0.3 + rng.normal(0.0, 0.5, size=100)
    result = paired_bootstrap(a, b)
    assert result.p_value < 0.05
    assert 0.0 < result.low < result.delta < result.high


def test_bootstrap_is_deterministic() -> None:
    rng = np.random.default_rng(1)
    a = rng.uniform(size=50).tolist()
    b = rng.uniform(size=50).tolist()
    assert paired_bootstrap(a, b, seed=3) == paired_bootstrap(a, b, seed=3)
    assert paired_bootstrap(a, b, seed=3) != paired_bootstrap(a, b, seed=4)


def test_bootstrap_with_median() -> None:
    # Medians: a -> 2, b -> 5, so delta = 3.
    result = paired_bootstrap([1.0, 2.0, 3.0], [4.0, 5.0, 9.0], statistic=np.median, n_resamples=500)
    assert result.delta == 3.0
    assert result.low <= result.delta <= result.high


def test_bootstrap_results_are_frozen() -> None:
    result = paired_bootstrap([0.0], [1.0], n_resamples=10)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.delta = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("a", "b", "kwargs"),
    [
        ([1.0, 2.0], [1.0], {}),
        ([], [], {}),
        ([1.0, float("nan")], [1.0, 2.0], {}),
        ([1.0], [2.0], {"n_resamples": 0}),
        ([1.0], [2.0], {"confidence": 1.5}),
    ],
)
def test_bootstrap_rejects_bad_arguments(a: list[float], b: list[float], kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        paired_bootstrap(a, b, **kwargs)


# Cluster bootstrap of a pooled ratio, and the paired permutation test


def test_permutation_exact_sign_flips_by_hand() -> None:
    # differences 1, 2, 3, 4 (sum 10): of the 16 sign flips only all-plus and all-minus reach |10|
    result = paired_permutation_test([0, 0, 0, 0], [1, 2, 3, 4])
    assert (result.delta, result.p_value, result.exact, result.n_resamples) == (2.5, 0.125, True, 16)
    # three equal differences: 2 of 8 flips reach |3|
    assert paired_permutation_test([0, 0, 0], [1, 1, 1]).p_value == 0.25


def test_permutation_all_equal_pairs_and_empty_input() -> None:
    """Pairs that never differ give p = 1 (nothing to swap); no pairs at all is an error."""
    result = paired_permutation_test([0.3, 0.7, 1.0], [0.3, 0.7, 1.0])
    assert (result.delta, result.p_value) == (0.0, 1.0)
    with pytest.raises(ValueError, match="empty"):
        paired_permutation_test([], [])
    with pytest.raises(ValueError, match="shape"):
        paired_permutation_test([1.0], [1.0, 2.0])


def test_permutation_ignores_tied_tasks_and_matches_the_t_test_at_moderate_n() -> None:
    """Tied tasks change nothing (1, 2, 3, 4 plus two ties: still 0.125); at n = 15 the exact p sits near
    the paired t-test's, where the bootstrap's is optimistic."""
    assert paired_permutation_test([0, 0, 0, 0, 5, 5], [1, 2, 3, 4, 5, 5]).p_value == 0.125
    rng = np.random.default_rng(3)
    a = rng.random(15)
    b = a + rng.normal(0.1, 0.2, 15)
    exact = paired_permutation_test(a, b).p_value
    t_test = stats.ttest_rel(b, a).pvalue
    assert exact == pytest.approx(t_test, abs=0.03)
    assert paired_bootstrap(a, b).p_value < exact


def test_permutation_monte_carlo_above_the_exact_limit_is_seeded() -> None:
    """Above 20 differing tasks the p is (1 + hits) / (1 + draws), repeatable for a seed."""
    a, b = [0.0] * 30, [1.0] * 30
    first = paired_permutation_test(a, b, n_resamples=999, seed=4)
    assert not first.exact and first.n_resamples == 999
    assert first.p_value == pytest.approx(1 / 1000)  # no random flip reaches |1|
    assert paired_permutation_test(a, b, n_resamples=999, seed=4) == first


def test_permutation_of_a_pooled_ratio_swaps_whole_tasks() -> None:
    # a = (1/2, 1/2), b = (2/2, 2/2): delta 0.5; swaps give 0.5, 0, 0, -0.5 -> p = 2/4
    result = paired_permutation_test([(1, 2), (1, 2)], [(2, 2), (2, 2)], statistic=pooled_ratio)
    assert (result.delta, result.p_value) == (0.5, 0.5)


def test_cluster_bootstrap_interval_by_hand_and_by_confidence() -> None:
    # two tasks (4/5, 3/5): resamples pool to 4/5, 7/10 or 3/5, so the interval is [0.6, 0.8]
    low, high = cluster_bootstrap_interval([(4, 5), (3, 5)])
    assert (low, high) == (pytest.approx(0.6), pytest.approx(0.8))
    # a lower confidence narrows it; one task leaves it undefined
    rows = [(9, 10), (2, 10), (5, 10), (7, 10), (10, 10)]
    wide, narrow = cluster_bootstrap_interval(rows), cluster_bootstrap_interval(rows, confidence=0.5)
    assert wide[0] < narrow[0] < narrow[1] < wide[1]
    assert all(np.isnan(cluster_bootstrap_interval([(3, 5)])))
    with pytest.raises(ValueError, match="confidence"):
        cluster_bootstrap_interval(rows, confidence=1.0)


def test_cluster_interval_is_wider_than_items_pooled_as_independent() -> None:
    """Tasks that pass or fail as a whole: 5 of 10 tasks with 20 items each. A Wilson interval over the 200
    pooled items is far narrower than the per-task bootstrap's."""
    rows = [(20, 20)] * 5 + [(0, 20)] * 5
    low, high = cluster_bootstrap_interval(rows)
    w_low, w_high = wilson_interval(100, 200)
    assert (high - low) > 2 * (w_high - w_low)


def test_paired_ratio_bootstrap_compares_the_pooled_ratio() -> None:
    a, b = [(1, 2), (0, 4), (2, 2)], [(2, 2), (1, 4), (2, 2)]
    result = paired_ratio_bootstrap(a, b, n_resamples=2000)
    assert result.delta == pytest.approx(5 / 8 - 3 / 8)
    assert result.low <= result.delta <= result.high
    unchanged = paired_ratio_bootstrap(a, a)
    assert (unchanged.delta, unchanged.p_value) == (0.0, 1.0)
    with pytest.raises(ValueError, match="exceeds"):
        paired_ratio_bootstrap([(3, 2)], [(1, 2)])
