"""Table 1 separates evidence from construction: the scaling target's +RES row is marked and reported
apart, agents whose outcomes cannot vary get no p-value, and the notes name every interval and test."""

from __future__ import annotations

from typing import Any

from episode_records import episode_record
from hydra_config import metric_settings

from res_repro.agents.base import Agent, Attempt
from res_repro.agents.explorer import BasicExplorer, ExpertExplorer, StandardExplorer
from res_repro.agents.reference import OracleAgent
from res_repro.pipelines.table1 import BY_CONSTRUCTION, DETERMINISTIC, ORIGINAL, RES, build_table1


class Free(Agent):
    """An agent whose outcomes on scaled environments nothing fixes (like a model that is not the target)."""

    name = "free"

    def run(self, task: Any, environment: Any, attempt: Attempt) -> Any:  # pragma: no cover - never run
        """Never run."""
        raise AssertionError


def test_the_target_row_is_marked_and_reported_last() -> None:
    agents = {
        "explorer-standard": StandardExplorer(),
        "oracle": OracleAgent(),
        "explorer-expert": ExpertExplorer(),
        "free": Free(),
    }
    records = {}
    for key in agents:
        records[key, ORIGINAL] = [episode_record(score=s, passed=s >= 0.8) for s in (1.0, 0.9, 1.0, 0.5)]
        records[key, RES] = [episode_record(score=s, passed=s >= 0.8) for s in (0.2, 0.9, 0.0, 0.5)]
    table, _ = build_table1(
        records,
        benchmark="claw_bundled",
        agents=agents,
        models={},
        settings=metric_settings(n_bootstrap=500),
        target="explorer-standard",
        target_stop_depths=(2, 1, 3),
    )
    names = [row[0] for row in table.rows if row[1] != "model"]
    assert names[-2:] == ["explorer-standard", "explorer-standard"]  # apart, after the others
    target_res = next(r for r in table.rows if r[0] == "explorer-standard" and r[2].startswith(RES))
    assert BY_CONSTRUCTION in target_res[2] and "scaling target" in target_res[1]
    p_columns = [i for i, c in enumerate(table.columns) if c.startswith(("paired p", "permutation p"))]
    assert len(p_columns) == 3  # Pass@1 (McNemar), Score (bootstrap and permutation)
    assert all(target_res[i] == BY_CONSTRUCTION for i in p_columns)
    for fixed in ("oracle", "explorer-expert"):  # their kind fixes their scaled rows: marked, no p-value
        row = next(r for r in table.rows if r[0] == fixed and r[2].startswith(RES))
        assert row[2] == f"{RES} ({BY_CONSTRUCTION})"
        assert all(row[i] == BY_CONSTRUCTION for i in p_columns)
    free_res = next(r for r in table.rows if r[0] == "free" and r[2] == RES)
    assert all(float(free_res[i]) > 0 for i in p_columns)
    notes = " ".join(table.notes)
    assert "oracle's rows on scaled environments are fixed by construction" in notes
    assert "explorer-expert's rows on scaled environments are fixed by construction" in notes
    assert "Rows that are evidence about RES (+RES not fixed by construction): free." in notes
    assert "each lineage grew at least one child" in notes
    assert "fulfilled its newest node in none of its attempts (3 lineage(s) stopped so)" in notes
    assert "no valid child" not in notes
    assert "exact McNemar" in notes and "permutation" in notes


def test_agents_fixed_on_scaled_environments_get_no_p_value() -> None:
    agents = {"oracle": OracleAgent(), "explorer-basic": BasicExplorer()}
    records = {
        (key, condition): [episode_record(score=s, passed=s >= 0.8) for s in (1.0, 0.9, 0.2)]
        for key in agents
        for condition in (ORIGINAL, RES)
    }
    table, _ = build_table1(
        records, benchmark="claw_bundled", agents=agents, models={}, settings=metric_settings(n_bootstrap=50)
    )
    p_columns = [i for i, c in enumerate(table.columns) if c.startswith(("paired p", "permutation p"))]
    basic_res = next(r for r in table.rows if r[0] == "explorer-basic" and r[2].startswith(RES))
    assert all(basic_res[i] == BY_CONSTRUCTION for i in p_columns)
    assert "follows the seed's reference plan" in " ".join(table.notes)
    oracle_res = next(r for r in table.rows if r[0] == "oracle" and r[2].startswith(RES))
    assert all(oracle_res[i] == BY_CONSTRUCTION for i in p_columns)  # the stronger reason of the two
    assert DETERMINISTIC not in " ".join(table.notes)
    assert "none in this run" in " ".join(table.notes)


def test_rpr_uses_a_cluster_interval_and_tests_on_the_same_quantity() -> None:
    agents = {"free": Free()}
    full, half = (True, True, True, True), (True, True, False, False)
    records = {
        ("free", ORIGINAL): [episode_record(benchmark="workspace_bundled", rubric=full) for _ in range(4)],
        ("free", RES): [
            episode_record(benchmark="workspace_bundled", score=0.5, passed=False, rubric=half)
            for _ in range(4)
        ],
    }
    table, _ = build_table1(
        records, benchmark="workspace_bundled", agents=agents, models={}, settings=metric_settings()
    )
    res = next(r for r in table.rows if r[2] == RES)
    column = table.columns.index("permutation p (RPR)")
    assert float(res[column]) == 2 / 16  # four tasks all worse: 2 of 16 swaps reach the observed drop
    assert "per-task cluster bootstrap interval" in " ".join(table.notes)


