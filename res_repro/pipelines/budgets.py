"""Depth budgets over saved lineages: retained states and the paper's historical means.

A seed whose chain stopped at depth ``s`` has measurements ``v_0..v_s`` (one per accepted node). Its
retained state at budget ``j`` is ``E_min(j, s)`` (an early-stopped final is carried forward). Its
*historical* value at budget ``d`` is the mean of the retained measurements over ``j = 0..d``; a
table's value averages the per-seed historical values equally over seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import TypeVar

T = TypeVar("T")


def retained(chain: Sequence[T], budget: int) -> T:
    """The measurement at ``budget``: the node at that depth, or the last one if the chain stopped earlier."""
    if not chain:
        raise ValueError("a chain needs at least its root measurement")
    if budget < 0:
        raise ValueError(f"budget must be non-negative, got {budget}")
    return chain[min(budget, len(chain) - 1)]


def historical_mean(chain: Sequence[float], budget: int) -> float:
    """One seed's historical value at ``budget``: the mean of its retained measurements at 0..budget."""
    return fmean(float(retained(chain, j)) for j in range(budget + 1))


def historical_values(chains: Sequence[Sequence[float]], budget: int) -> list[float]:
    """Every seed's historical value at ``budget`` (their plain mean is the table's value)."""
    return [historical_mean(chain, budget) for chain in chains]


def current_values(chains: Sequence[Sequence[float]], budget: int) -> list[float]:
    """Every seed's retained measurement at ``budget`` (no averaging over earlier budgets)."""
    return [float(retained(chain, budget)) for chain in chains]


def reach(depths: Sequence[int], budget: int) -> int:
    """How many chains attain depth ``budget`` (``depths`` holds each chain's last depth)."""
    return sum(depth >= budget for depth in depths)


def continuing(depths: Sequence[int], budget: int) -> int:
    """How many chains go beyond depth ``budget``."""
    return sum(depth > budget for depth in depths)
