"""The benches' pass/fail rules, as small pure functions over measured figures (tested on good and bad
series in ``tests/test_bench_verdicts.py``, so no criterion passes by construction)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

MET, MISSED = "met", "MISSED"


def verdict(ok: bool) -> str:
    """The word printed after a target."""
    return MET if ok else MISSED


def at_most(value: float, target: float) -> str:
    """A figure that must not exceed its target (a latency, a share)."""
    return verdict(value <= target)


def at_least(value: float, target: float) -> str:
    """A figure that must reach its target (a speedup, a ratio to a slower baseline)."""
    return verdict(value >= target)


def growth_ratio(costs: Mapping[int, float]) -> float:
    """How much a per-node cost grows from the shallowest to the deepest depth measured: the
    least-squares line through (depth, cost), its value at the deepest depth over its value at the
    shallowest (1.0 when flat; a line fits out the operator-to-operator scatter of single nodes).
    A cost that falls gives a ratio below 1; a line that reaches zero or below counts as unbounded."""
    if len(costs) < 2:
        raise ValueError("growth needs costs at two depths at least")
    depths = sorted(costs)
    slope, intercept = statistics.linear_regression(depths, [costs[d] for d in depths])
    first, last = intercept + slope * depths[0], intercept + slope * depths[-1]
    if first <= 0 or last <= 0:
        return float("inf") if slope > 0 else 0.0
    return last / first


def flat_within(costs: Mapping[int, float], limit: float) -> str:
    """Per-node cost flat within ``limit`` times (so building depth d costs time linear in d)."""
    return at_most(growth_ratio(costs), limit)


def share_percent(parts: Sequence[float], wholes: Sequence[float]) -> float:
    """The median over items of part / whole, in percent (setup time over episode time, per task)."""
    return statistics.median(100 * part / whole for part, whole in zip(parts, wholes, strict=True))