def test_the_targets_note_names_the_stopping_rule_in_force() -> None:
    agents = {"explorer-standard": StandardExplorer()}
    records = {
        ("explorer-standard", condition): [episode_record(score=0.9, passed=True) for _ in range(3)]
        for condition in (ORIGINAL, RES)
    }
    table, _ = build_table1(
        records,
        benchmark="claw_bundled",
        agents=agents,
        models={},
        settings=metric_settings(n_bootstrap=100),
        target="explorer-standard",
        target_stop_depths=(1, 2),
        target_rule="passed",
    )
    notes = " ".join(table.notes)
    assert (
        "until explorer-standard passed its newest node in none of its attempts (2 lineage(s) stopped so)"
        in notes
    )
    assert "fulfilled" not in notes


def test_a_seed_with_no_valid_child_is_counted_and_named_with_its_reason() -> None:
    agents = {"explorer-expert": ExpertExplorer()}
    records = {
        ("explorer-expert", condition): [episode_record(score=0.9, passed=True) for _ in range(3)]
        for condition in (ORIGINAL, RES)
    }
    why = "last candidate (require_token, revision 2) failed reference_passes: score 0.40"
    table, _ = build_table1(
        records,
        benchmark="claw_bundled",
        agents=agents,
        models={},
        settings=metric_settings(n_bootstrap=100),
        childless=[("claw-finance-reconcile-00", why)],
        seeds=3,
    )
    assert table.notes[-1] == (
        "1 of 3 seed task(s) are unscaled: they grew no valid child (within the revision budget, or the "
        f'proposer failed), so their "+RES" environment is the original: claw-finance-reconcile-00 ({why}).'
    )


def test_a_task_left_out_for_an_infrastructure_failure_is_named_and_the_run_fails() -> None:
    import pytest

    from res_repro.errors import RunFailedError
    from res_repro.pipelines.reporting import raise_for_failed_agents
    from res_repro.pipelines.table1 import left_out_notes, paired_records

    flat = [
        episode_record("m", task_id="t1"),
        episode_record("m", task_id="t2"),
        episode_record("m", environment=RES, task_id="t1"),
        episode_record("m", "provider_error", RES, task_id="t2", error="HTTP 400: invalid history"),
    ]
    assert [len(v) for v in paired_records(flat, ["m"], 2).values()] == [1, 1]  # t2 is out of both
    assert left_out_notes(flat, ["m"], 2) == [
        "m: 1 of 2 task(s) left out of both conditions for infrastructure failures (original: 0, +RES: 1; "
        "the run exits non-zero and a rerun retries them): t2."
    ]
    with pytest.raises(
        RunFailedError, match=r"m: 1 of 4 episodes ended in infrastructure errors \(provider_error"
    ):
        raise_for_failed_agents(flat)
    assert left_out_notes([*flat[:3], episode_record("m", environment=RES, task_id="t2")], ["m"], 2) == []


def test_truncated_episodes_are_counted_in_a_note() -> None:
    from res_repro.pipelines.table1 import truncation_note

    flat = [episode_record("m", "truncated", RES, passed=False, score=0.2), episode_record("m")]
    assert truncation_note(flat) is not None and "m +RES: 1" in truncation_note(flat)
    assert truncation_note(flat[1:]) is None


class Model(Free):
    """A model agent under the key of the paper's GPT-5.6 Sol entry."""

    name = "gpt_5_6_sol"
    scripted = False


def _model_rows(*overrides: str) -> list[list[Any]]:
    from res_repro.config import compose_config

    models = compose_config("models=paper", *overrides).models
    records = {
        (Model.name, condition): [episode_record(score=s, passed=s >= 0.8) for s in (1.0, 0.6)]
        for condition in (ORIGINAL, RES)
    }
    table, _ = build_table1(
        records,
        benchmark="claw_bundled",
        agents={Model.name: Model()},
        models=models,
        settings=metric_settings(),
    )
    return [[row[0], row[2], row[3], row[table.columns.index("paper")]] for row in table.rows]


def test_the_paper_figure_stands_beside_a_paper_model_only_while_it_is_that_model() -> None:
    assert ["GPT-5.6 Sol", ORIGINAL, "2", "85.71"] in _model_rows()
    mine = _model_rows("models.gpt_5_6_sol.model=my-org/my-model")
    assert ["my-org/my-model", ORIGINAL, "2", ""] in mine and ["my-org/my-model", RES, "2", ""] in mine
    assert ["GPT-5.6 Sol", ORIGINAL, "", "85.71"] in mine  # the paper's row, marked not run


def test_your_own_model_is_one_group_named_by_its_id_or_your_name() -> None:
    from res_repro.config import compose_config

    cfg = compose_config(
        "models=own", "models.own.model=my-model", "models.own.base_url=http://localhost:9/v1"
    )
    assert list(cfg.agents) == ["own"] and cfg.models.own.name == "my-model"
    assert cfg.models.own.paper_model is None and cfg.models.own.api_key_env is None
    named = compose_config("models=own", "models.own.model=m", "models.own.name=My model")
    assert named.models.own.name == "My model"
