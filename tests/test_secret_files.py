"""A key passed in the config reaches no file the harness or Ray writes, and no file anyone may read:
Hydra's copies of the config are redacted and private, a local Ray instance keeps its logs in a private
folder and gets ``runtime_env.env_vars`` through its environment, never through its logged runtime env.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from cli_runs import ONE_LEVEL, table1_command
from omegaconf import OmegaConf
from secret_scan import KEY_IN_CONFIG, SECRET, files_below, holding_the_secret

from res_repro.pipelines.reporting import HYDRA_COPIES, redact_config_copies
from res_repro.tracking.params import REDACTED

KEY_VAR = "RES_FAKE_API_KEY"


def world_readable(path: Path) -> bool:
    """Whether others may read ``path``: it has the read bit for others, and so does every folder above
    it the search bit (checked up to the file system root)."""
    if not path.stat().st_mode & stat.S_IROTH:
        return False
    return all(folder.stat().st_mode & stat.S_IXOTH for folder in path.parents)


def test_hydra_copies_of_the_config_lose_their_secrets_and_become_private(tmp_path: Path) -> None:
    hydra = tmp_path / ".hydra"
    hydra.mkdir()
    for name in HYDRA_COPIES:
        (hydra / name).write_text(f"- executor.runtime_env.env_vars.OPENAI_API_KEY={SECRET}\n")
        (hydra / name).chmod(0o644)
    (tmp_path / "multirun.yaml").write_text(f"K={SECRET}\n")
    cfg = OmegaConf.create({"executor": {"runtime_env": {"env_vars": {"K": SECRET}}}})
    redact_config_copies(cfg, tmp_path, tmp_path)
    assert (tmp_path / "multirun.yaml").read_text() == f"K={REDACTED}\n"
    for name in HYDRA_COPIES:
        assert (hydra / name).read_text() == f"- executor.runtime_env.env_vars.OPENAI_API_KEY={REDACTED}\n"
        assert stat.S_IMODE((hydra / name).stat().st_mode) == 0o600


@pytest.mark.slow
def test_a_local_ray_instance_logs_no_key_in_a_private_folder() -> None:
    ray = pytest.importorskip("ray")
    from res_repro.evaluation.ray_executor import RayExecutor

    if ray.is_initialized():
        ray.shutdown()
    executor = RayExecutor(workers=1, num_cpus=1, runtime_env={"env_vars": {KEY_VAR: SECRET}}).start({})
    temp = executor.temp_dir
    assert temp is not None
    try:
        assert stat.S_IMODE(temp.stat().st_mode) == 0o700
        worker_key = ray.remote(lambda: os.environ.get(KEY_VAR))  # a lambda travels by value
        assert ray.get(worker_key.remote()) == SECRET  # the workers still get the key
        assert KEY_VAR not in os.environ
        logs = files_below(temp)
        assert len(logs) > 5  # Ray's sessions and logs are there
        assert holding_the_secret(logs) == []
    finally:
        executor.close()
    assert not temp.exists()


@pytest.mark.slow
def test_a_run_with_a_key_in_its_config_and_environment_writes_it_nowhere(tmp_path: Path) -> None:
    oracle_run = ("benchmark=terminal_bundled", "benchmark.limit=1", *ONE_LEVEL, "agents=[oracle]")
    command = table1_command(tmp_path, *oracle_run, KEY_IN_CONFIG)
    env = {**os.environ, "OPENAI_API_KEY": SECRET, KEY_VAR: SECRET}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert result.returncode == 0, result.stderr
    written = files_below(tmp_path)
    assert any(p.parent.name == ".hydra" for p in written) and any(p.name == "mlflow.db" for p in written)
    assert holding_the_secret(written) == []
    for copy in (p for p in written if p.parent.name == ".hydra"):
        assert not world_readable(copy)


def test_an_instruction_linked_to_the_process_environment_is_refused_and_the_key_lands_nowhere(tmp_path):
    import sys

    from task_factory import make_task

    suite = tmp_path / "suite"
    task = make_task(suite, "leaky")
    (task / "instruction.md").unlink()
    (task / "instruction.md").symlink_to("/proc/self/environ")
    (task / "tests" / "notes.txt").symlink_to("/etc/hostname")
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    for command in (["validate", str(suite)], ["check", str(suite), "--cache-dir", str(tmp_path / "cache")]):
        run = subprocess.run(
            [sys.executable, "-m", "res_repro", *command],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )
        assert run.returncode == 1 and "Traceback" not in run.stderr
        assert "instruction.md" in run.stdout and "a link out of the task" in run.stdout
        assert SECRET not in run.stdout + run.stderr
    written = [p for p in files_below(tmp_path) if not p.is_symlink()]
    assert holding_the_secret(written) == []
