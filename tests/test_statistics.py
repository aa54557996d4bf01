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
    t_quantile,
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


def test_t_quantile_by_hand() -> None:
    # df = 1 (Cauchy): t = tan(pi * confidence / 2); df = 2: sin(theta) = confidence, t = sqrt(2) tan(theta)
    assert t_quantile(0.95, 1) == pytest.approx(np.tan(np.pi * 0.95 / 2), rel=1e-12)
    theta = np.arcsin(0.9)
    assert t_quantile(0.9, 2) == pytest.approx(np.sqrt(2) * np.tan(theta), rel=1e-12)


def test_t_quantile_is_two_sided_as_the_tables_print() -> None:
    # printed tables of Student's t (two-sided 95%): 12.706 (df 1), 2.228 (df 10), 1.984 (df 100)
    assert [round(t_quantile(0.95, df), 3) for df in (1, 10, 100)] == [12.706, 2.228, 1.984]


@pytest.mark.parametrize(
    ("confidence", "df", "message"),
    [(0.95, 0, "degrees of freedom"), (1.0, 5, "confidence"), (0.0, 5, "confidence"), (0.95, 2.5, "integer")],
)
def test_t_quantile_rejects_bad_arguments(confidence: float, df: float, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        t_quantile(confidence, df)


@pytest.mark.parametrize(
    ("successes", "n", "confidence", "message"),
    [
        (1, 0, 0.95, "n must be positive"),
        (-1, 10, 0.95, "successes must lie"),
        (11, 10, 0.95, "successes must lie"),
        (5, 10, 0.0, "confidence must lie"),
        (5, 10, 1.0, "confidence must lie"),
    ],
)
def test_wilson_rejects_bad_arguments(successes: int, n: int, confidence: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
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
    ("a", "b", "kwargs", "message"),
    [
        ([1.0, 2.0], [1.0], {}, r"^paired values differ in length: 2 vs 1$"),
        ([], [], {}, r"^paired values are empty$"),
        ([1.0, float("nan")], [1.0, 2.0], {}, r"^paired values must be finite$"),
        ([1.0, 2.0], [1.0, float("inf")], {}, r"^paired values must be finite$"),
        ([[1.0], [2.0]], [1.0, 2.0], {}, r"^paired values must be one-dimensional sequences$"),
        ([1.0, 2.0], [[1.0], [2.0]], {}, r"^paired values must be one-dimensional sequences$"),
        ([1.0], [2.0], {"n_resamples": 0}, r"^n_resamples must be at least 1, got 0$"),
        ([1.0], [2.0], {"confidence": 1.5}, r"^confidence must lie strictly between 0 and 1, got 1\.5$"),
    ],
)
def test_bootstrap_rejects_bad_arguments(
    a: list[float], b: list[float], kwargs: dict[str, float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
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


# Edges and settings that change results: n = 0, the confidence level, seeds, p-value caps


@pytest.mark.parametrize(
    ("successes", "n", "message"),
    [
        (0, 0, r"^n must be positive, got 0$"),
        (1, -1, r"^n must be positive, got -1$"),
        (-1, 5, r"^successes must lie in \[0, n=5\], got -1$"),
        (6, 5, r"^successes must lie in \[0, n=5\], got 6$"),
    ],
)
def test_wilson_names_what_is_wrong(successes: int, n: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wilson_interval(successes, n)


@pytest.mark.parametrize(("successes", "n"), [(0, 1), (1, 1), (0, 3), (3, 3), (1, 2)])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.999])
def test_wilson_at_the_edges_matches_scipy(successes: int, n: int, confidence: float) -> None:
    low, high = wilson_interval(successes, n, confidence)
    ci = stats.binomtest(successes, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert (low, high) == (pytest.approx(ci.low, abs=1e-12), pytest.approx(ci.high, abs=1e-12))
    assert 0.0 <= low <= high <= 1.0
    assert (low == 0.0) == (successes == 0) and (high == 1.0) == (successes == n)


def test_mcnemar_names_the_offending_outcome() -> None:
    with pytest.raises(ValueError, match=r"^a\[1\] is not a boolean outcome: 2$"):
        mcnemar_exact([True, 2], [True, False])
    with pytest.raises(ValueError, match=r"^b\[0\] is not a boolean outcome: 'yes'$"):
        mcnemar_exact([True], ["yes"])


def _deltas_by_hand(a: list[float], b: list[float], n_resamples: int, seed: int) -> np.ndarray:
    """The paired bootstrap's resampled mean differences, drawn as documented: task indices with
    replacement from ``default_rng(seed)``, one row per resample."""
    draws = np.random.default_rng(seed).integers(0, len(a), size=(n_resamples, len(a)))
    return np.asarray(b)[draws].mean(axis=1) - np.asarray(a)[draws].mean(axis=1)


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
def test_bootstrap_interval_is_at_the_confidence_quantiles(confidence: float) -> None:
    a = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.5]
    b = [0.3, 0.35, 0.6, 0.85, 0.1, 1.0, 0.7]
    result = paired_bootstrap(a, b, n_resamples=500, confidence=confidence, seed=11)
    deltas = _deltas_by_hand(a, b, 500, 11)
    tail = (1 - confidence) / 2
    assert result.low == pytest.approx(float(np.quantile(deltas, tail)))
    assert result.high == pytest.approx(float(np.quantile(deltas, 1 - tail)))
    assert result.delta == pytest.approx(np.mean(b) - np.mean(a))
    assert result.p_value == pytest.approx(2 * float(np.mean(deltas <= 0)))


def test_bootstrap_defaults_are_ten_thousand_draws_from_seed_zero() -> None:
    a, b = [0.0, 0.2, 0.5, 0.9], [0.1, 0.1, 0.7, 1.0]
    assert paired_bootstrap(a, b) == paired_bootstrap(a, b, n_resamples=10_000, seed=0)
    deltas = _deltas_by_hand(a, b, 10_000, 0)
    assert paired_bootstrap(a, b).low == pytest.approx(float(np.quantile(deltas, 0.025)))
    assert paired_bootstrap(a, b, seed=1) != paired_bootstrap(a, b)


def test_bootstrap_p_of_a_negative_shift_counts_draws_at_or_above_zero() -> None:
    a, b = [0.9, 0.5, 0.6, 0.2, 0.7], [0.5, 0.6, 0.3, 0.2, 0.4]
    result = paired_bootstrap(a, b, n_resamples=400, seed=2)
    deltas = _deltas_by_hand(a, b, 400, 2)
    assert result.delta < 0
    assert result.p_value == pytest.approx(2 * float(np.mean(deltas >= 0)))
    assert 0 < result.p_value < 1


def test_bootstrap_with_a_single_resample_is_allowed() -> None:
    result = paired_bootstrap([0.0, 1.0], [1.0, 1.0], n_resamples=1, seed=0)
    assert result.low == result.high


def test_bootstrap_p_value_is_capped_at_one() -> None:
    from res_repro.evaluation.statistics import _two_sided_p

    assert _two_sided_p(0.5, np.array([-1.0, -1.0, 0.0, 1.0])) == 1.0  # 2 * 3/4 capped
    assert _two_sided_p(-0.5, np.array([1.0, 0.0, -1.0, -1.0])) == 1.0
    assert _two_sided_p(0.5, np.array([-1.0, 1.0, 1.0, 1.0])) == 0.5
    assert _two_sided_p(-0.5, np.array([1.0, -1.0, -1.0, -1.0])) == 0.5
    assert _two_sided_p(0.0, np.array([1.0, 1.0])) == 1.0
    assert _two_sided_p(0.2, np.array([0.5, 0.5])) == 0.0  # a delta below 1 still counts as positive


@pytest.mark.parametrize("confidence", [0.5, 0.9])
def test_cluster_interval_is_at_the_confidence_quantiles(confidence: float) -> None:
    rows = [(9, 10), (2, 10), (5, 8), (7, 10), (10, 12)]
    low, high = cluster_bootstrap_interval(rows, n_resamples=300, confidence=confidence, seed=5)
    draws = np.random.default_rng(5).integers(0, 5, size=(300, 5))
    table = np.asarray(rows, dtype=float)[draws]
    ratios = table[..., 0].sum(axis=1) / table[..., 1].sum(axis=1)
    tail = (1 - confidence) / 2
    assert (low, high) == (
        pytest.approx(float(np.quantile(ratios, tail))),
        pytest.approx(float(np.quantile(ratios, 1 - tail))),
    )
    assert cluster_bootstrap_interval(rows, seed=5) != cluster_bootstrap_interval(rows, seed=6)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([], r"^counts is empty: a ratio needs at least one task$"),
        ([(1, 0)], r"^counts: every task needs a finite whole > 0 and a part >= 0$"),
        ([(0, -1)], r"^counts: every task needs a finite whole > 0 and a part >= 0$"),
        ([(-1, 2)], r"^counts: every task needs a finite whole > 0 and a part >= 0$"),
        ([(1, float("nan"))], r"^counts: every task needs a finite whole > 0 and a part >= 0$"),
        ([(3, 2)], r"^counts: a task's part exceeds its whole$"),
    ],
)
def test_cluster_interval_names_bad_counts(counts, message) -> None:
    with pytest.raises(ValueError, match=message):
        cluster_bootstrap_interval(counts)


