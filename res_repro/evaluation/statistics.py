"""Confidence intervals and paired significance tests for comparing agents or environments per task.

Every function is deterministic: the bootstrap draws from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special  # special functions only: scipy.stats costs ~0.7 s to import

Statistic = Callable[..., np.ndarray]
"""A numpy-style reduction called as ``statistic(values, axis=-1)``, e.g. ``np.mean`` or ``np.median``."""


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
    z = float(special.ndtri(0.5 + confidence / 2))
    z2 = z * z
    scale = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / scale
    half = z / scale * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


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
    # Binomial(n, 1/2) is symmetric, so the two-sided p is twice the smaller tail
    p_value = 2.0 * float(special.bdtr(min(b01, b10), discordant, 0.5))
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
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    check_confidence(confidence)
    first, second = _paired_values(a, b)
    delta = float(statistic(second, axis=-1) - statistic(first, axis=-1))
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, first.size, size=(n_resamples, first.size))
    deltas = statistic(second[indices], axis=-1) - statistic(first[indices], axis=-1)
    alpha = 1.0 - confidence
    low, high = np.quantile(deltas, [alpha / 2, 1.0 - alpha / 2])
    return PairedBootstrapResult(
        delta=delta, low=float(low), high=float(high), p_value=_two_sided_p(delta, deltas)
    )
