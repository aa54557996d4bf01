"""The 2-worker speedup check of benchmarks/bench_runner.py can fail: a bad series gets MISSED."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_runner.py"


@pytest.fixture(scope="module")
def bench():
    """benchmarks/bench_runner.py as a module (the folder is not a package)."""
    spec = importlib.util.spec_from_file_location("bench_runner", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_runner", module)
    spec.loader.exec_module(module)
    return module


def test_two_workers_well_short_of_the_target_are_missed(bench) -> None:
    ratio, verdict = bench.speedup_verdict([2.0, 2.1, 1.9], [2.9, 3.0, 2.8])
    assert verdict == "MISSED"
    assert ratio == pytest.approx(1.45)


def test_the_verdict_uses_medians_so_one_lucky_round_does_not_pass(bench) -> None:
    ratio, verdict = bench.speedup_verdict([2.0, 2.0, 2.0], [3.0, 3.2, 9.0])
    assert (ratio, verdict) == (pytest.approx(1.6), "MISSED")


def test_a_speedup_at_the_target_is_met(bench) -> None:
    ratio, verdict = bench.speedup_verdict([1.0, 1.0], [1.8, 1.8])
    assert verdict == "met"
    assert ratio == pytest.approx(bench.SPEEDUP_TARGET)
