"""Table 2 end to end on tiny slices: collection at equal counts, the tiny model trained per condition,
checkpoints evaluated through an OpenAI-compatible server (one named by a models entry, or the run's own
loopback checkpoint server on every bundled suite), files and an MLflow run."""

from __future__ import annotations

import json
from pathlib import Path

import mlflow
import pytest
from fake_providers import OPENAI, FakeModelServer, Reply
from hydra_config import compose_config
from omegaconf import DictConfig

from res_repro.errors import UserInputError
from res_repro.pipelines import run_pipeline

TINY = (
    "benchmark.limit=2",
    "scaling.depth_cap=2",
    "scaling.target=null",
    "show_progress=false",
    "sft.train.max_steps=4",
)


def _config(root: Path, *overrides: str) -> DictConfig:
    return compose_config("experiment=table2", *TINY, *overrides, root=root, output_dir=root / "run")


def _rows(table) -> dict[tuple[str, str], dict[str, str]]:
    return {(row[0], row[1]): dict(zip(table.columns, row, strict=True)) for row in table.rows}


@pytest.mark.slow
def test_table2_end_to_end_with_equal_counts_and_a_served_checkpoint(tmp_path):
    with FakeModelServer(OPENAI, after=Reply(text="I could not finish.")) as server:
        served = (  # a models entry pointing at the server, like those of conf/models/local_qwen.yaml
            "+model@models.served=qwen3_5_4b",
            "models.served.name='served checkpoint'",
            "models.served.model=sft-with-res",
            f"models.served.base_url={server.base_url}",
        )
        cfg = _config(tmp_path, "sft.evaluation.local=false", "sft.evaluation.sft_with_res=served", *served)
        table = run_pipeline(cfg)
        assert len(server.requests) == 4  # one attempt per seed task, original and RES environment

    rows = _rows(table)
    tiny = "tiny (random init)"
    without, with_res = rows[(tiny, "SFT without RES")], rows[(tiny, "SFT with RES")]
    assert without["trajectories (pool)"] == "2 (2)"
    assert with_res["trajectories (pool)"].startswith("2 (")  # RES pools are larger, downsampled to 2
    assert with_res["teachers"] == "explorer-expert (scripted) x2"
    assert without["train steps"] == with_res["train steps"] == "4"
    assert float(with_res["loss last"]) < float(with_res["loss first"])
    assert rows[(tiny, "base")]["Pass@1 (%)"] == "not run"
    assert without["Pass@1 (%)"] == "not run"
    assert with_res["Pass@1 (%)"] == with_res["Pass@1 on RES (%)"] == "0.00"  # answered without acting
    assert with_res["evaluation"] == "tiny model, scripted teachers" and without["evaluation"] == ""
    assert rows[("Qwen3.5-4B", "SFT with RES")]["Pass@1 (%)"] == "not run"
    paper_row = next(row for row in table.rows if row[:2] == ["Qwen3.5-4B", "SFT with RES"])
    assert paper_row[table.columns.index("Pass@1 (%)") + 2] == "61.9"  # its "paper" column
    assert any("scripted" in note for note in table.notes)

    run = tmp_path / "run"
    lines = {c: (run / f"trajectories_{c}.jsonl").read_text().splitlines() for c in ("original", "res")}
    assert len(lines["original"]) == len(lines["res"]) == 2
    assert (run / "checkpoints" / "sft_with_res" / "model.safetensors").is_file()

    client = mlflow.tracking.MlflowClient(tracking_uri=f"sqlite:///{tmp_path / 'mlflow.db'}")
    [logged] = client.search_runs([client.get_experiment_by_name("table2").experiment_id])
    metrics = logged.data.metrics
    assert metrics["sft_with_res.trajectories"] == metrics["sft_without_res.trajectories"] == 2
    assert metrics["sft_with_res.pass_at_1"] == metrics["sft_with_res.res.pass_at_1"] == 0.0
    artifacts = {a.path for a in client.list_artifacts(logged.info.run_id, "results")}
    assert {
        "results/table2.md",
        "results/trajectories_original.jsonl",
        "results/trajectories_res.jsonl",
        "results/train_log.json",
    } <= artifacts


@pytest.mark.slow
@pytest.mark.parametrize(
    ("suite", "metric"),
    [("claw_bundled", "Pass@1"), ("workspace_bundled", "TCR@80"), ("terminal_bundled", "Pass@1")],
)
def test_table2_evaluates_its_own_checkpoints_on_every_bundled_suite(tmp_path, suite, metric):
    overrides = ("benchmark.limit=1", "sft.train.max_length=1536", "sft.train.max_steps=2")
    table = run_pipeline(_config(tmp_path, f"benchmark={suite}", "tracking=none", *overrides))
    rows = _rows(table)
    assert table.title.startswith(f"Table 2 ({suite})")
    for condition in ("base", "SFT without RES", "SFT with RES"):
        row = rows[("tiny (random init)", condition)]
        assert row["evaluation"] == "tiny model, scripted teachers"
        assert row[f"{metric} (%)"] != "not run" and row[f"{metric} on RES (%)"] != "not run"
    assert rows[("Qwen3.5-4B", "SFT with RES")][f"{metric} (%)"] == "not run"
    served = [r for r in _episodes(tmp_path / "run") if r["agent"].startswith("served_")]
    assert len(served) == 3 * 2  # three checkpoints, each on the original and the RES environment
    assert {r["environment"] for r in served} == {"original", "res"}
    assert any(r["turns"] >= 1 for r in served)  # the tiny model was asked and answered, not refused


def _episodes(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("sft.collection.include_scripted=false", "sft.collection.include_scripted: teachers"),
        ("sft.collection.teachers=[nobody]", "sft.collection.teachers: unknown agent 'nobody'"),
        ("sft.collection.teachers=[]", "sft.collection.teachers: expected at least one"),
        ("sft.evaluation.base=nowhere", "sft.evaluation.base: expected null with sft.evaluation.local"),
        (
            "sft.evaluation.local=false sft.evaluation.base=nowhere",
            "sft.evaluation.base: expected a key of models",
        ),
        ("sft=qwen3_5_4b", "sft.model_path: expected a local checkpoint directory"),
    ],
)
def test_bad_input_stops_before_any_work(tmp_path, override, message):
    with pytest.raises(UserInputError) as caught:
        run_pipeline(_config(tmp_path, "tracking=none", *override.split()))
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)
    assert not (tmp_path / ".cache").exists()