def test_cluster_interval_accepts_a_part_of_zero_and_a_whole_below_one() -> None:
    assert cluster_bootstrap_interval([(0, 0.5), (0.5, 0.5)], n_resamples=50) == (0.0, 1.0)


def test_paired_ratio_bootstrap_by_hand_and_its_argument_names() -> None:
    a, b = [(1, 2), (0, 4), (2, 2), (1, 3)], [(2, 2), (1, 4), (2, 2), (3, 3)]
    result = paired_ratio_bootstrap(a, b, n_resamples=300, confidence=0.8, seed=9)
    draws = np.random.default_rng(9).integers(0, 4, size=(300, 4))
    first, second = np.asarray(a, dtype=float)[draws], np.asarray(b, dtype=float)[draws]
    deltas = second[..., 0].sum(1) / second[..., 1].sum(1) - first[..., 0].sum(1) / first[..., 1].sum(1)
    assert (result.low, result.high) == (
        pytest.approx(float(np.quantile(deltas, 0.1))),
        pytest.approx(float(np.quantile(deltas, 0.9))),
    )
    assert result.p_value == pytest.approx(min(1.0, 2 * float(np.mean(deltas <= 0))))
    with pytest.raises(ValueError, match=r"^a: a task's part exceeds its whole$"):
        paired_ratio_bootstrap([(3, 2)], [(1, 2)])
    with pytest.raises(ValueError, match=r"^b: a task's part exceeds its whole$"):
        paired_ratio_bootstrap([(1, 2)], [(3, 2)])
    with pytest.raises(ValueError, match=r"^paired counts differ in length: 1 vs 2$"):
        paired_ratio_bootstrap([(1, 2)], [(1, 2), (1, 2)])


