"""Table 1: agents on the original and the last accepted RES environment of each seed task.

Each agent makes one attempt per task in both conditions; the two are compared task by task (exact
McNemar for pass rates, paired bootstrap for scores). The paper's reported figures sit in their own
"paper" column; scripted agents are labelled as such.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from omegaconf import DictConfig

from res_repro.agents import Agent
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import MetricSettings
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.evaluation.summary import metrics_for
from res_repro.pipelines.cells import format_p, interval_text, metric_settings, pct
from res_repro.pipelines.lineages import (
    build_lineages,
    configured_agents,
    configured_tasks,
    run_requests,
    write_manifests,
)
from res_repro.pipelines.paper import paper_rows
from res_repro.pipelines.reporting import publish, write_episodes
from res_repro.reporting.tables import Table

ORIGINAL, RES = "original", "+RES"


def _display(agent: Agent, models: Mapping[str, object]) -> tuple[str, str]:
    """(row name, kind) of an agent: models by their display name (simulated ones labelled so), scripted
    agents by theirs."""
    if agent.scripted:
        return agent.name, "scripted"
    model = models.get(agent.name)
    return str(getattr(model, "name", agent.name)), "simulated" if getattr(
        model, "simulated", False
    ) else "model"


def build_table1(
    records: Mapping[tuple[str, str], Sequence[EpisodeRecord]],
    *,
    benchmark: str,
    agents: Mapping[str, Agent],
    models: Mapping[str, object],
    settings: MetricSettings,
) -> tuple[Table, dict[str, float]]:
    """Rows per (agent, condition) with intervals and paired p-values, then the paper's rows."""
    metrics, prefix = metrics_for(benchmark)
    columns = ["agent", "agent kind", "environment", "n"]
    for metric in metrics:
        columns += [
            f"{metric.label} (%)",
            f"{settings.confidence:.0%} CI",
            f"paired p ({metric.label})",
            "paper",
        ]
    table = Table(title=f"Table 1 ({benchmark}): original vs last accepted RES environment", columns=columns)
    logged: dict[str, float] = {}
    paper = {(row["model"], row["env"]): row for row in paper_rows("table1")}
    for key, agent in agents.items():
        name, kind = _display(agent, models)
        for condition in (ORIGINAL, RES):
            mine = records.get((key, condition))
            if not mine:
                continue
            cells: list[object] = [name, kind, condition, len(mine)]
            for metric in metrics:
                estimate = metric.estimate(mine, settings)
                base = records.get((key, ORIGINAL))
                p = metric.paired(base, mine, settings) if condition == RES and base else None
                reported = paper.get((name, "original" if condition == ORIGINAL else "res"), {})
                cells += [
                    pct(estimate.value),
                    interval_text(estimate),
                    format_p(p, settings.n_bootstrap),
                    reported.get(f"{prefix}_{metric.paper_suffix}", "") if prefix else "",
                ]
                logged[f"{key}.{condition.lstrip('+').lower()}.{metric.paper_suffix}"] = estimate.value
            table.add_row(*cells)
    run_models = {_display(a, models)[0] for a in agents.values() if not a.scripted}
    for (model, env), row in paper.items():
        if model in run_models or not prefix:
            continue
        cells = [model, "model", ORIGINAL if env == "original" else RES, ""]
        for metric in metrics:
            cells += ["not run", "", "", row.get(f"{prefix}_{metric.paper_suffix}", "")]
        table.add_row(*cells)
    scripted = [a.name for a in agents.values() if a.scripted]
    table.notes = [
        "Each agent makes one attempt per task in each environment; +RES is the last accepted environment of "
        "each seed task's lineage.",
        f"Scripted agents ({', '.join(scripted) or 'none'}) are deterministic programs, not models.",
        "The 'paper' column holds the RES paper's reported figures (its models, its benchmarks); they are "
        "not results of this harness. 'not run' rows need the model's API key (models=api or models=paper).",
        f"Intervals: Wilson for rates, Student t for mean scores, at {settings.confidence:.0%}. "
        "Paired p: exact McNemar for rates, paired bootstrap for scores and RPR.",
    ]
    return table, logged


def paired_records(
    flat: Sequence[EpisodeRecord], agent_keys: Sequence[str], n_tasks: int
) -> dict[tuple[str, str], list[EpisodeRecord]]:
    """Split records (agent-major, then original, then +RES, then task order) into aligned pairs.

    A task whose episode failed for infrastructure reasons in either condition is left out of both, so
    the paired tests compare the same tasks.
    """
    records: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for index, key in enumerate(agent_keys):
        start = 2 * n_tasks * index
        originals, scaled = flat[start : start + n_tasks], flat[start + n_tasks : start + 2 * n_tasks]
        for original, res in zip(originals, scaled, strict=True):
            if not (original.infrastructure_failure or res.infrastructure_failure):
                records.setdefault((key, ORIGINAL), []).append(original)
                records.setdefault((key, RES), []).append(res)
    return records


def run_table1(cfg: DictConfig) -> Table:
    """Scale the benchmark's seed tasks, evaluate every agent on original and +RES, and report."""
    agents = configured_agents(cfg, cfg.agents)
    tasks = configured_tasks(cfg)
    lineages = build_lineages(cfg, tasks)
    conditions = {
        ORIGINAL: [lineage.nodes[0].task for lineage in lineages],
        RES: [lin.last.task for lin in lineages],
    }
    requests = [
        EpisodeRequest(task, key, environment=condition)
        for key in agents
        for condition, condition_tasks in conditions.items()
        for task in condition_tasks
    ]
    flat = run_requests(cfg, requests, agents)
    records = paired_records(flat, list(agents), len(tasks))
    table, metrics = build_table1(
        records, benchmark=cfg.benchmark.name, agents=agents, models=cfg.models, settings=metric_settings(cfg)
    )
    depths = [lineage.last.manifest.depth for lineage in lineages]
    metrics["res.mean_depth"] = sum(depths) / len(depths)
    out = Path(cfg.paths.output_dir)
    extra = [write_episodes(flat, out / "episodes.jsonl"), write_manifests(lineages, out / "lineages.jsonl")]
    publish(cfg, table, "table1", metrics, extra=extra)
    return table
