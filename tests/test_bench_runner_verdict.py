"""The 2-worker speedup check of benchmarks/bench_runner.py can fail: a bad series gets MISSED; the
ceiling it is read against follows the cores."""

from __future__ import annotations

import bench_runner
import pytest


def test_two_workers_well_short_of_the_target_are_missed() -> None:
    ratio, verdict = bench_runner.speedup_verdict([2.0, 2.1, 1.9], [2.9, 3.0, 2.8])
    assert verdict == "MISSED"
    assert ratio == pytest.approx(1.45)


def test_the_verdict_uses_medians_so_one_lucky_round_does_not_pass() -> None:
    ratio, verdict = bench_runner.speedup_verdict([2.0, 2.0, 2.0], [3.0, 3.2, 9.0])
    assert (ratio, verdict) == (pytest.approx(1.6), "MISSED")


def test_a_speedup_at_the_target_is_met() -> None:
    ratio, verdict = bench_runner.speedup_verdict([1.0, 1.0], [1.8, 1.8])
    assert verdict == "met"
    assert ratio == pytest.approx(bench_runner.SPEEDUP_TARGET)


def test_cores_kept_busy_are_episodes_per_second_times_cpu_per_episode() -> None:
    assert bench_runner.Round(rate=8.0, busy_per_episode=0.2).cores_busy == pytest.approx(1.6)


def test_the_ceiling_is_the_cores_two_workers_may_fill_over_those_one_fills() -> None:
    assert bench_runner.speedup_ceiling(cores_one=1.06, cpus=2) == pytest.approx(2 / 1.06)
    assert bench_runner.speedup_ceiling(cores_one=1.06, cpus=8) == 2.0  # spare cores: two workers, 2x
    assert bench_runner.speedup_ceiling(cores_one=1.0, cpus=2) == 2.0
