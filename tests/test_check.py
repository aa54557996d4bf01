"""`res-repro check`: a line per task, `N tasks: M valid`, and a non-zero exit unless all are valid."""

from __future__ import annotations

import subprocess
import sys

from task_factory import make_task


def _check(target, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "res_repro", "check", str(target), "--cache-dir", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=240,
    )


def test_valid_and_invalid_tasks_are_told_apart(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "good")
    make_task(
        suite, "nop-passes", test="#!/bin/bash\nmkdir -p /logs/verifier\necho 1 > /logs/verifier/reward.txt\n"
    )
    make_task(suite, "oracle-fails", solve="echo wrong > /app/out.txt\n")
    make_task(suite, "no-reward", test="#!/bin/bash\ntrue\n")
    result = _check(suite, tmp_path)
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 1, result.stderr
    assert lines[-1] == "4 tasks: 1 valid"
    by_task = {line.split()[1]: line for line in lines[:-1]}
    assert by_task["good"].startswith("valid")
    assert "nop passed" in by_task["nop-passes"]
    assert "oracle failed" in by_task["oracle-fails"]
    assert "oracle failed" in by_task["no-reward"]


def test_all_valid_exits_zero_and_reuses_the_cache(tmp_path):
    task = make_task(tmp_path / "suite", "good")
    first = _check(task, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert first.stdout.strip().splitlines()[-1] == "1 tasks: 1 valid"
    stored = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(stored) == 2
    second = _check(task, tmp_path)
    assert second.returncode == 0
    assert sorted((tmp_path / "cache").rglob("*.json")) == stored


def test_bad_target_is_one_clear_error(tmp_path):
    broken = make_task(tmp_path, "broken", toml="[verifier]\ntimeout_sec = 'x'\n")
    result = _check(broken, tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "task.toml: field 'verifier.timeout_sec'" in result.stderr
    assert "Traceback" not in result.stderr


def test_unknown_benchmark_name(tmp_path):
    result = _check("no_such_suite", tmp_path)
    assert result.returncode == 2
    assert "terminal_bundled" in result.stderr


def test_validate_reads_without_running(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "a")
    good = subprocess.run(
        [sys.executable, "-m", "res_repro", "validate", str(suite)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0 and good.stdout.strip() == "1 tasks well-formed (harbor)"
    (suite / "a" / "task.toml").write_text("[agent]\ntimeout_sec = 0\n")
    bad = subprocess.run(
        [sys.executable, "-m", "res_repro", "validate", str(suite)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert "task.toml: field 'agent.timeout_sec'" in bad.stderr
