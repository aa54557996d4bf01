"""`make table1`'s path end to end: lineages, episodes, a table beside the paper, files, MLflow runs."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import mlflow
import pytest
from cli_runs import ONE_LEVEL, table1_command

FAST = ("benchmark.limit=2", *ONE_LEVEL, "agents=[oracle,nop]")


def _run(
    tmp_path, *overrides: str, flags: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    command = table1_command(tmp_path, *FAST, *overrides, flags=flags)
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)


def _client(tmp_path) -> mlflow.tracking.MlflowClient:
    return mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")


@pytest.mark.slow
def test_table1_runs_end_to_end_and_reuses_everything(tmp_path):
    first = _run(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "| oracle | scripted | original | 2 | 100.00 |" in first.stdout
    assert "| oracle | scripted | +RES (by construction) | 2 | 100.00 |" in first.stdout
    assert "| nop | scripted | +RES | 2 | 0.00 |" in first.stdout
    assert "| DeepSeek-V4.1-Flash | model | original |  | not run |" in first.stdout
    assert "91.01" in first.stdout  # the paper column
    assert len(list((tmp_path / "runs" / "table1" / "runs").glob("*/table1.csv"))) == 1
    assert (
        len(list((tmp_path / ".cache" / "lineages").glob("*/*/manifest.json"))) == 4
    )  # 2 seeds x depth 0..1

    client = _client(tmp_path)
    [run] = client.search_runs([client.get_experiment_by_name("table1").experiment_id])
    assert run.info.status == "FINISHED"
    assert run.data.metrics["oracle.res.pass_at_1"] == 1.0
    assert run.data.metrics["oracle.res.pass_at_1.n"] == 2.0  # with its interval
    assert run.data.metrics["oracle.res.pass_at_1.ci_low"] < 1.0
    assert run.data.metrics["res.mean_depth"] == 1.0
    assert run.data.params["benchmark.limit"] == "2"
    assert "config_hash" in run.data.tags
    artifacts = {a.path for a in client.list_artifacts(run.info.run_id, "results")}
    assert {
        "results/table1.md",
        "results/table1.csv",
        "results/table1.tex",
        "results/episodes.jsonl",
        "results/lineages.jsonl",
    } <= artifacts
    view = {a.path for a in client.list_artifacts(run.info.run_id, "view")}
    assert {"view/index.html", "view/episodes", "view/seeds", "view/nodes", "view/groups"} <= view
    manifests = (
        (next((tmp_path / "runs" / "table1" / "runs").glob("*/lineages.jsonl"))).read_text().splitlines()
    )
    assert len(manifests) == 4 and all('"content_hash"' in line for line in manifests)

    second = _run(tmp_path)
    assert second.returncode == 0, second.stderr
    assert "8 episodes: 8 reused from the store, 0 to run" in second.stdout + second.stderr


def _children(tmp_path, swept: str) -> list[str]:
    """Per multirun (parent run), the values of ``swept`` over its child runs."""
    client = _client(tmp_path)
    runs = client.search_runs([client.get_experiment_by_name("table1").experiment_id])
    parents = [r.info.run_id for r in runs if r.data.tags.get("multirun") == "parent"]
    return [
        sorted(r.data.params[swept] for r in runs if r.data.tags.get("mlflow.parentRunId") == parent)
        for parent in parents
    ]


@pytest.mark.slow
def test_depth_cap_and_threshold_sweeps_are_child_runs_that_reuse_the_cache(tmp_path):
    caps = _run(tmp_path, "scaling.depth_cap=1,2", flags=("--multirun",))
    assert caps.returncode == 0, caps.stdout + caps.stderr
    assert ["1", "2"] in _children(tmp_path, "scaling.depth_cap")
    client = _client(tmp_path)
    runs = client.search_runs([client.get_experiment_by_name("table1").experiment_id])
    [parent] = [r for r in runs if r.data.tags.get("multirun") == "parent"]
    assert parent.info.status == "FINISHED"
    assert parent.data.params["scaling.depth_cap"] == "1,2"
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id]
    assert sorted(r.info.run_name for r in children) == ["scaling.depth_cap=1", "scaling.depth_cap=2"]
    assert {r.info.status for r in children} == {"FINISHED"}
    assert "sweep_summary.csv" in {a.path for a in client.list_artifacts(parent.info.run_id)}

    thresholds = _run(tmp_path, "scaling.depth_cap=2", "metrics.threshold=0.7,0.9", flags=("--multirun",))
    assert thresholds.returncode == 0, thresholds.stdout + thresholds.stderr
    assert ["0.7", "0.9"] in _children(tmp_path, "metrics.threshold")
    # the cap-2 job built every lineage node and ran every episode; the threshold sweep recomputes none
    log = thresholds.stdout + thresholds.stderr
    assert log.count("8 episodes: 8 reused from the store, 0 to run") == 2
    manifests = list((tmp_path / ".cache" / "lineages").glob("*/*/manifest.json"))
    assert len(manifests) == 6  # 2 seeds x depth 0..2, shared by every job


@pytest.mark.slow
def test_a_missing_key_stops_before_any_work(tmp_path):
    keyless = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    result = _run(tmp_path, "models=api", "agents=[deepseek_v4_1_flash,gpt_5_6_sol]", env=keyless)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1] == (
        "error: agents: API keys missing from the environment: DEEPSEEK_API_KEY (deepseek_v4_1_flash), "
        "OPENAI_API_KEY (gpt_5_6_sol)"
    )  # every missing key at once
    assert not (tmp_path / ".cache").exists()


@pytest.mark.slow
def test_table1_scales_and_evaluates_a_claw_eval_live_checkout(tmp_path):
    fixture = Path(__file__).parent / "fixtures" / "claw_eval_live" / "checkout"
    checkout = shutil.copytree(fixture, tmp_path / "Claw-Eval-Live")
    result = _run(
        tmp_path,
        "benchmark=claw_eval_live",
        f"benchmark.checkout={checkout}",
        "scaling.depth_cap=2",
        "agents=[oracle,nop,explorer-basic]",
        "tracking=none",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "| oracle | scripted | +RES (by construction) | 2 | 100.00 |" in result.stdout
    assert "| explorer-basic | scripted | original | 2 | 100.00 |" in result.stdout
    assert "| explorer-basic | scripted | +RES (by construction) | 2 | 0.00 |" in result.stdout
    manifests = list((tmp_path / ".cache" / "lineages").glob("*/*/manifest.json"))
    assert len(manifests) == 6  # 2 seeds x depth 0..2: every Claw-Eval-Live seed scaled twice


@pytest.mark.slow
def test_table1_runs_the_paper_protocol_offline_with_simulated_models(tmp_path):
    """``models=sim``: the paper's protocol (model target, LLM proposer, 60-turn target attempts, 50-turn
    evaluation) through the real SDK path; the printout names no deviation but the simulated models."""
    command = table1_command(tmp_path, "models=sim", "benchmark=claw_bundled", "benchmark.limit=2")
    first = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "deviations from the paper: simulated models\n" in first.stdout
    assert "| sim explorer-basic | simulated | original | 2 |" in first.stdout
    target_row = "| sim explorer-standard | simulated, scaling target | +RES (by construction) | 2 |"
    assert target_row in first.stdout
    assert "Simulated models (sim_explorer_basic, " in first.stdout and "Scripted agents" not in first.stdout
    settings = (
        "Made under: success threshold 0.8 (metrics.threshold), depth cap 10 (scaling.depth_cap), seed 0"
    )
    assert f"- {settings}; deviations from the paper's protocol: simulated models." in first.stdout
    manifests = list((tmp_path / ".cache" / "lineages").glob("*/*/manifest.json"))
    assert len(manifests) > 2  # each seed grew at least one child through the simulated proposer
    second = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "12 episodes: 12 reused from the store, 0 to run" in second.stdout + second.stderr
