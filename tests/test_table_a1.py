"""Table A1: every protocol setting is read from the composed config at the key it names, beside the
paper's value; overriding a key changes the table."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra_config import compose_config
from omegaconf import OmegaConf

from res_repro.pipelines import run_pipeline
from res_repro.pipelines.settings_table import Setting, same, settings_table
from res_repro.pipelines.table_a1 import build_table_a1


def _cells(*overrides: str) -> dict[tuple[str, str], dict[str, str]]:
    table, _ = build_table_a1(compose_config("experiment=table_a1", *overrides), seeds=7)
    return {(row[0], row[1]): dict(zip(table.columns, row, strict=True)) for row in table.rows}


def test_every_config_setting_names_its_key_and_holds_its_value():
    cfg = compose_config("experiment=table_a1")
    cells = _cells()
    for (protocol, setting), row in cells.items():
        if (
            row["config"]
            and row["config"] != "benchmark"
            and setting not in {"success criterion", "target", "agents"}
        ):
            assert row["this run"].split()[0] == str(OmegaConf.select(cfg, row["config"])), (
                protocol,
                setting,
            )
    scaling = cells[("environment scaling", "model-turn limit")]
    assert (scaling["this run"], scaling["paper"], scaling["as in the paper"]) == ("60", "60", "yes")
    assert cells[("environment scaling", "target")]["this run"] == "explorer-standard (scripted)"
    assert cells[("model comparison", "task cohort")]["this run"] == "7 seeds (claw_bundled)"
    assert cells[("model comparison", "primary use")]["as in the paper"] == ""


@pytest.mark.parametrize(
    ("override", "protocol", "setting", "value"),
    [
        ("protocol.target_max_turns=40", "environment scaling", "model-turn limit", "40"),
        (
            "scaling.target_attempts=5",
            "environment scaling",
            "attempts per environment",
            "5 at evaluated nodes",
        ),
        ("scaling.stop_on=pass", "environment scaling", "success criterion", "native score >= 0.80"),
        ("protocol.evaluation_max_turns=30", "model comparison", "model-turn limit", "30"),
        ("metrics.threshold=0.9", "depth reevaluation", "success criterion", "native score >= 0.90"),
        ("agents=[oracle]", "model comparison", "agents", "oracle (scripted)"),
        ("models=sim", "environment scaling", "target", "sim explorer-standard"),
    ],
)
@pytest.mark.slow
def test_a_changed_config_value_changes_the_table(override, protocol, setting, value):
    before, after = _cells()[(protocol, setting)], _cells(override)[(protocol, setting)]
    assert after["this run"] == value != before["this run"]
    assert after["paper"] == before["paper"]
    if after["paper"] == before["this run"]:
        assert (before["as in the paper"], after["as in the paper"]) == ("yes", "no")


def test_settings_compare_numbers_as_numbers_and_skip_what_the_paper_omits():
    assert [same("0.8", "0.80"), same("60", "50"), same("Cosine", "cosine"), same("3", "")] == [
        "yes",
        "no",
        "yes",
        "",
    ]
    table = settings_table("t", "group", [Setting("g", "lr", "1e-05", "sft.train.learning_rate", "0.00001")])
    assert table.columns[0] == "group" and table.rows == [
        ["g", "lr", "1e-05", "sft.train.learning_rate", "0.00001", "yes"]
    ]


def test_table_a1_is_published_for_the_claw_suite(tmp_path: Path):
    cfg = compose_config(
        "experiment=table_a1",
        "tracking=none",
        "show_progress=false",
        "benchmark.limit=3",
        root=tmp_path,
        output_dir=tmp_path / "run",
    )
    table = run_pipeline(cfg)
    assert (
        (tmp_path / "run" / "table_a1.csv")
        .read_text()
        .splitlines()[0]
        .startswith("protocol,setting,this run")
    )
    assert any(row[1] == "task cohort" and row[2] == "3 seeds (claw_bundled)" for row in table.rows)
