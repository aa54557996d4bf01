"""The paper's figures (2, 4, 5, 6 and A1-A5) from the shared records, published with an index table.

Figures 2, 4 and A1-A4 read the depth reevaluation of the whole suite; Figure 5 the lineage manifests;
Figure 6 one lineage's dependency graphs; Figure A5 the component ablations on the slice. Nothing here
runs an episode that a table has already run.
"""

from __future__ import annotations

from collections.abc import Callable

from matplotlib.figure import Figure
from omegaconf import DictConfig

from res_repro.pipelines.ablations import ablation_records
from res_repro.pipelines.cells import agent_label, agent_note, metric_settings
from res_repro.pipelines.figure_views import (
    ablation_dumbbells,
    budget_figure,
    budget_panels,
    caps_figure,
    measure_chains,
    per_budget,
)
from res_repro.pipelines.lineage_views import child_costs, model_proposer
from res_repro.pipelines.reevaluation import DepthRecords, depth_records
from res_repro.pipelines.reporting import publish, raise_for_failed_agents
from res_repro.reporting.figures import (
    budget_curves,
    budget_distributions,
    current_vs_historical,
    lineage_states,
    proposer_cost,
)
from res_repro.reporting.tables import Table
from res_repro.res.scaling import LineageResult

FIGURE6_DEPTH = 3
"""Figure 6 shows E0..E3 of a lineage, as in the paper's example."""


def _added_nodes(lineages: list[LineageResult]) -> list[list[float]]:
    """Per seed, the reference-graph nodes each state adds over E0."""
    return [
        [
            float(len(n.manifest.graph.nodes) - len(lineage.nodes[0].manifest.graph.nodes))
            for n in lineage.nodes
        ]
        for lineage in lineages
    ]


def figure2(cfg: DictConfig, data: DepthRecords) -> Figure:
    """Figure 2: historical means of performance, demand and added reference nodes per budget."""
    panels = budget_panels(cfg, data, historical=True)
    budgets = range(cfg.scaling.depth_cap + 1)
    panels["added reference nodes"] = {"lineages": per_budget(_added_nodes(data.lineages), budgets, True)}
    return budget_curves(
        panels, title=f"Figure 2: environment scaling and execution demand ({cfg.benchmark.name}, historical)"
    )


def figure_a2(cfg: DictConfig, data: DepthRecords) -> Figure:
    """Figure A2: current vs historical means of Pass@1 and Score per budget."""
    budgets = range(cfg.scaling.depth_cap + 1)
    panels = {
        label: {
            agent_label(key, agent, cfg.scaling.target): (
                per_budget(measure_chains(cfg, data, key, measure), budgets, False),
                per_budget(measure_chains(cfg, data, key, measure), budgets, True),
            )
            for key, agent in data.agents.items()
        }
        for label, measure in (("Pass@1 (%)", "pass"), ("Score (0-100)", "score"))
    }
    return current_vs_historical(
        panels, title=f"Figure A2: current vs historical means ({cfg.benchmark.name})"
    )


def figure_a3(cfg: DictConfig, data: DepthRecords) -> Figure:
    """Figure A3: historical interaction demand at the selected budgets."""
    budgets = [b for b in cfg.sweep.budgets if b <= cfg.scaling.depth_cap]
    panels = {
        label: series
        for label, series in budget_panels(cfg, data, historical=True).items()
        if label in ("turns", "tool calls", "tokens (M)")
    }
    return budget_distributions(
        panels, budgets, title=f"Figure A3: historical interaction demand ({cfg.benchmark.name})"
    )


def figure6(data: DepthRecords) -> Figure:
    """Figure 6: E0..E3 of the first lineage reaching depth 3 (else the deepest), as dependency graphs."""
    deep = [lineage for lineage in data.lineages if lineage.last.manifest.depth >= FIGURE6_DEPTH]
    lineage = deep[0] if deep else max(data.lineages, key=lambda lin: lin.last.manifest.depth)
    nodes = lineage.nodes[: FIGURE6_DEPTH + 1]
    families = {e.dependent: a.family for a in lineage.last.manifest.history for e in a.edges}
    states = [(f"E{n.manifest.depth}", n.manifest.graph) for n in nodes]
    return lineage_states(
        states,
        families,
        title=f"Figure 6: {lineage.seed_task_id}, E0-E{len(nodes) - 1} "
        f"(final E{lineage.last.manifest.depth}); new nodes in bold, composed edges dashed",
    )


FIGURES: dict[str, tuple[str, Callable[[DictConfig, DepthRecords], Figure]]] = {
    "fig2_historical_means": ("historical means per budget, with added reference nodes", figure2),
    "fig4_historical_budgets": (
        "historical means with IQR shading, the turn limit dashed, termination rates",
        lambda cfg, data: budget_figure(cfg, data, historical=True),
    ),
    "fig6_lineage": ("one lineage E0..E3 as dependency graphs", lambda cfg, data: figure6(data)),
    "figA1_current_budgets": (
        "current retained-state means with IQR shading",
        lambda cfg, data: budget_figure(cfg, data, historical=False),
    ),
    "figA2_current_vs_historical": ("current vs historical means of Pass@1 and Score", figure_a2),
    "figA3_historical_demand": ("historical turns and tool calls at selected budgets", figure_a3),
    "figA4_depth_caps": ("Pass@1 and Score across depth caps", caps_figure),
}
"""Every figure drawn from the depth reevaluation: file name -> (what it shows, how to draw it)."""


def run_figures(cfg: DictConfig) -> Table:
    """Draw every figure from the shared records and publish them with an index table."""
    data = depth_records(cfg)
    figures = {name: draw(cfg, data) for name, (_, draw) in FIGURES.items()}
    shown = {name: what for name, (what, _) in FIGURES.items()}
    costs = child_costs(data.lineages)
    figures["fig5_proposer_cost"] = proposer_cost(
        costs,
        title=f"Figure 5 ({cfg.benchmark.name}): proposer cost per child by depth",
        timed=model_proposer(cfg),
    )
    shown["fig5_proposer_cost"] = (
        "proposer executions per child by depth (5+ pooled, dark), with time (model proposer) or revisions"
    )
    ablations = ablation_records(cfg)
    target = cfg.scaling.target if cfg.scaling.target in ablations.agents else next(iter(ablations.agents))
    figures[f"figA5_{target}"] = ablation_dumbbells(cfg, ablations, target)
    shown[f"figA5_{target}"] = (
        "per-task scores, full RES control (filled) vs ablation (hollow), "
        f"{100 * metric_settings(cfg).threshold:.0f}-point threshold dashed"
    )
    table = Table(title=f"Figures ({cfg.benchmark.name})", columns=["figure", "files", "shows"])
    for name in sorted(figures):
        table.add_row(name, f"figures/{name}.png, figures/{name}.pdf", shown[name])
    table.notes = [
        agent_note(data.agents, cfg.scaling.target),
        f"Depth figures: {len(data.lineages)} seeds, budgets 0..{cfg.scaling.depth_cap}; Figure A5: "
        f"the {len(ablations.tasks)}-task ablation slice.",
    ]
    publish(cfg, table, "figures", {"figures": float(len(figures))}, figures=figures)
    raise_for_failed_agents([*data.episodes, *ablations.episodes])
    return table
