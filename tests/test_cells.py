"""Every table cell's text against values computed by hand: rates and means with their intervals, the
paired p-values, the paper's values and the note naming the agents.

Hand computations (z = 1.959964, the 97.5% normal quantile; t the Student quantile):
- Wilson, 2 of 4 at 95%: centre (0.5 + z^2/8) / (1 + z^2/4) = 0.5, half-width
  z sqrt(0.0625 + z^2/64) / (1 + z^2/4) = 0.34996, so [0.15004, 0.84996].
- Wilson, 3 of 4 at 95%: [0.30064, 0.95441]; at 90% (z = 1.644854), 2 of 4: [0.18240, 0.81760].
- Student t, [1, 2, 3] at 95%: mean 2, s = 1, t(0.975, 2) = 4.302653, half-width 4.302653 / sqrt(3) =
  2.48414, so [-0.48414, 4.48414].
- Exact McNemar, 3 discordant pairs all one way: 2 * 0.5^3 = 0.25; one each way: 1.
- Permutation of three tasks each 1 apart: 2 of the 8 sign flips reach |mean| 1, p = 0.25; every
  bootstrap resample has delta 1, so its p is 0, below the resolution 1 / n_bootstrap.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from episode_records import episode_record
from hydra_config import compose_config, metric_settings

from res_repro.agents.base import Agent, Attempt
from res_repro.agents.explorer import BasicExplorer
from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.env.task import Task
from res_repro.evaluation.metrics import RateEstimate
from res_repro.evaluation.statistics import paired_bootstrap, paired_permutation_test
from res_repro.pipelines import cells
from res_repro.reporting.tables import Table


class Model(Agent):
    """A stand-in for a model agent (not scripted)."""

    name = "model"
    scripted = False

    def run(self, task: Task, environment: Any, attempt: Attempt) -> Any:  # pragma: no cover - never run
        """Never run."""
        raise AssertionError


def test_percentages_have_two_decimals():
    assert cells.pct(0.12345) == "12.35"
    assert cells.pct(1) == "100.00"
    assert cells.pct(0.005) == "0.50"


@pytest.mark.parametrize(
    ("p", "resolution", "text"),
    [
        (None, 1000, ""),
        (0.0, 1000, "<1e-03"),
        (0.0, 500, "<2e-03"),
        (0.0, 0, "0"),  # a p that is never 0 (exact tests) is printed as it is
        (0.012345, 1000, "0.0123"),
        (0.5, 1000, "0.5"),
        (1.0, 0, "1"),
    ],
)
def test_p_values_have_three_significant_digits_and_a_floor_at_the_resolution(p, resolution, text):
    assert cells.format_p(p, resolution) == text


def test_a_rate_cell_is_the_percentage_and_its_wilson_interval():
    assert cells.rate_cells([True, False, True, False], 0.95) == ["50.00", "[15.00, 85.00]"]
    assert cells.rate_cells([True, True, True, False], 0.95) == ["75.00", "[30.06, 95.44]"]
    assert cells.rate_cells([True, False, True, False], 0.90) == ["50.00", "[18.24, 81.76]"]
    assert cells.rate_cells([True, False, True, False], 0.95, scale=1.0) == ["0.50", "[0.15, 0.85]"]


def test_an_interval_is_clipped_to_zero_and_one_hundred_percent():
    assert cells.interval_text(RateEstimate(0.5, 0.15, 0.85, 4)) == "[15.00, 85.00]"
    assert cells.interval_text(RateEstimate(0.5, -0.25, 1.25, 4)) == "[0.00, 100.00]"


@pytest.mark.parametrize(("low", "high"), [(math.nan, 0.5), (0.5, math.nan), (math.nan, math.nan)])
def test_an_undefined_interval_is_blank(low, high):
    assert cells.interval_text(RateEstimate(0.5, low, high, 1)) == ""


def test_a_mean_cell_is_the_mean_and_its_student_t_interval():
    assert cells.mean_cells([1, 2, 3], 0.95) == ["2.00", "[-0.48, 4.48]"]
    assert cells.mean_cells([1, 2, 3], 0.95, scale=10, digits=1) == ["20.0", "[-4.8, 44.8]"]
    assert cells.mean_cells([1, 2, 3], 0.95, bounds=(0.0, 3.0)) == ["2.00", "[0.00, 3.00]"]
    assert cells.mean_cells([1, 2, 3], 0.9) == ["2.00", "[0.31, 3.69]"]  # t(0.95, 2) / sqrt(3) = 1.685854
    assert cells.mean_cells([1, 2, 3], 0.95, bounds=(-1.0, 5.0)) == ["2.00", "[-0.48, 4.48]"]
    assert cells.mean_cells([0.25, 0.75], 0.95, scale=100, bounds=cells.PERCENT) == [
        "50.00",
        "[0.00, 100.00]",
    ]


def test_a_mean_of_one_value_has_no_interval():
    assert cells.mean_cells([0.7], 0.95, scale=100, digits=1) == ["70.0", ""]


def test_a_mcnemar_cell_is_the_exact_p_against_the_control():
    assert cells.mcnemar_cell(None, [True]) == ""
    assert cells.mcnemar_cell([True, True, True, False], [False, False, False, False]) == "0.25"
    assert cells.mcnemar_cell([True, False, True], [False, True, True]) == "1"


def test_a_bootstrap_cell_holds_the_bootstrap_p_and_the_permutation_p():
    settings = metric_settings(n_bootstrap=1000)
    assert cells.bootstrap_cell(None, [1.0], settings) == ""
    assert cells.bootstrap_cell([0.0, 0.0, 0.0], [1.0, 1.0, 1.0], settings) == "<1e-03 (0.25)"
    assert cells.bootstrap_cell([0.5, 0.2], [0.5, 0.2], settings) == "1 (1)"


def test_a_permutation_p_beyond_the_exact_range_uses_the_runs_resamples_and_seed():
    control = [0.1 * (i % 7) for i in range(24)]  # 24 differing tasks: Monte Carlo, not enumerated
    values = [c + (0.05 if i % 3 else -0.04) for i, c in enumerate(control)]
    settings = metric_settings(n_bootstrap=300, seed=8)
    permutation = paired_permutation_test(control, values, n_resamples=300, seed=8)
    assert not permutation.exact
    assert cells.bootstrap_cell(control, values, settings).endswith(
        f" ({cells.format_p(permutation.p_value, 0)})"
    )
    others = {
        cells.bootstrap_cell(control, values, metric_settings(n_bootstrap=n, seed=seed)).split(" ")[1]
        for n, seed in [(300, 8), (300, 9), (301, 8)]
    }
    assert len(others) == 3


def test_a_bootstrap_cell_uses_the_runs_resamples_seed_and_confidence():
    control, values = [0.2, 0.5, 0.5, 0.1, 0.3], [0.4, 0.5, 0.9, 0.0, 0.2]
    settings = metric_settings(n_bootstrap=200, seed=3, confidence=0.9)
    bootstrap = paired_bootstrap(control, values, n_resamples=200, confidence=0.9, seed=3).p_value
    permutation = paired_permutation_test(control, values, n_resamples=200, seed=3).p_value
    expected = f"{cells.format_p(bootstrap, 200)} ({cells.format_p(permutation, 0)})"
    assert cells.bootstrap_cell(control, values, settings) == expected
    others = {
        cells.bootstrap_cell(control, values, metric_settings(n_bootstrap=200, seed=seed))
        for seed in range(6)
    }
    assert len(others) > 1  # the seed reaches the resampling


def test_a_paper_cell_prints_floats_with_two_decimals_and_the_rest_as_given():
    row = {"score": 0.456, "pass_at_1": 40, "note": "n/a", "missing": None}
    assert [cells.paper_cell(row, key) for key in ("score", "pass_at_1", "note", "missing", "absent")] == [
        "0.46",
        "40",
        "n/a",
        "",
        "",
    ]
    assert cells.paper_cell(None, "score") == ""


def test_agent_labels_say_scripted_or_model_and_which_is_the_scaling_target():
    assert cells.agent_label("nop", NopAgent()) == "nop (scripted)"
    assert cells.agent_label("m", Model()) == "m (model)"
    assert cells.agent_label("m", Model(), target="m") == "m (model, scaling target)"
    assert cells.agent_label("m", Model(), target="other") == "m (model)"


def test_the_agent_note_names_every_agent_and_warns_about_the_scaling_target():
    agents = {"nop": NopAgent(), "m": Model()}
    note = cells.agent_note(agents)
    assert note == (
        "Agents: nop (scripted), m (model). Scripted agents are programs, not models (an explorer varies "
        "only through its episode seed, which orders the alternatives it tries); the paper's values (the "
        "'paper' columns, from its DeepSeek-V4.1-Flash runs) are not results of this harness."
    )
    assert "scaling target" not in note
    assert cells.agent_note(agents, target="absent") == note
    warning = (
        " m is the scaling target: each saved lineage stopped where it fulfilled none of its attempts, so "
        "its rows on saved environments (Saved RES, the deepest caps) are low by construction, not "
        "evidence about RES."
    )
    assert (
        cells.agent_note(agents, target="m")
        == note.replace("m (model)", "m (model, scaling target)") + warning
    )


def test_agents_whose_kind_fixes_their_scaled_rows_are_labelled_with_the_reason():
    agents = {"oracle": OracleAgent(), "explorer-basic": BasicExplorer(), "m": Model()}
    assert cells.agent_label("oracle", OracleAgent()) == "oracle (scripted, RES rows by construction)"
    assert cells.agent_label("m", Model()) == "m (model)"
    assert cells.fixed_on_scaled("oracle", OracleAgent()) and not cells.fixed_on_scaled("m", Model())
    assert cells.fixed_on_scaled("m", Model(), target="m")
    note = cells.agent_note(agents)
    assert "oracle's rows on scaled environments are fixed by construction" in note
    assert "explorer-basic's rows on scaled environments are fixed by construction" in note
    assert "parent_reference_fails" in note and "reference_passes" in note
    assert "m's rows" not in note


def test_the_run_metric_settings_come_from_the_metrics_group_and_the_seed():
    cfg = compose_config("seed=13", "metrics.threshold=0.6")
    settings = cells.metric_settings(cfg)
    assert (settings.seed, settings.threshold) == (13, 0.6)
    assert settings.n_bootstrap == cfg.metrics.n_bootstrap and settings.confidence == cfg.metrics.confidence


def test_failed_agents_are_split_off_with_their_errors_per_environment() -> None:
    nop, oracle = NopAgent(), OracleAgent()
    records = [
        episode_record("down", "provider_error", "original"),
        episode_record("down", "provider_error", "original"),
        episode_record("down", "provider_error", "res"),
        episode_record(
            "flaky", "provider_error", "original"
        ),  # one failure, one episode that ran: not failed
        episode_record("flaky", "answered", "original"),
    ]
    assert cells.condition_failures(records) == {
        ("down", "original"): 2,
        ("down", "res"): 1,
        ("flaky", "original"): 1,
    }
    ran, failed = cells.split_failed({"down": nop, "flaky": oracle}, iter(records))
    assert ran == {"flaky": oracle}
    assert failed.agents == {"down": nop}
    assert failed.errors == {("down", "original"): 2, ("down", "res"): 1}
    assert failed.total("down") == 3
    assert failed.total("flaky") == 0


def test_a_failed_agent_keeps_a_row_per_condition_saying_how_many_errors() -> None:
    assert cells.failed_text(4) == "failed: 4 infrastructure errors"
    assert cells.failed_row(["m", 0], 4, 5) == ["m", 0, "failed: 4 infrastructure errors", "", ""]
    failed = cells.FailedAgents({"down": NopAgent()}, {("down", "original"): 2, ("down", "res"): 1})
    table = Table(title="t", columns=["agent", "environment", "n", "value", "ci"])
    failed.add_rows(table, ["original", "res", 3], lambda key, agent, condition: [key, condition, 0])
    assert table.rows == [
        ["down", "original", "0", "failed: 2 infrastructure errors", ""],  # a table holds text
        ["down", "res", "0", "failed: 1 infrastructure errors", ""],
        ["down", "3", "0", "failed: 3 infrastructure errors", ""],  # a depth cap: all of the agent's errors
    ]


def test_the_scaling_note_says_how_the_added_layers_answer_errors():
    assert cells.scaling_note(compose_config()).startswith("Scaled environments: errors are realistic (")
    guided = cells.scaling_note(compose_config("scaling.hints=guided"))
    assert "errors are guided (errors also carry a hint and the next call" in guided
