"""API keys never reach MLflow, artifacts, logs, trajectories, caches or exported datasets."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cli_runs import ONE_LEVEL, table1_command
from fake_providers import OPENAI, FakeModelServer, Reply
from secret_scan import KEY_IN_CONFIG, SECRET, files_below, holding_the_secret


@pytest.mark.slow
def test_no_output_of_a_run_with_keys_contains_the_key(tmp_path):
    with FakeModelServer(OPENAI, after=Reply("I am done.")) as server:
        command = table1_command(
            tmp_path,
            "benchmark=claw_bundled",
            "benchmark.limit=2",
            *ONE_LEVEL,
            "+model@models.fake=gpt_5_6_sol",
            f"models.fake.base_url={server.base_url}",
            "models.fake.api_key_env=FAKE_API_KEY",
            "agents=[fake]",
        )
        env = {**os.environ, "FAKE_API_KEY": SECRET, "OPENAI_API_KEY": SECRET}
        result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
        assert result.returncode == 0, result.stderr
        assert server.requests and all(SECRET in r.headers.get("authorization", "") for r in server.requests)
    episodes = next(tmp_path.glob("runs/table1/runs/*/episodes.jsonl"))
    exported = tmp_path / "sft.jsonl"
    subprocess.run(
        [sys.executable, "-m", "res_repro", "export-sft", str(episodes), str(exported), "--all"],
        check=True,
        env=env,
    )
    assert exported.stat().st_size > 0
    scanned = files_below(tmp_path)
    assert len(scanned) > 20
    assert holding_the_secret(scanned) == []
    assert SECRET not in result.stdout + result.stderr


@pytest.mark.slow
def test_a_secret_given_in_the_config_is_redacted_in_mlflow(tmp_path):
    command = table1_command(tmp_path, "benchmark.limit=1", *ONE_LEVEL, "agents=[oracle]", KEY_IN_CONFIG)
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    tracked = [tmp_path / "mlflow.db", *files_below(tmp_path / "mlartifacts")]
    assert any(p.name == "config.yaml" for p in tracked)  # the .hydra folder was logged, scrubbed
    assert holding_the_secret(tracked) == []
