"""Figures drawn from the shared records that more than one result publishes: the depth-budget curves
(Figure 4 with Table A4, Figure A1), the depth caps (Figure A4 with Table 3C) and the per-task ablation
dumbbells (Figure A5 with Table A5), plus the per-budget series the figures pipeline builds on.

Imported only by results that draw, so tables without figures never load matplotlib.
"""

from __future__ import annotations

from statistics import fmean

from matplotlib.figure import Figure
from omegaconf import DictConfig

from res_repro.evaluation.metrics import pass_flags
from res_repro.pipelines.ablations import CONTROLS, LABELS, AblationRecords
from res_repro.pipelines.budgets import historical_values, retained
from res_repro.pipelines.cells import agent_label, metric_settings
from res_repro.pipelines.lineage_views import termination_rates
from res_repro.pipelines.reevaluation import DepthRecords, depth_caps
from res_repro.reporting.figures import PerBudget, budget_curves, caps_curves, dumbbells


def measure_chains(cfg: DictConfig, data: DepthRecords, key: str, measure: str) -> list[list[float]]:
    """Per seed, one value per node: ``pass`` (Pass@1 at ``metrics.threshold``) and ``score`` on a 0-100
    scale, tokens in millions, demand as counted."""
    if measure == "pass":
        threshold = metric_settings(cfg).threshold
        return [[100.0 * f for f in pass_flags(chain, threshold)] for chain in data.measured(key, "score")]
    scale = {"score": 100.0, "tokens": 1e-6}.get(measure, 1.0)
    return [[scale * v for v in chain] for chain in data.measured(key, measure)]


def per_budget(chains: list[list[float]], budgets: range, historical: bool) -> dict[int, list[float]]:
    """Per budget, every seed's historical mean (``historical``) or retained measurement."""
    if historical:
        return {d: historical_values(chains, d) for d in budgets}
    return {d: [retained(chain, d) for chain in chains] for d in budgets}


def budget_measures(data: DepthRecords) -> dict[str, str]:
    """Panel label -> measure; tokens only when some agent is a model (scripted agents have none)."""
    labels = {"Pass@1 (%)": "pass", "Score (0-100)": "score", "turns": "turns", "tool calls": "tool calls"}
    if not all(agent.scripted for agent in data.agents.values()):
        labels["tokens (M)"] = "tokens"
    return labels


def budget_panels(cfg: DictConfig, data: DepthRecords, historical: bool) -> dict[str, PerBudget]:
    """Per panel and agent, the per-budget values of budgets 0..``scaling.depth_cap``."""
    budgets = range(cfg.scaling.depth_cap + 1)
    return {
        label: {
            agent_label(key, agent, cfg.scaling.target): per_budget(
                measure_chains(cfg, data, key, measure), budgets, historical
            )
            for key, agent in data.agents.items()
        }
        for label, measure in budget_measures(data).items()
    }


def budget_figure(cfg: DictConfig, data: DepthRecords, *, historical: bool) -> Figure:
    """Figure 4 (historical means, termination rates) or Figure A1 (current retained states)."""
    name = "Figure 4: historical means" if historical else "Figure A1: current retained states"
    return budget_curves(
        budget_panels(cfg, data, historical),
        title=f"{name} by depth budget ({cfg.benchmark.name}; lines: means, shading: IQR)",
        limits={"turns": cfg.agent_loop.max_turns},
        termination=termination_rates(data.lineages) if historical else None,
    )


def caps_figure(cfg: DictConfig, data: DepthRecords) -> Figure:
    """Figure A4: Pass@1 and Score per depth cap, one line pair per agent."""
    caps = depth_caps(cfg)
    threshold = metric_settings(cfg).threshold
    series = {
        agent_label(key, agent, cfg.scaling.target): {
            "Pass@1": [100 * fmean(pass_flags(data.current(key, "score", c), threshold)) for c in caps],
            "Score": [100 * fmean(data.current(key, "score", c)) for c in caps],
        }
        for key, agent in data.agents.items()
    }
    return caps_curves(caps, series, title=f"Figure A4 ({cfg.benchmark.name}): performance across depth caps")


def ablation_dumbbells(cfg: DictConfig, data: AblationRecords, agent: str) -> Figure:
    """Figure A5 for one agent: per-task scores, full RES control (filled) vs ablation (hollow)."""
    pairs = [(c, CONTROLS[c]) for c in ("without_dependencies", "without_inheritance", "basic_library")]
    panels = [
        (
            LABELS[control],
            LABELS[ablation],
            [100 * r.score for r in data.records[(agent, control)]],
            [100 * r.score for r in data.records[(agent, ablation)]],
        )
        for ablation, control in pairs
        if ablation in data.conditions
    ]
    return dumbbells(
        data.tasks,
        panels,
        threshold=100 * metric_settings(cfg).threshold,
        title=(
            f"Figure A5, {agent_label(agent, data.agents[agent], cfg.scaling.target)}: "
            "per-task effect of each intervention"
        ),
    )
