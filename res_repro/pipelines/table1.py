"""Table 1: agents on the original environments of a benchmark, beside the paper's reported figures.

The scaled (+RES) condition needs the RES engine; until it exists those rows say so instead of
showing numbers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from omegaconf import DictConfig, OmegaConf

from res_repro.agents import Agent, build_agents
from res_repro.benchmarks.registry import load_benchmark
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import rate_with_ci
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore
from res_repro.pipelines.paper import paper_rows
from res_repro.reporting.tables import Table
from res_repro.tracking import config_hash, git_commit, tracked_run

# benchmark name -> (paper metric key, column label)
PASS_METRIC = {"terminal_bundled": ("terminal_pass_at_1", "Terminal Pass@1 (%)")}
NOT_BUILT = "not run: RES engine not built yet"


def _pct(value: float) -> str:
    return f"{100 * value:.2f}"


def build_table1(
    records: Sequence[EpisodeRecord], *, benchmark: str, agents: Mapping[str, Agent], confidence: float
) -> tuple[Table, dict[str, float]]:
    """Aggregate episode records into Table 1 rows and the metrics to log."""
    metric_key, label = PASS_METRIC[benchmark]
    table = Table(
        title=f"Table 1 ({benchmark}): pass rate on original and scaled environments",
        columns=["agent", "agent kind", "environment", "n", label, f"{confidence:.0%} CI", "paper"],
    )
    metrics: dict[str, float] = {}
    for agent in agents:
        mine = [r for r in records if r.agent == agent and not r.infrastructure_failure]
        kind = "scripted" if agents[agent].scripted else "model"
        estimate = rate_with_ci([r.passed for r in mine], confidence)
        interval = f"[{_pct(estimate.low)}, {_pct(estimate.high)}]"
        table.add_row(agent, kind, "original", estimate.n, _pct(estimate.value), interval, "")
        table.add_row(agent, kind, "+RES", "", NOT_BUILT, "", "")
        metrics[f"{agent}.original.pass_rate"] = estimate.value
        metrics[f"{agent}.original.n"] = estimate.n
    for row in paper_rows("table1"):
        if metric_key in row:
            env = "original" if row["env"] == "original" else "+RES"
            table.add_row(
                row["model"], "model", env, "", "not run: needs the model's API key", "", row[metric_key]
            )
    table.notes = [
        f"Rows marked 'scripted' ({', '.join(a for a in agents if agents[a].scripted)}) are deterministic "
        "reference agents, not models: oracle runs each task's reference solution, nop does nothing.",
        "The 'paper' column holds the RES paper's reported figures for its models on Terminal-Bench 2.1 "
        "(one 50-turn attempt per task); they are not results of this harness.",
        f"Intervals are Wilson score intervals at {confidence:.0%}.",
    ]
    return table, metrics


def _write_episodes(records: Sequence[EpisodeRecord], path: Path) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record.to_dict(), default=str) + "\n")
    return path


def run_table1(cfg: DictConfig) -> Table:
    """Evaluate every configured agent on the benchmark's original environments and report Table 1."""
    models = OmegaConf.to_container(cfg.models, resolve=True)
    loop = OmegaConf.to_container(cfg.agent_loop, resolve=True)
    cache = Path(cfg.paths.cache_dir)
    agents = build_agents(cfg.agents, models=models, loop=loop, cache_dir=cache / "responses", seed=cfg.seed)
    params = OmegaConf.to_container(cfg.benchmark, resolve=True)
    tasks = load_benchmark(cfg.benchmark.name, params, generated_dir=cache / "generated")
    requests = [EpisodeRequest(task, agent) for agent in cfg.agents for task in tasks]
    store = EpisodeStore(cache / "episodes")
    records = evaluate(
        requests,
        agents=agents,
        backend=cfg.sandbox.backend,
        store=store,
        workers=cfg.workers,
        seed=cfg.seed,
        max_infra_retries=cfg.sandbox.max_infra_retries,
        show_progress=cfg.show_progress,
    )
    table, metrics = build_table1(
        records, benchmark=cfg.benchmark.name, agents=agents, confidence=cfg.metrics.confidence
    )
    out = Path(cfg.paths.output_dir)
    artifacts = [*table.write(out, "table1"), _write_episodes(records, out / "episodes.jsonl")]
    print(table.to_markdown())
    resolved = OmegaConf.to_container(cfg, resolve=True)
    tags = {"git_commit": git_commit(cfg.paths.root_dir), "config_hash": config_hash(resolved)}
    with tracked_run(
        enabled=cfg.tracking.enabled,
        uri=cfg.tracking.uri,
        experiment=cfg.tracking.experiment,
        run_name=f"table1-{cfg.benchmark.name}",
        params=resolved,
        tags=tags,
        artifact_root=cfg.paths.mlflow_artifacts,
    ) as tracker:
        tracker.log_metrics(metrics)
        tracker.log_artifacts(artifacts, folder="results")
        hydra_dir = out / ".hydra"
        if hydra_dir.is_dir():
            tracker.log_artifacts(sorted(hydra_dir.iterdir()), folder=".hydra")
        if tracker.run_id:
            print(f"MLflow run {tracker.run_id} in {cfg.tracking.uri} (experiment {cfg.tracking.experiment})")
    return table
