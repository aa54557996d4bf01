"""Table A5: per-task native scores under every ablation condition, with each task's planned depth d_i.

Our rows (one block per agent) come first, then a summary per condition (mean with its interval, the
Pass@1 count, and the paired bootstrap p against the condition's full RES control), then the paper's six
reported rows, labelled as the paper's (its tasks are not ours).
"""

from __future__ import annotations

from omegaconf import DictConfig

from res_repro.agents import Agent
from res_repro.evaluation.metrics import mean_score, pass_flags
from res_repro.pipelines.ablations import (
    CONTROLS,
    LABELS,
    AblationRecords,
    ablation_records,
    write_ablation_episodes,
)
from res_repro.pipelines.cells import (
    BOOTSTRAP_TEST,
    PERCENT,
    agent_label,
    agent_note,
    bootstrap_cell,
    failed_text,
    mean_cells,
    metric_settings,
    scaling_note,
)
from res_repro.pipelines.figure_views import ablation_dumbbells
from res_repro.pipelines.paper import paper_values
from res_repro.pipelines.reporting import publish, raise_for_failed_agents
from res_repro.reporting.tables import Table

PAPER_SOURCE = "paper (DeepSeek-V4.1-Flash)"
PAPER_KEYS = {"saved_res": "saved", "rebuilt_res": "rebuilt", "basic_library": "basic"}
"""Where the paper's Table A5 rows name a condition differently."""


def _kind(key: str, agent: Agent, target: str | None) -> str:
    return f"ours: {agent_label(key, agent, target)}"


def build_table_a5(cfg: DictConfig, data: AblationRecords) -> tuple[Table, dict[str, float]]:
    """Per-task scores (0-100) per condition, summaries per agent, then the paper's rows."""
    settings = metric_settings(cfg)
    columns = ["source", "task", "d_i", *(LABELS[c] for c in data.conditions)]
    table = Table(title=f"Table A5: per-task native scores ({cfg.benchmark.name})", columns=columns)
    logged: dict[str, float] = {}
    for key, agent in data.agents.items():
        source = _kind(key, agent, cfg.scaling.target)
        scores = {c: [r.score for r in data.records[(key, c)]] for c in data.conditions}
        for index, task in enumerate(data.tasks):
            cells = [f"{100 * scores[c][index]:.2f}" for c in data.conditions]
            table.add_row(source, task, data.planned_depths[index], *cells)
        means = [
            mean_cells(scores[c], settings.confidence, scale=100, bounds=PERCENT) for c in data.conditions
        ]
        table.add_row(source, "mean", "", *(m[0] for m in means))
        table.add_row(source, f"{settings.confidence:.0%} CI", "", *(m[1] for m in means))
        counts = [sum(pass_flags(scores[c], settings.threshold)) for c in data.conditions]
        table.add_row(source, f"score >= {100 * settings.threshold:.0f}", "", *counts)
        p_values = [
            bootstrap_cell(scores.get(CONTROLS[c]) if c in CONTROLS else None, scores[c], settings)
            for c in data.conditions
        ]
        table.add_row(source, "paired p vs control", "", *p_values)
        logged.update({f"{key}.{c}.score": mean_score(v) for c, v in scores.items()})
    for key, agent in data.failed.agents.items():
        errors = (data.failed.errors.get((key, c), 0) for c in data.conditions)
        table.add_row(_kind(key, agent, cfg.scaling.target), "all tasks", "", *map(failed_text, errors))
    for row in paper_values()["table_a5_per_task_scores"]:
        table.add_row(
            PAPER_SOURCE,
            row["task"],
            row["di"],
            *(row.get(PAPER_KEYS.get(c, c), "") for c in data.conditions),
        )
    table.notes = [
        agent_note(data.agents, cfg.scaling.target),
        scaling_note(cfg),
        "Scores are native scores x 100 (success at 80 or above). d_i: the saved lineage's depth, the "
        "planned depth shared by the rebuilt variants.",
        f"Paired p: mean score against the full RES control, {BOOTSTRAP_TEST} (Saved RES for "
        "w/o dependencies; Rebuilt RES for w/o inheritance and Basic library; Original for both controls).",
        f"Rows marked '{PAPER_SOURCE}' are the paper's reported tasks (6 of its 15); they are not ours.",
    ]
    return table, logged


def run_table_a5(cfg: DictConfig) -> Table:
    """Compute (or reuse) the ablation records and publish Table A5 with Figure A5."""
    data = ablation_records(cfg)
    table, metrics = build_table_a5(cfg, data)
    figures = {f"figA5_{key}": ablation_dumbbells(cfg, data, key) for key in data.agents}
    publish(cfg, table, "table_a5", metrics, extra=[write_ablation_episodes(cfg, data)], figures=figures)
    raise_for_failed_agents(data.episodes)
    return table
