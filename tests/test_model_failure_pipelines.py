"""Every pipeline that evaluates agents ends with one line naming a model whose every episode ended in an
infrastructure error, and keeps that model's rows, marked "failed: N infrastructure errors", beside the
rows of the agents that ran (Table 1's own test is ``test_model_failure.py``)."""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from episode_records import episode_record
from fake_providers import OPENAI, SERVER_ERROR, FakeModelServer
from hydra_config import compose_config, metric_settings

from res_repro.app import hydra_main
from res_repro.pipelines.cells import failed_text
from res_repro.pipelines.table2 import BASE, LABELS, WITH_RES, WITHOUT_RES, build_table2, checkpoint_failures
from res_repro.sft.collect import ORIGINAL

DOWN = "down"
TINY = [
    "benchmark=claw_bundled",
    "benchmark.limit=1",
    "ablation.tasks=1",
    "ablation.min_planned_depth=1",
    "scaling.depth_cap=1",
    "sweep.depth_caps=[0,1]",
    "tracking=none",
    "show_progress=false",
    "sandbox.max_infra_retries=0",
    "agent_loop.retry.max_attempts=1",
    f"+model@models.{DOWN}=gpt_5_6_sol",
    f"models.{DOWN}.api_key_env=null",
    f"models.{DOWN}.timeout_s=5",
    f"agents=[explorer-standard,{DOWN}]",
]
# (pipeline, its table file, how many rows the failed model keeps, which cell says it failed)
PIPELINES = [
    ("res_depth", "res_depth", 4, "down pass (%)"),
    ("table3a", "table3a", 2, "Pass@1 (%)"),
    ("table3b", "table3b", 3, "Pass@1 (%)"),
    ("table_a5", "table_a5", 1, "Saved RES"),
    ("table_a6", "table_a6", 6, "turns"),
    ("table_a7", "table_a7", 6, "tau=0.70"),
    ("table3c", "table3c", 2, "Pass@1 (%)"),
    ("table_a4", "table_a4", None, "Pass@1 count"),
    pytest.param("figures", None, 0, None, marks=pytest.mark.slow),  # draws every figure: 17 s
]


@pytest.fixture(scope="module")
def server() -> Iterator[FakeModelServer]:
    """One model endpoint answering every request with HTTP 500."""
    with FakeModelServer(OPENAI, after=SERVER_ERROR) as served:
        yield served


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """One cache shared by the pipelines, as `make tables` shares it."""
    return tmp_path_factory.mktemp("failed-model")


def _rows(path: Path) -> list[dict[str, str]]:
    """A CSV table's rows by column name."""
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _failed(cell: str) -> bool:
    """Whether a cell says its row failed, with a positive count of errors."""
    match = re.fullmatch(r"failed: (\d+) infrastructure errors", cell)
    return bool(match) and int(match.group(1)) > 0


@pytest.mark.slow
@pytest.mark.parametrize(("pipeline", "table", "kept", "marked"), PIPELINES)
def test_a_failed_model_ends_the_run_and_keeps_its_rows(
    capsys: pytest.CaptureFixture[str],
    server: FakeModelServer,
    root: Path,
    pipeline: str,
    table: str | None,
    kept: int | None,
    marked: str | None,
) -> None:
    out = root / "runs" / pipeline
    cfg = compose_config(
        f"experiment={pipeline}",
        *TINY,
        f"models.{DOWN}.base_url={server.base_url}",
        root=root,
        output_dir=out,
    )
    with pytest.raises(SystemExit) as exit_:
        hydra_main(cfg)
    assert exit_.value.code == 1
    errors = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(errors) == 1 and errors[0].startswith(f"error: {DOWN}: all "), errors
    assert "episodes ended in infrastructure errors" in errors[0] and "explorer" not in errors[0]
    if table is None:  # the figures' index has no agent rows; the run still fails
        return
    rows = _rows(out / f"{table}.csv")
    if pipeline == "res_depth":  # conditions are rows, agents columns
        assert len(rows) == kept and all(_failed(row[marked]) for row in rows)
        assert all(row["explorer-standard pass (%)"].replace(".", "").isdigit() for row in rows)
        return
    first = next(iter(rows[0]))
    mine = [row for row in rows if DOWN in row[first]]
    assert mine and (kept is None or len(mine) == kept)
    assert all(_failed(row[marked]) for row in mine)
    assert any("explorer-standard" in row[first] for row in rows)  # the rest of the run stands


def test_table2_marks_the_served_checkpoint_whose_every_episode_failed() -> None:
    # the evaluation rows from records: a served checkpoint whose every request failed, one that answered
    keys = {BASE: "served-base", WITH_RES: "served-res"}
    agents = {
        key: SimpleNamespace(name=key, scripted=False, seeded=True, fixed_on_scaled=None)
        for key in keys.values()
    }
    evaluated = [episode_record("served-base", "provider_error")] * 3 + [
        episode_record("served-res", "answered")
    ] * 3
    failures = checkpoint_failures(keys, agents, evaluated)
    assert failures == {BASE: 3}
    table, _ = build_table2(
        model="tiny",
        summaries={},
        training={},
        evaluation={WITH_RES: {ORIGINAL: evaluated[3:]}},
        benchmark="claw_bundled",
        settings=metric_settings(n_bootstrap=200),
        evaluated_as="served checkpoints",
        failures=failures,
    )
    value = table.columns.index("Pass@1 (%)")
    rows = {row[1]: row for row in table.rows if row[0] == "tiny"}
    assert rows[LABELS[BASE]][value] == failed_text(3)
    assert rows[LABELS[WITHOUT_RES]][value] == "not run"  # no checkpoint served: nothing failed
    assert rows[LABELS[WITH_RES]][value] == "100.00"
    on_res = table.columns.index("Pass@1 on RES (%)")
    assert rows[LABELS[BASE]][on_res] == failed_text(3)
    assert rows[LABELS[WITH_RES]][on_res] == "not run"  # served, but not evaluated on RES here
