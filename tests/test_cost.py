"""Cost before spending (a dry run sends nothing and prints the projection) and after (usage and dollars
per model from the episode records, printed and logged to MLflow)."""

from __future__ import annotations

import subprocess
import sys

import mlflow
import pytest
from episode_records import episode_record
from fake_providers import OPENAI, FakeModelServer, Reply
from hydra_config import compose_config

from res_repro.errors import UserInputError
from res_repro.evaluation.cost import TokenUsage, cost_metrics, price, usage_by_model
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.pipelines import run_pipeline


def _served(server: FakeModelServer) -> tuple[str, ...]:
    """A models entry ``fake`` at the server, billed at 1.25 and 10 dollars per million tokens."""
    return (
        "+model@models.fake=qwen3_5_4b",
        f"models.fake.base_url={server.base_url}",
        "models.fake.input_price_per_mtok=1.25",
        "models.fake.output_price_per_mtok=10.0",
        "agents=[fake]",
        "benchmark.limit=2",
        "show_progress=false",
    )


def test_a_dry_run_sends_nothing_and_prints_the_projection(tmp_path, capsys):
    with FakeModelServer(OPENAI) as server:
        cfg = compose_config(
            *_served(server),
            "dry_run=true",
            "agent_loop.max_turns=10",
            "scaling.depth_cap=2",
            "scaling.max_revisions=1",
            "scaling.target=fake",
            "scaling.target_attempts=3",
            "scaling.target_max_turns=20",
            "scaling.proposer.kind=llm",
            "scaling.proposer.model=fake",
            "scaling.proposer.mode=single",
            "scaling.proposer.max_invalid_replies=1",
            "cost_estimate.input_tokens_per_turn=1000",
            "cost_estimate.output_tokens_per_turn=100",
            "cost_estimate.proposer_input_tokens=2000",
            "cost_estimate.proposer_output_tokens=200",
            root=tmp_path,
            output_dir=tmp_path / "run",
        )
        usage = run_pipeline(cfg)
        assert server.requests == []
    # evaluation: 2 tasks x 2 conditions x 10 turns = 40 requests; target: 2 seeds x 3 nodes x 3 attempts
    # = 18 episodes x 20 turns = 360; proposer: 2 seeds x 2 depths x 2 revisions x 2 replies = 16 calls
    assert usage == {"fake": TokenUsage(22, 416, 400 * 1000 + 16 * 2000, 400 * 100 + 16 * 200)}
    out = capsys.readouterr().out
    assert "nothing was sent to any model" in out and "upper bound" in out
    assert "fake: 22 episodes, 416 requests, 432,000 input and 43,200 output tokens, $0.97" in out
    assert not (tmp_path / "run").exists()  # no table, no records


@pytest.mark.slow
def test_a_dry_run_exits_0_and_a_pipeline_without_a_plan_says_so(tmp_path):
    command = [
        sys.executable,
        "-m",
        "res_repro",
        "dry_run=true",
        "benchmark.limit=2",
        f"paths.root_dir={tmp_path}",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no model is planned: scripted agents cost nothing" in done.stdout
    cfg = compose_config("dry_run=true", "task_name=table3a", root=tmp_path)
    with pytest.raises(UserInputError, match="dry_run=true has no plan for pipeline 'table3a'"):
        run_pipeline(cfg)


def _record(agent: str, input_tokens: int, output_tokens: int, turns: int) -> EpisodeRecord:
    """An ungraded episode of ``agent`` that used the given tokens over ``turns`` turns."""
    usage = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    return episode_record(agent, grade=None, turns=turns, accounting=usage)


def test_cost_from_usage_matches_the_prices():
    models = {
        "api": {"input_price_per_mtok": 1.25, "output_price_per_mtok": 10.0},
        "local": {"input_price_per_mtok": None, "output_price_per_mtok": None},
    }
    records = [_record("api", 1000, 200, 2), _record("api", 3000, 800, 5), _record("local", 50, 5, 1)]
    records.append(_record("explorer-basic", 0, 0, 9))  # not a model: left out
    usage = usage_by_model(records, models)
    assert usage == {"api": TokenUsage(2, 7, 4000, 1000), "local": TokenUsage(1, 1, 50, 5)}
    assert price(usage["api"], models["api"]) == pytest.approx(4000 * 1.25e-6 + 1000 * 10e-6)  # $0.015
    assert price(usage["local"], models["local"]) is None
    metrics = cost_metrics(usage, models)
    assert metrics["cost.api.usd"] == pytest.approx(0.015)
    assert metrics["cost.local.input_tokens"] == 50 and "cost.local.usd" not in metrics


@pytest.mark.slow
def test_a_real_run_reports_and_logs_its_cost_per_model(tmp_path, capsys):
    with FakeModelServer(OPENAI, after=Reply(text="done", input_tokens=100, output_tokens=20)) as server:
        cfg = compose_config(
            *_served(server), "scaling.depth_cap=1", "scaling.target=null", root=tmp_path, output_dir=tmp_path
        )
        run_pipeline(cfg)
        sent = len(server.requests)
    assert sent == 4  # 2 tasks x 2 conditions, one answer each
    out = capsys.readouterr().out
    assert "fake: 4 episodes, 4 requests, 400 input and 80 output tokens, $0.00" in out
    client = mlflow.tracking.MlflowClient(tracking_uri=cfg.tracking.uri)
    [run] = client.search_runs([client.get_experiment_by_name(cfg.tracking.experiment).experiment_id])
    assert run.data.metrics["cost.fake.input_tokens"] == 400
    assert run.data.metrics["cost.fake.usd"] == pytest.approx(400 * 1.25e-6 + 80 * 10e-6)


def test_cached_and_cache_written_tokens_are_priced_at_their_own_rates():
    from res_repro.evaluation.cost import TokenUsage, price

    model = {
        "input_price_per_mtok": 5.0,
        "output_price_per_mtok": 25.0,
        "cached_input_price_per_mtok": 0.5,
        "cache_write_price_per_mtok": 6.25,
    }
    usage = TokenUsage(1, 4, input_tokens=4000, output_tokens=200, cached_tokens=3000, cache_write_tokens=500)
    # 500 uncached at 5, 3000 cached at 0.5, 500 written at 6.25, 200 out at 25 (per million)
    assert price(usage, model) == pytest.approx((500 * 5 + 3000 * 0.5 + 500 * 6.25 + 200 * 25) / 1e6)
    flat = {"input_price_per_mtok": 5.0, "output_price_per_mtok": 25.0}  # no cache rates: input price
    assert price(usage, flat) == pytest.approx((4000 * 5 + 200 * 25) / 1e6)
