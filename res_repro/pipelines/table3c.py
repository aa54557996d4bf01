"""Table 3C: Pass@1 and Score across depth caps, over the same saved lineages.

A lineage scaled with cap c is the cap-10 lineage cut at depth c (children and stopping decisions do
not depend on the cap), so each cap reads the retained state at budget c of the depth reevaluation:
one scaling run and one episode per node serve every cap. Each cap is compared task by task with the
deepest cap (the paper's default of ten).
"""

from __future__ import annotations

from statistics import fmean

from omegaconf import DictConfig

from res_repro.evaluation.metrics import mean_score, pass_at_1, pass_flags
from res_repro.pipelines.cells import (
    BOOTSTRAP_TEST,
    PERCENT,
    agent_label,
    agent_note,
    bootstrap_cell,
    mcnemar_cell,
    mean_cells,
    metric_settings,
    rate_cells,
    scaling_note,
)
from res_repro.pipelines.figure_views import caps_figure
from res_repro.pipelines.lineage_views import lineage_notes
from res_repro.pipelines.reevaluation import DepthRecords, depth_caps, depth_records
from res_repro.pipelines.reporting import publish, raise_for_failed_agents
from res_repro.reporting.tables import Table


def build_table3c(cfg: DictConfig, data: DepthRecords) -> tuple[Table, dict[str, float]]:
    """Rows per (agent, cap): mean depth reached, Pass@1 and Score with intervals and paired p."""
    settings = metric_settings(cfg)
    caps = depth_caps(cfg)
    ci = f"{settings.confidence:.0%} CI"
    columns = ["agent", "depth cap", "n", "mean depth", "Pass@1 (%)", ci, "McNemar p", "Score", ci]
    columns.append("bootstrap p")
    table = Table(title=f"Table 3C: depth caps over saved lineages ({cfg.benchmark.name})", columns=columns)
    logged: dict[str, float] = {}
    control = caps[-1]
    for key, agent in data.agents.items():
        reference = data.current(key, "score", control)
        for cap in caps:
            scores = data.current(key, "score", cap)
            flags = pass_flags(scores, settings.threshold)
            table.add_row(
                agent_label(key, agent, cfg.scaling.target),
                cap,
                len(scores),
                f"{fmean(min(cap, d) for d in data.depths):.2f}",
                *rate_cells(flags, settings.confidence),
                mcnemar_cell(pass_flags(reference, settings.threshold) if cap != control else None, flags),
                *mean_cells(scores, settings.confidence, scale=100, bounds=PERCENT),
                bootstrap_cell(reference if cap != control else None, scores, settings),
            )
            logged[f"{key}.cap_{cap}.pass_at_1"] = pass_at_1(scores, settings.threshold)
            logged[f"{key}.cap_{cap}.score"] = mean_score(scores)
    data.failed.add_rows(
        table,
        caps,
        lambda key, agent, cap: [
            agent_label(key, agent, cfg.scaling.target),
            cap,
            0,
            f"{fmean(min(cap, d) for d in data.depths):.2f}",
        ],
    )
    table.notes = [
        agent_note(data.agents, cfg.scaling.target),
        scaling_note(cfg),
        f"Cap c evaluates each seed's last accepted environment at depth <= c (stopped lineages keep their "
        f"final one). Paired p against cap {control}: exact McNemar (Pass@1); for Score a {BOOTSTRAP_TEST}.",
        "The paper lists caps 0, 1, 2, 3, 5 and 10 for its 105 seeds but its text gives no per-cap values, "
        "so there is no paper column; Figure A4 plots the same rows.",
        *lineage_notes(data.lineages),
    ]
    return table, logged


def run_table3c(cfg: DictConfig) -> Table:
    """Scale once to the deepest cap, evaluate every node once, and publish Table 3C with Figure A4."""
    data = depth_records(cfg)
    table, metrics = build_table3c(cfg, data)
    publish(cfg, table, "table3c", metrics, figures={"figA4_depth_caps": caps_figure(cfg, data)})
    raise_for_failed_agents(data.episodes)
    return table
