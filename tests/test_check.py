"""`res-repro check`: a line per task, `N tasks: M valid`, and a non-zero exit unless all are valid."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from task_factory import make_task


def _check(target, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "res_repro", "check", str(target), "--cache-dir", str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=240,
    )


@pytest.mark.slow
def test_valid_and_invalid_tasks_are_told_apart(tmp_path):
    suite = tmp_path / "suite"
    make_task(suite, "good")
    make_task(
        suite, "nop-passes", test="#!/bin/bash\nmkdir -p /logs/verifier\necho 1 > /logs/verifier/reward.txt\n"
    )
    make_task(suite, "oracle-fails", solve="echo wrong > /app/out.txt\n")
    make_task(suite, "no-reward", test="#!/bin/bash\ntrue\n")
    make_task(suite, "solve-exits", solve="exit 3\n")
    make_task(suite, "no-reference")
    (suite / "no-reference" / "solution" / "solve.sh").unlink()
    make_task(suite, "unreadable", toml="[verifier]\ntimeout_sec = 'x'\n")
    needs_docker = make_task(suite, "needs-docker")
    (needs_docker / "environment" / "Dockerfile").write_text("FROM debian:12\nRUN apt-get install -y jq\n")
    shutil.rmtree(needs_docker / "environment" / "workspace")
    result = _check(suite, tmp_path)
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 1, result.stderr
    assert lines[-1] == "8 tasks: 1 valid, 4 invalid, 1 no reference, 1 refused, 1 unreadable"
    assert len(lines) == 9  # one line per task, the bad ones included, then the summary
    by_task = {line.split()[1]: line for line in lines[:-1] if line.startswith(("valid", "INVALID"))}
    assert by_task["good"].startswith("valid")
    assert "nop passed" in by_task["nop-passes"]
    assert "oracle failed: score 0.00" in by_task["oracle-fails"]
    assert "oracle failed: the verifier wrote no reward file (exit code 0)" in by_task["no-reward"]
    assert "after the reference solution exited 3" in by_task["solve-exits"]
    [refused] = [line for line in lines if line.startswith("REFUSED")]
    assert refused.split()[1] == "needs-docker"
    assert "RUN/COPY steps" in refused and "use --sandbox docker" in refused
    assert [line.split()[2] for line in lines if line.startswith("NO REFERENCE")] == ["no-reference"]
    unreadable = [line for line in lines if line.startswith("UNREADABLE")]
    assert len(unreadable) == 1 and "unreadable/task.toml: field 'verifier.timeout_sec'" in unreadable[0]


@pytest.mark.slow
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


def test_a_bad_task_is_one_clear_line(tmp_path):
    broken = make_task(tmp_path, "broken", toml="[verifier]\ntimeout_sec = 'x'\n")
    result = _check(broken, tmp_path)
    assert result.returncode == 1
    first, summary = result.stdout.strip().splitlines()
    assert first.startswith("UNREADABLE") and "task.toml: field 'verifier.timeout_sec'" in first
    assert summary == "1 tasks: 0 valid, 1 unreadable"
    assert "Traceback" not in result.stderr


def test_a_missing_target_is_one_clear_error(tmp_path):
    result = _check(tmp_path / "nowhere", tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "neither a path nor a benchmark name" in result.stderr and "Traceback" not in result.stderr


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
    assert good.returncode == 0
    assert good.stdout.strip().splitlines()[-1] == "1 tasks: 1 well-formed"
    make_task(suite, "b", toml="[agent]\ntimeout_sec = 0\n")
    bad = subprocess.run(
        [sys.executable, "-m", "res_repro", "validate", str(suite)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    lines = bad.stdout.strip().splitlines()
    assert lines[0].split()[:2] == ["ok", "a"]
    assert "task.toml: field 'agent.timeout_sec'" in lines[1]
    assert lines[-1] == "2 tasks: 1 well-formed, 1 unreadable"


@pytest.mark.slow  # end to end: a CLI run or a scaled lineage
def test_check_reads_a_claw_eval_live_checkout_from_the_option_or_the_variable(tmp_path):
    fixture = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
    checkout = shutil.copytree(fixture, tmp_path / "Claw-Eval-Live")
    command = [
        sys.executable,
        "-m",
        "res_repro",
        "check",
        "claw_eval_live",
        "--cache-dir",
        str(tmp_path / "c"),
    ]
    by_option = subprocess.run([*command, "--checkout", str(checkout)], capture_output=True, text=True)
    assert by_option.returncode == 0, by_option.stdout + by_option.stderr
    assert by_option.stdout.strip().splitlines()[-1] == "2 tasks: 2 valid"
    env = {**os.environ, "CLAW_EVAL_LIVE_DIR": str(checkout)}
    by_variable = subprocess.run(command, capture_output=True, text=True, env=env)
    assert by_variable.stdout == by_option.stdout
    nowhere = subprocess.run(command, capture_output=True, text=True, env={**env, "CLAW_EVAL_LIVE_DIR": ""})
    assert nowhere.returncode == 2 and "--checkout DIR" in nowhere.stderr


def test_a_copied_claw_eval_live_task_validates_with_its_checkout_named(tmp_path):
    fixture = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
    copy = shutil.copytree(fixture / "tasks" / "CTB_T01_vpn_ticket_close", tmp_path / "elsewhere" / "t01")
    command = [sys.executable, "-m", "res_repro", "validate", str(copy)]
    alone = subprocess.run(command, capture_output=True, text=True)
    assert alone.returncode == 1 and "outside a checkout" in alone.stdout
    named = subprocess.run([*command, "--checkout", str(fixture)], capture_output=True, text=True)
    assert named.returncode == 0 and named.stdout.strip().splitlines()[-1] == "1 tasks: 1 well-formed"


def test_help_lists_every_subcommand_and_the_config_groups_without_internal_entries():
    shown = subprocess.run([sys.executable, "-m", "res_repro", "--help"], capture_output=True, text=True)
    assert shown.returncode == 0
    for name in (
        "check",
        "validate",
        "view",
        "export-sft",
        "export-harbor",
        "lineages",
        "operators",
        "clean-stale",
    ):
        assert f"  {name} " in shown.stdout
    groups = dict(line.split(maxsplit=1) for line in shown.stdout.split("(GROUP=OPTION):\n")[1].splitlines())
    assert {"benchmark", "experiment", "models", "sandbox", "scaling"} <= groups.keys()
    options = {group: line.split(", ") for group, line in groups.items()}
    assert "table1" in options["experiment"] and "terminal_bundled" in options["benchmark"]
    assert not [o for found in options.values() for o in found if o.startswith(("base_", "_"))]


def test_picking_an_internal_schema_entry_is_one_line():
    run = subprocess.run(
        [sys.executable, "-m", "res_repro", "benchmark=base_agentce"], capture_output=True, text=True
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [run.stderr.strip()] and "one of agentce" in run.stderr


@pytest.mark.slow
def test_a_run_missing_a_users_path_names_the_setting(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "res_repro", "benchmark=harbor_dataset", f"paths.root_dir={tmp_path}"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "benchmark.path" in run.stderr and "???" not in run.stderr and "Traceback" not in run.stderr


def test_a_file_name_that_is_not_utf8_is_hashed_and_checked(tmp_path):
    suite = tmp_path / "suite"
    task = make_task(suite, "odd-name")
    workspace = task / "environment" / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    (Path(os.fsdecode(os.fsencode(workspace) + b"/latin1-\xe9t\xe9.txt"))).write_bytes(b"x")
    done = _check(suite, tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "1 tasks: 1 valid"


def test_an_infrastructure_error_is_no_verdict_on_the_task() -> None:
    from episode_records import episode_record

    from res_repro.evaluation.check import TaskValidity, summary_line

    down = episode_record("oracle", "sandbox_error", error="cannot reach the Docker engine")
    verdict = TaskValidity("t", oracle=down, nop=episode_record("nop", "sandbox_error", error=down.error))
    fine = TaskValidity(
        "u", oracle=episode_record("oracle"), nop=episode_record("nop", score=0.0, passed=False)
    )
    assert verdict.line().startswith("ERROR ") and "cannot reach the Docker engine" in verdict.line()
    assert summary_line([verdict, fine]) == "2 tasks: 1 valid, 1 not checked (infrastructure error)"


def test_check_without_a_docker_engine_says_so_once_and_checks_nothing(tmp_path, monkeypatch, capsys) -> None:
    from cli_runs import run_in_process
    from task_factory import make_task

    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    task = make_task(tmp_path / "tasks")
    status, out, err = run_in_process(
        ["check", str(task), "--sandbox", "docker", "--cache-dir", str(tmp_path / "episodes")], capsys
    )
    assert status == 1 and "INVALID" not in out and not (tmp_path / "episodes").exists()
    assert err.strip() == (
        f"error: cannot reach the Docker engine (no socket at unix://{tmp_path}/no-engine.sock); "
        "start dockerd or set DOCKER_HOST; no task was checked"
    )
