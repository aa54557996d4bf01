"""A model whose every request fails (HTTP 500, or replies that are not the protocol's) ends the run with
a non-zero exit and one line naming it, and its Table 1 rows stay, marked as failed."""

from __future__ import annotations

import subprocess
from types import SimpleNamespace

import pytest
from cli_runs import ONE_LEVEL, table1_command
from episode_records import episode_record
from fake_providers import OPENAI, SERVER_ERROR, FakeModelServer, Raw, Step
from hydra_config import metric_settings

from res_repro.agents.reference import OracleAgent
from res_repro.evaluation.episode import infrastructure_failures
from res_repro.pipelines.table1 import ORIGINAL, RES, build_table1

MODEL_NAME = "GPT-5.6 Sol"  # a model of the paper's Table 1, so its row has a paper figure to keep


def test_only_agents_with_no_episode_that_ran_count_as_failed() -> None:
    records = [
        episode_record("down", "provider_error"),
        episode_record("down", "sandbox_error"),
        episode_record("flaky", "provider_error"),
        episode_record("flaky", "answered"),
        episode_record("fine", "answered"),
    ]
    assert infrastructure_failures(records) == {"down": 2}


def test_a_failed_model_keeps_its_rows_and_the_paper_figure() -> None:
    agents = {
        "oracle": OracleAgent(),
        "down": SimpleNamespace(name="down", scripted=False, seeded=True, fixed_on_scaled=None),
    }
    ok = [episode_record("oracle", "answered") for _ in range(3)]
    table, _ = build_table1(
        {("oracle", ORIGINAL): ok, ("oracle", RES): ok},
        benchmark="claw_bundled",
        agents=agents,
        models={
            "down": SimpleNamespace(
                name=MODEL_NAME, simulated=False, model="gpt-5.6-sol", paper_model="gpt-5.6-sol"
            )
        },
        settings=metric_settings(n_bootstrap=200),
        failures={("down", ORIGINAL): 3, ("down", RES): 3},
    )
    rows = [row for row in table.rows if row[0] == MODEL_NAME]
    assert [row[2] for row in rows] == [ORIGINAL, RES]  # kept, not dropped with the paper rows
    assert all(row[4] == "failed: 3 infrastructure errors" for row in rows)
    paper = [i for i, column in enumerate(table.columns) if column == "paper"]
    assert all(row[i] not in ("", None) for row in rows for i in paper)  # the paper's figure beside it
    assert not any(row[4] == "not run" for row in rows)


FAILURES: dict[str, Step] = {
    "HTTP 500": SERVER_ERROR,
    "not JSON": Raw(b"<html>502 Bad Gateway</html>", "text/html"),
    "not the protocol's body": Raw(b'{"choices": []}'),
}


@pytest.mark.slow
@pytest.mark.parametrize("failure", list(FAILURES))
def test_a_model_whose_every_episode_fails_ends_the_run_non_zero(tmp_path, failure: str) -> None:
    with FakeModelServer(OPENAI, after=FAILURES[failure]) as server:
        command = table1_command(
            tmp_path,
            "benchmark=claw_bundled",
            "benchmark.limit=2",
            *ONE_LEVEL,
            "tracking=none",
            "sandbox.max_infra_retries=0",
            "agent_loop.retry.max_attempts=1",
            "+model@models.down=gpt_5_6_sol",
            f"models.down.base_url={server.base_url}",
            "models.down.api_key_env=null",
            "models.down.timeout_s=5",
            "agents=[oracle,down]",
        )
        run = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert server.requests, "the model was never asked"
    assert run.returncode == 1, run.stdout + run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "down: all 4 episodes ended in infrastructure errors" in errors[0], run.stderr
    assert "Traceback" not in run.stderr
    assert f"| {MODEL_NAME} | model | original | 0 | failed: 2 infrastructure errors |" in run.stdout
    assert f"| {MODEL_NAME} | model | +RES | 0 | failed: 2 infrastructure errors |" in run.stdout
    assert "| oracle | scripted | original | 2 | 100.00 |" in run.stdout  # the rest of the run stands
    [episodes] = (tmp_path / "runs").rglob("episodes.jsonl")
    assert episodes.read_text().count('"provider_error"') == 4
