"""Each bench criterion can fail: its verdict function, fed a bad series, says MISSED; a good one, met."""

from __future__ import annotations

import pytest
from verdicts import MET, MISSED, at_least, at_most, flat_within, growth_ratio, share_percent

DEPTHS = range(1, 25)


def test_a_per_node_cost_that_grows_with_depth_misses_the_flat_target():
    quadratic_total = {d: 0.020 * d for d in DEPTHS}  # node at depth d costs d times depth 1
    assert flat_within(quadratic_total, 1.2) == MISSED
    assert growth_ratio(quadratic_total) == pytest.approx(24.0)
    slowly = {d: 0.020 * (1 + 0.02 * d) for d in DEPTHS}  # 1.45x by depth 24: still O(d^2) in total
    assert flat_within(slowly, 1.2) == MISSED


def test_a_flat_per_node_cost_with_scatter_meets_the_target():
    scattered = {d: 0.020 * (1.3 if d % 3 == 0 else 1.0) for d in DEPTHS}  # one operator costs more
    assert growth_ratio(scattered) == pytest.approx(1.0, abs=0.05)
    assert flat_within(scattered, 1.2) == MET
    falling = {d: 0.030 - 0.0005 * d for d in DEPTHS}
    assert flat_within(falling, 1.2) == MET


def test_growth_needs_two_depths_and_a_line_through_zero_is_unbounded():
    with pytest.raises(ValueError, match="two depths"):
        growth_ratio({1: 0.02})
    assert growth_ratio({1: 0.001, 2: 0.002, 3: 0.030}) == float("inf")  # the fitted line is below 0 at 1


def test_a_setup_share_over_five_percent_misses():
    setups, episodes = [0.012, 0.020, 0.016], [0.100, 0.150, 0.140]  # 12%, 13.3%, 11.4%
    assert share_percent(setups, episodes) == pytest.approx(12.0)
    assert at_most(share_percent(setups, episodes), 5.0) == MISSED
    assert at_most(share_percent([0.002, 0.004, 0.003], episodes), 5.0) == MET


def test_latency_and_speedup_targets_fail_on_the_wrong_side():
    assert at_most(0.97, 1.0) == MET
    assert at_most(1.03, 1.0) == MISSED
    assert at_least(1.44, 1.8) == MISSED
    assert at_least(1.85, 1.8) == MET
