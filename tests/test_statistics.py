"""Tests for res_repro.evaluation.statistics on cases worked out by hand."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from res_repro.evaluation.statistics import (
    McNemarResult,
    PairedBootstrapResult,
    mcnemar_exact,
    paired_bootstrap,
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
