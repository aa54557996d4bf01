"""Confidence intervals and paired significance tests for comparing agents or environments per task.

Tasks are the units of resampling throughout: a pooled ratio (RPR: rubric items passed over items, pooled
across tasks) is bootstrapped by resampling whole tasks (a cluster bootstrap), never items, since the
items of one task are not independent. Beside each paired bootstrap there is a paired permutation test
of the same statistic: exact (every swap of the two conditions within tasks) up to
``EXACT_PERMUTATION_MAX`` tasks that differ, Monte Carlo above, because the bootstrap p is optimistic at
small n.

Every function is deterministic: resampling draws from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Statistic = Callable[..., np.ndarray]
"""A numpy-style reduction called as ``statistic(values, axis=-1)``, e.g. ``np.mean`` or ``np.median``."""

TaskStatistic = Callable[[np.ndarray], np.ndarray]
"""A statistic of per-task rows: called on an array ``(..., tasks, columns)``, reduces the last two axes."""

PERMUTATION_CHUNK = 1 << 15
"""How many permutations are evaluated at once (bounds memory for the 2^20 swaps of an exact test)."""

EXACT_PERMUTATION_MAX = 20
"""Up to this many tasks whose two conditions differ, the permutation test enumerates every swap (2^n)."""

TIE_TOLERANCE = 1e-12
"""Resampled statistics this close to the observed one count as reaching it."""


def task_mean(rows: np.ndarray) -> np.ndarray:
    """The mean over tasks of the first column (a per-task value such as a score)."""
    return rows[..., 0].mean(axis=-1)


def pooled_ratio(rows: np.ndarray) -> np.ndarray:
    """Column 0 summed over tasks over column 1 summed over tasks (RPR: items passed over items)."""
    return rows[..., 0].sum(axis=-1) / rows[..., 1].sum(axis=-1)


@dataclass(frozen=True)
class McNemarResult:
    """Exact McNemar test on paired binary outcomes.

    ``b01`` counts tasks that ``a`` failed and ``b`` passed; ``b10`` counts tasks that ``a`` passed
    and ``b`` failed. ``p_value`` is two-sided.
    """

    b01: int
    b10: int
    p_value: float


@dataclass(frozen=True)
class PermutationResult:
    """Paired permutation test of ``b`` against ``a``: ``delta`` is the observed difference, ``p_value``
    two-sided; ``exact`` says whether every swap was enumerated (else ``n_resamples`` seeded draws)."""

    delta: float
    p_value: float
    exact: bool
    n_resamples: int


@dataclass(frozen=True)
class PairedBootstrapResult:
    """Paired bootstrap comparison of ``b`` against ``a``.

    ``delta`` is ``statistic(b) - statistic(a)`` on the observed tasks; ``low`` and ``high`` bound its
    percentile confidence interval; ``p_value`` is the two-sided bootstrap p-value for ``delta == 0``.
    """

    delta: float
    low: float
    high: float
    p_value: float


def check_confidence(confidence: float) -> None:
    """Raise ``ValueError`` unless ``confidence`` lies strictly between 0 and 1."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence!r}")


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / n`` (no continuity correction).

    With ``p = successes / n`` and ``z`` the two-sided normal quantile for ``confidence``::

        centre = (p + z²/(2n)) / (1 + z²/n)
        half   = z / (1 + z²/n) * sqrt(p(1 - p)/n + z²/(4n²))

    The interval is ``(centre - half, centre + half)``; its lower bound is exactly 0 when there are
    no successes and its upper bound exactly 1 when all trials succeed, as in exact arithmetic.
    """
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n={n}], got {successes}")
    check_confidence(confidence)
    p = successes / n
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    z2 = z * z
    scale = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / scale
    half = z / scale * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def t_quantile(confidence: float, df: int) -> float:
    """The two-sided quantile of Student's t distribution with ``df`` degrees of freedom: the ``t`` with
    ``P(|T| <= t) = confidence`` (scipy's, imported here so that importing this module stays cheap)."""
    from scipy.stats import t as student_t

    check_confidence(confidence)
    df = operator.index(df)
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {df}")
    return float(student_t.ppf(0.5 + confidence / 2, df))


def _paired_outcomes(a: Sequence[bool], b: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Return ``a`` and ``b`` as boolean arrays after checking they pair up and hold only booleans."""
    if len(a) != len(b):
        raise ValueError(f"paired outcomes differ in length: {len(a)} vs {len(b)}")
    for name, values in (("a", a), ("b", b)):
        for index, value in enumerate(values):
            if value not in (True, False):
                raise ValueError(f"{name}[{index}] is not a boolean outcome: {value!r}")
    return np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> McNemarResult:
    """Exact two-sided McNemar test for paired pass/fail outcomes of the same tasks.

    Only discordant tasks carry information. Under the null hypothesis each discordant task is
    equally likely to favour ``a`` or ``b``, so ``b01 ~ Binomial(b01 + b10, 1/2)``; the p-value is
    that binomial test's two-sided p-value, and 1.0 when there are no discordant tasks.
    """
    first, second = _paired_outcomes(a, b)
    b01 = int(np.sum(~first & second))
    b10 = int(np.sum(first & ~second))
    discordant = b01 + b10
    if discordant == 0:
        return McNemarResult(b01=0, b10=0, p_value=1.0)
    # Binomial(n, 1/2) is symmetric, so the two-sided p is twice the smaller tail (summed exactly)
    p_value = 2.0 * sum(math.comb(discordant, k) for k in range(min(b01, b10) + 1)) / 2**discordant
    return McNemarResult(b01=b01, b10=b10, p_value=min(1.0, p_value))


def _paired_values(a: Sequence[float], b: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Return ``a`` and ``b`` as float arrays after checking they are non-empty, paired and finite."""
    if len(a) != len(b):
        raise ValueError(f"paired values differ in length: {len(a)} vs {len(b)}")
    if len(a) == 0:
        raise ValueError("paired values are empty")
    first = np.asarray(a, dtype=float)
    second = np.asarray(b, dtype=float)
    if first.ndim != 1 or second.ndim != 1:
        raise ValueError("paired values must be one-dimensional sequences")
    if not (np.isfinite(first).all() and np.isfinite(second).all()):
        raise ValueError("paired values must be finite")
    return first, second


def _two_sided_p(delta: float, deltas: np.ndarray) -> float:
    """Twice the share of resampled deltas at or beyond 0 on the side opposite ``delta``, capped at 1."""
    if delta > 0:
        share = float(np.mean(deltas <= 0))
    elif delta < 0:
        share = float(np.mean(deltas >= 0))
    else:
        return 1.0
    return min(1.0, 2.0 * share)


def paired_bootstrap(
    a: Sequence[float],
    b: Sequence[float],
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
    statistic: Statistic = np.mean,
) -> PairedBootstrapResult:
    """Paired percentile bootstrap of ``statistic(b) - statistic(a)`` over tasks.

    Each resample draws task indices with replacement and applies the same indices to ``a`` and
    ``b``, so per-task pairing is kept. The interval is the ``(1 - confidence)/2`` and
    ``(1 + confidence)/2`` quantiles of the resampled deltas. The p-value is twice the share of
    resampled deltas that reach 0 or lie beyond it, opposite the observed delta (capped at 1; 1.0
    when the observed delta is 0). ``statistic`` must reduce along an ``axis`` keyword like
    ``np.mean``. Results depend only on the inputs and ``seed``.
    """
    _check_resamples(n_resamples)
    check_confidence(confidence)
    first, second = _paired_values(a, b)
    delta = float(statistic(second, axis=-1) - statistic(first, axis=-1))
    indices = _task_draws(first.size, n_resamples, seed)
    deltas = statistic(second[indices], axis=-1) - statistic(first[indices], axis=-1)
    return _bootstrap_result(delta, deltas, confidence)


def _check_resamples(n_resamples: int) -> None:
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")


def _task_draws(n_tasks: int, n_resamples: int, seed: int) -> np.ndarray:
    """Seeded task indices drawn with replacement, one row per resample."""
    return np.random.default_rng(seed).integers(0, n_tasks, size=(n_resamples, n_tasks))


def _bootstrap_result(delta: float, deltas: np.ndarray, confidence: float) -> PairedBootstrapResult:
    alpha = 1.0 - confidence
    low, high = np.quantile(deltas, [alpha / 2, 1.0 - alpha / 2])
    return PairedBootstrapResult(
        delta=delta, low=float(low), high=float(high), p_value=_two_sided_p(delta, deltas)
    )


def _ratio_rows(name: str, counts: Sequence[tuple[float, float]]) -> np.ndarray:
    """``counts`` as an ``(n, 2)`` array of (part, whole) per task, checked: 0 <= part <= whole, whole > 0."""
    rows = np.asarray(counts, dtype=float).reshape(-1, 2)
    if rows.shape[0] == 0:
        raise ValueError(f"{name} is empty: a ratio needs at least one task")
    if not np.isfinite(rows).all() or (rows[:, 1] <= 0).any() or (rows[:, 0] < 0).any():
        raise ValueError(f"{name}: every task needs a finite whole > 0 and a part >= 0")
    if (rows[:, 0] > rows[:, 1]).any():
        raise ValueError(f"{name}: a task's part exceeds its whole")
    return rows


def cluster_bootstrap_interval(
    counts: Sequence[tuple[float, float]],
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float]:
    """Percentile interval of a pooled ratio (sum of parts over sum of wholes, e.g. RPR) by resampling
    whole tasks with replacement; ``counts`` holds (part, whole) per task. One task gives NaN bounds (its
    resamples all repeat it: the interval is undefined, as a t interval of one value)."""
    _check_resamples(n_resamples)
    check_confidence(confidence)
    rows = _ratio_rows("counts", counts)
    if rows.shape[0] == 1:
        return math.nan, math.nan
    ratios = pooled_ratio(rows[_task_draws(rows.shape[0], n_resamples, seed)])
    alpha = 1.0 - confidence
    low, high = np.quantile(ratios, [alpha / 2, 1.0 - alpha / 2])
    return float(low), float(high)


def paired_ratio_bootstrap(
    a: Sequence[tuple[float, float]],
    b: Sequence[tuple[float, float]],
    *,
    n_resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedBootstrapResult:
    """Paired cluster bootstrap of ``pooled_ratio(b) - pooled_ratio(a)``: each resample draws tasks with
    replacement and keeps both conditions of a drawn task; interval and p as in :func:`paired_bootstrap`."""
    _check_resamples(n_resamples)
    check_confidence(confidence)
    first, second = _ratio_rows("a", a), _ratio_rows("b", b)
    if first.shape != second.shape:
        raise ValueError(f"paired counts differ in length: {len(first)} vs {len(second)}")
    delta = float(pooled_ratio(second) - pooled_ratio(first))
    indices = _task_draws(first.shape[0], n_resamples, seed)
    return _bootstrap_result(delta, pooled_ratio(second[indices]) - pooled_ratio(first[indices]), confidence)


def _swap_masks(n: int, n_resamples: int, seed: int) -> tuple[Iterator[np.ndarray], int, bool]:
    """Which tasks swap conditions, in chunks of rows (one row per permutation): all ``2**n`` rows up to
    ``EXACT_PERMUTATION_MAX`` tasks, else ``n_resamples`` seeded rows; their count; whether exact."""
    exact = n <= EXACT_PERMUTATION_MAX
    total = 2**n if exact else n_resamples
    bits = np.arange(n, dtype=np.int64)

    def chunks() -> Iterator[np.ndarray]:
        rng = np.random.default_rng(seed)
        for start in range(0, total, PERMUTATION_CHUNK):
            size = min(PERMUTATION_CHUNK, total - start)
            if exact:
                codes = np.arange(start, start + size, dtype=np.int64)[:, None]
                yield (codes >> bits) & 1 == 1
            else:
                yield rng.random((size, n)) < 0.5

    return chunks(), total, exact


def paired_permutation_test(
    a: Sequence[float] | Sequence[tuple[float, float]],
    b: Sequence[float] | Sequence[tuple[float, float]],
    *,
    statistic: TaskStatistic = task_mean,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PermutationResult:
    """Two-sided paired permutation test of ``statistic(b) - statistic(a)`` over tasks.

    Under the null hypothesis the two conditions of each task are exchangeable, so every way of swapping
    them within tasks is equally likely (for a mean, a sign flip of each task's difference). The p-value is
    the share of swaps whose difference is at least as far from 0 as the observed one. Tasks whose two
    conditions are identical are left out (swapping them changes nothing, so the p-value is the same);
    with up to ``EXACT_PERMUTATION_MAX`` others every swap is enumerated, otherwise ``n_resamples`` seeded
    random swaps give ``(1 + hits) / (1 + n_resamples)``. With no differing task the p-value is 1.
    ``a`` and ``b`` hold a value per task (``task_mean``) or (part, whole) per task (``pooled_ratio``).
    """
    _check_resamples(n_resamples)
    first, second = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if first.shape != second.shape:
        raise ValueError(f"paired values differ in shape: {first.shape} vs {second.shape}")
    if first.shape[0] == 0:
        raise ValueError("paired values are empty")
    if not (np.isfinite(first).all() and np.isfinite(second).all()):
        raise ValueError("paired values must be finite")
    first, second = first.reshape(first.shape[0], -1), second.reshape(second.shape[0], -1)
    delta = float(statistic(second) - statistic(first))
    differing = (first != second).any(axis=1)
    n = int(differing.sum())
    if n == 0:
        return PermutationResult(delta=delta, p_value=1.0, exact=True, n_resamples=1)
    same = first[~differing]  # identical in both conditions: the same rows on either side of every swap
    chunks, total, exact = _swap_masks(n, n_resamples, seed)
    hits = 0
    for masks in chunks:
        swapped = masks[:, :, None]
        shared = np.broadcast_to(same, (len(masks), *same.shape))
        left = np.concatenate([np.where(swapped, second[differing], first[differing]), shared], axis=1)
        right = np.concatenate([np.where(swapped, first[differing], second[differing]), shared], axis=1)
        hits += int(np.sum(np.abs(statistic(right) - statistic(left)) >= abs(delta) - TIE_TOLERANCE))
    p_value = hits / total if exact else (1 + hits) / (1 + total)
    return PermutationResult(delta=delta, p_value=min(1.0, p_value), exact=exact, n_resamples=total)
