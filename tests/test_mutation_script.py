"""scripts/mutation.py scores a module only from a mutation run that completed, and says in one line
which module failed otherwise."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

MODULE = "res_repro/core.py"


def _script():
    path = Path(__file__).resolve().parents[1] / "scripts" / "mutation.py"
    spec = importlib.util.spec_from_file_location("mutation_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def mutation(tmp_path, monkeypatch):
    """The script with its configuration in ``tmp_path`` and mutmut replaced: ``fake.exit`` is its exit
    code, ``fake.codes`` the exit code of each mutant it records, ``fake.output`` what it prints."""
    script = _script()
    (tmp_path / "modules.toml").write_text(
        f'min_score = 50.0\n[modules]\n"{MODULE}" = ["tests/test_core.py"]\n'
    )
    (tmp_path / "equivalent.toml").write_text('[equivalent]\n"res_repro.core.x_f__mutmut_4" = "why"\n')
    monkeypatch.setattr(script, "CONFIG", tmp_path / "modules.toml")
    monkeypatch.setattr(script, "EQUIVALENT", tmp_path / "equivalent.toml")
    monkeypatch.setattr(script, "SCRATCH", tmp_path / "scratch")
    fake = SimpleNamespace(exit=0, codes={}, output="Running mutation testing\r⠋ 1/1\n", commands=[])

    def run(command, cwd, stdout, **kwargs):
        fake.commands.append(command)
        stdout.write(fake.output)
        meta = Path(cwd) / "mutants" / f"{MODULE}.meta"
        meta.parent.mkdir(parents=True)
        meta.write_text(json.dumps({"exit_code_by_key": fake.codes}))
        return subprocess.CompletedProcess(command, fake.exit)

    monkeypatch.setattr(script.subprocess, "run", run)
    return SimpleNamespace(script=script, fake=fake, scratch=tmp_path / "scratch")


def test_a_complete_run_is_scored_without_its_equivalent_mutants(mutation, capsys):
    mutation.fake.codes = {
        f"res_repro.core.x_f__mutmut_{i}": code for i, code in enumerate([1, 0, 33, 0, -24], 1)
    }
    assert mutation.script.main([]) == 0
    out = capsys.readouterr().out
    assert f"{MODULE}: 50.0% of 4 mutants killed, 2 survived" in out
    assert "  survived: res_repro.core.x_f__mutmut_2\n  survived: res_repro.core.x_f__mutmut_3\n" in out
    assert mutation.fake.commands == [[sys.executable, "-m", "mutmut", "run", "--max-children", "1"]]
    settings = (mutation.scratch / "res_repro.core" / "pyproject.toml").read_text()
    assert 'process_isolation = "forkserver"' in settings
    assert f'only_mutate = ["{MODULE}"]' in settings


def test_a_score_under_the_minimum_fails(mutation, capsys):
    mutation.fake.codes = {"res_repro.core.x_f__mutmut_1": 1, "res_repro.core.x_f__mutmut_2": 0}
    mutation.fake.codes["res_repro.core.x_f__mutmut_3"] = 0
    assert mutation.script.main([]) == 1
    assert f"under 50.0%: {MODULE}" in capsys.readouterr().out


def test_a_failing_mutmut_run_is_one_line_naming_the_module_and_no_score(mutation, capsys):
    mutation.fake.exit = 1
    mutation.fake.output = (
        "Running clean tests\r⠋ Running clean tests\nFAILED tests/test_core.py\nFailed to run clean test\n"
    )
    mutation.fake.codes = {"res_repro.core.x_f__mutmut_1": 1}  # what an earlier run left must not count
    assert mutation.script.main([]) == 1
    captured = capsys.readouterr()
    log = mutation.scratch / "res_repro.core" / "mutmut.log"
    assert captured.err == (
        f"{MODULE}: no score, its mutation run did not complete: "
        f"mutmut exited 1: Failed to run clean test (output in {log})\n"
    )
    assert "killed" not in captured.out
    assert f"not scored (run failed): {MODULE}" in captured.out


def test_mutants_left_without_a_verdict_leave_the_module_unscored(mutation, capsys):
    mutation.fake.codes = {"res_repro.core.x_f__mutmut_1": 1, "res_repro.core.x_f__mutmut_2": None}
    mutation.fake.codes["res_repro.core.x_f__mutmut_3"] = 34
    assert mutation.script.main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        f"{MODULE}: no score, its mutation run did not complete: 2 of 3 mutants have no verdict, "
        "e.g. res_repro.core.x_f__mutmut_2 (exit code None;"
    )
    assert err.count("\n") == 1


def test_no_recorded_mutant_is_an_error(mutation, capsys):
    assert mutation.script.main([]) == 1
    assert "mutmut recorded no mutants" in capsys.readouterr().err


def test_an_unknown_module_is_named(mutation):
    with pytest.raises(SystemExit, match=r"no module \['res_repro/nothing.py'\]"):
        mutation.script.main(["res_repro/nothing.py"])
