"""Every Table 3, appendix and figure experiment, run end to end on a tiny Claw-style slice.

All experiments share one cache (lineages and episodes), as `make tables` does: after the first
ablation table, the other views of the same records run no episode and build no lineage node.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra_config import compose_config
from omegaconf import DictConfig, OmegaConf

from res_repro.pipelines import PIPELINES, run_pipeline
from res_repro.pipelines.budgets import continuing, historical_mean, historical_values, reach
from res_repro.reporting.tables import Table

EXPERIMENTS = ["table3a", "table3b", "table_a5", "table_a6", "table_a7", "table3c", "table_a2", "table_a4"]
TINY = [
    "benchmark.limit=4",
    "ablation.tasks=2",
    "ablation.min_planned_depth=1",
    "scaling.depth_cap=2",
    "tracking=none",
    "show_progress=false",
]
AGENTS = 3  # the explorer tiers of conf/experiment/_claw.yaml


def test_historical_mean_matches_the_papers_definition_by_hand():
    # Seed A stopped at s=1 (scores 1.0, 0.0); seed B at s=3 (1, 1, 0, 0).
    chains = [[1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]
    # Budget 2: A's states are E0, E1, E1 -> (1 + 0 + 0) / 3; B's are E0, E1, E2 -> (1 + 1 + 0) / 3.
    assert historical_mean(chains[0], 2) == pytest.approx(1 / 3)
    assert historical_values(chains, 2) == pytest.approx([1 / 3, 2 / 3])
    # Budget 3: A carries E1 forward twice -> 1/4; B -> 2/4; the table averages seeds equally.
    assert sum(historical_values(chains, 3)) / 2 == pytest.approx(0.375)
    assert historical_values(chains, 0) == [1.0, 1.0]
    assert [reach([1, 3], d) for d in range(4)] == [2, 2, 1, 1]
    assert [continuing([1, 3], d) for d in range(4)] == [2, 1, 1, 0]


def _config(root: Path, experiment: str, *overrides: str) -> DictConfig:
    return compose_config(
        f"experiment={experiment}", *TINY, *overrides, root=root, output_dir=root / "runs" / experiment
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, dict[str, Table], dict[str, int]]:
    """Run every experiment once over one shared cache; count stored episodes after each."""
    root = tmp_path_factory.mktemp("experiments")
    tables: dict[str, Table] = {}
    episodes: dict[str, int] = {}
    for experiment in [*EXPERIMENTS, "figures"]:
        tables[experiment] = run_pipeline(_config(root, experiment))
        episodes[experiment] = sum(1 for p in (root / ".cache" / "episodes").rglob("*") if p.is_file())
    return root, tables, episodes


def _rows(table: Table, column: str, value: str) -> list[dict[str, str]]:
    return [
        dict(zip(table.columns, row, strict=True))
        for row in table.rows
        if row[table.columns.index(column)] == value
    ]


def _column(table: Table, name: str) -> list[str]:
    return [row[table.columns.index(name)] for row in table.rows]


@pytest.mark.slow
@pytest.mark.parametrize("experiment", [*EXPERIMENTS, "figures"])
def test_every_experiment_is_a_registered_pipeline(experiment):
    cfg = _config(Path("/tmp/unused"), experiment)
    assert cfg.task_name == experiment and experiment in PIPELINES
    assert OmegaConf.to_container(cfg.ablation.rebuilds)  # the three matched-budget rebuilds compose


@pytest.mark.slow
def test_removing_dependencies_never_lowers_the_targets_pass_rate(runs):
    _, tables, _ = runs
    table = tables["table3a"]
    assert len(table.rows) == 2 * AGENTS
    target = {r["variant"]: r for r in _rows(table, "agent", "explorer-standard (scripted, scaling target)")}
    assert float(target["w/o dependencies"]["Pass@1 (%)"]) >= float(target["Saved RES"]["Pass@1 (%)"])
    assert target["w/o dependencies"]["paper Pass@1"] == "100.00"
    assert "scripted" in table.notes[0]
    definition = next(note for note in table.notes if note.startswith("w/o dependencies: "))
    assert "every composed change" in definition and "the earlier changes it built on" in definition
    assert any(note.startswith("Over the 2 tasks, ") and "Per task: " in note for note in table.notes)


@pytest.mark.slow
def test_rebuilds_mark_their_components(runs):
    _, tables, _ = runs
    table = tables["table3b"]
    assert len(table.rows) == 3 * AGENTS
    assert set(_column(table, "variant")) == {"Rebuilt RES", "w/o inheritance", "Basic library"}
    for row in _rows(table, "variant", "w/o inheritance"):
        assert row["inheritance"] == "×" and row["library"] == "full"
    for row in _rows(table, "variant", "Basic library"):
        assert row["library"] == "basic (6 operators)"


@pytest.mark.slow
def test_other_views_of_the_ablation_records_run_no_episode(runs):
    _, _, episodes = runs
    assert episodes["table3a"] > 0
    for view in ("table3b", "table_a5", "table_a6", "table_a7"):
        assert episodes[view] == episodes["table3a"], view


@pytest.mark.slow
def test_depth_caps_cover_the_scaled_depths_and_deepen(runs):
    _, tables, _ = runs
    table = tables["table3c"]
    assert len(table.rows) == 3 * AGENTS  # caps 0, 1, 2 under scaling.depth_cap=2
    rows = _rows(table, "agent", "explorer-standard (scripted, scaling target)")
    assert [r["depth cap"] for r in rows] == ["0", "1", "2"]
    depths = [float(r["mean depth"]) for r in rows]
    assert depths[0] == 0 and depths == sorted(depths)


@pytest.mark.slow
def test_proposer_cost_counts_every_child(runs):
    _, tables, _ = runs
    table = tables["table_a2"]
    assert _column(table, "quantity")[0] == "Outer proposer executions"
    children = int(table.rows[0][1])
    assert children > 0 and float(table.rows[0][2]) >= 1.0
    assert table.rows[1][2] == "n/a (programmatic)"


@pytest.mark.slow
def test_depth_budgets_shrink_and_hold_the_papers_values(runs):
    _, tables, _ = runs
    table = tables["table_a4"]
    reaches = [int(v) for v in _column(table, "reach")]
    assert reaches[0] == 4 and reaches == sorted(reaches, reverse=True)
    assert _column(table, "paper score")[0] == "87.84"
    assert set(_column(table, "hist. tokens (M)")) == {"n/a (scripted)"}
    # Budget 0 has no history to average: historical and current scores agree.
    assert _column(table, "hist. Score")[0] == _column(table, "current Score")[0]


@pytest.mark.slow
def test_per_task_scores_list_our_tasks_then_the_papers(runs):
    _, tables, _ = runs
    table = tables["table_a5"]
    ours = [r for r in table.rows if r[0].startswith("ours")]
    paper = [r for r in table.rows if r[0].startswith("paper")]
    assert len(ours) == 2 + 4 and len(paper) == 6  # 2 tasks, mean, CI, count, paired p
    assert paper[0][1:4] == ["A04", "10", "93"]


@pytest.mark.slow
def test_execution_cost_says_tokens_do_not_apply_to_scripted_agents(runs):
    _, tables, _ = runs
    table = tables["table_a6"]
    assert len(table.rows) == 6 * AGENTS
    assert set(_column(table, "tokens (k)")) == {"n/a (scripted)"}
    assert all(float(v) > 0 for v in _column(table, "wall seconds"))


@pytest.mark.slow
def test_threshold_counts_fall_as_the_threshold_rises(runs):
    _, tables, _ = runs
    table = tables["table_a7"]
    assert len(table.rows) == 6 * AGENTS
    for row in table.rows:
        counts = [int(row[table.columns.index(f"tau={t}")].split("/")[0]) for t in ("0.70", "0.80", "0.90")]
        assert counts[0] >= counts[1] >= counts[2]


@pytest.mark.slow
def test_figures_are_written_as_png_and_pdf(runs):
    root, tables, _ = runs
    names = _column(tables["figures"], "figure")
    assert {"fig2_historical_means", "fig4_historical_budgets", "fig5_proposer_cost", "fig6_lineage"} <= set(
        names
    )
    assert {f"figA{i}" for i in range(1, 6)} <= {name[:5] for name in names}
    for name in names:
        for suffix in ("png", "pdf"):
            assert (root / "runs" / "figures" / "figures" / f"{name}.{suffix}").stat().st_size > 0


@pytest.mark.slow
def test_res_depth_reports_every_depth_and_both_ablations(tmp_path):
    table = run_pipeline(_config(tmp_path, "res_depth", "benchmark=terminal_bundled", "benchmark.limit=2"))
    conditions = _column(table, "condition")
    assert conditions[:3] == ["depth 0", "depth 1", "depth 2"]
    assert {"w/o dependencies", "w/o inheritance"} <= set(conditions)
    # the expert tier passes every original task; removing dependencies never makes the last node harder
    [original] = _rows(table, "condition", "depth 0")
    assert original["explorer-expert pass (%)"] == "100.0"
    [last] = _rows(table, "condition", "depth 2")
    [without] = _rows(table, "condition", "w/o dependencies")
    for tier in ("explorer-basic", "explorer-standard", "explorer-expert"):
        assert float(without[f"{tier} pass (%)"]) >= float(last[f"{tier} pass (%)"])
    assert list((tmp_path / "runs" / "res_depth" / "figures").glob("*.png"))