def test_permutation_exact_over_several_chunks() -> None:
    """16 differing tasks: 2^16 swaps, evaluated in two chunks; the p is the exact sign-flip count."""
    diffs = np.arange(1, 17, dtype=float)
    result = paired_permutation_test(np.zeros(16), diffs)
    signs = ((np.arange(2**16)[:, None] >> np.arange(16)) & 1) * 2 - 1
    by_hand = float(np.mean(np.abs(signs @ diffs) >= diffs.sum() - 1e-9))
    assert (result.exact, result.n_resamples) == (True, 2**16)
    assert result.p_value == pytest.approx(by_hand)
    assert result.p_value == pytest.approx(2 / 2**16)


def test_permutation_at_exactly_twenty_differing_tasks_is_exact() -> None:
    result = paired_permutation_test([0.0] * 20, [1.0] * 20)
    assert (result.exact, result.n_resamples, result.p_value) == (True, 2**20, 2 / 2**20)


def test_permutation_without_differing_tasks_reports_one_exact_draw() -> None:
    result = paired_permutation_test([0.5, 0.5], [0.5, 0.5], n_resamples=99)
    assert result == dataclasses.replace(result, delta=0.0, p_value=1.0, exact=True, n_resamples=1)
    assert result.exact is True and result.n_resamples == 1


def test_permutation_monte_carlo_counts_hits_and_depends_on_the_seed() -> None:
    """21 differing tasks: (1 + hits) / (1 + draws), with hits counted by hand from the seeded flips."""
    rng = np.random.default_rng(0)
    a, b = rng.random(21), rng.random(21) + 0.05
    result = paired_permutation_test(a, b, n_resamples=2000, seed=8)
    flips = np.random.default_rng(8).random((2000, 21)) < 0.5
    diffs = b - a
    hits = int(np.sum(np.abs(np.where(flips, -diffs, diffs).mean(axis=1)) >= abs(diffs.mean()) - 1e-12))
    assert not result.exact
    assert result.p_value == pytest.approx((1 + hits) / 2001)
    assert 0.05 < result.p_value < 0.95
    assert paired_permutation_test(a, b, n_resamples=2000, seed=9).p_value != result.p_value


def test_permutation_rejects_non_finite_values_on_either_side() -> None:
    with pytest.raises(ValueError, match=r"^paired values must be finite$"):
        paired_permutation_test([1.0, float("nan")], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^paired values must be finite$"):
        paired_permutation_test([1.0, 2.0], [float("inf"), 2.0])
    with pytest.raises(ValueError, match=r"^n_resamples must be at least 1, got 0$"):
        paired_permutation_test([1.0], [2.0], n_resamples=0)
