"""Figures with the paper's semantics: budget curves (means with interquartile shading, the turn limit
dashed, termination rates), current vs historical means, depth caps, per-task dumbbells, proposer cost
per depth, and lineage dependency graphs. Each function draws from plain numbers; pipelines compute them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph

FAMILY_COLOURS = {
    "information_access": "#1f77b4",
    "resource_relations": "#2ca02c",
    "execution_dependencies": "#d62728",
}


PerBudget = Mapping[str, Mapping[int, Sequence[float]]]
"""agent -> budget -> one value per seed."""

CONTROL_COLOUR, ABLATION_COLOUR = "#1f77b4", "#ff7f0e"
STOP_COLOURS = {"target_failed": "#d62728", "no_valid_child": "#9467bd", "depth_cap": "#7f7f7f"}


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(np.percentile(array, 25)), float(np.percentile(array, 75))


def _grid(count: int, width: float = 3.6, height: float = 3.2) -> tuple[Figure, list]:
    columns = min(count, 3)
    rows = -(-count // columns)
    figure, axes = plt.subplots(
        rows, columns, figsize=(width * columns + 0.6, height * rows + 0.6), squeeze=False
    )
    flat = list(axes.flat)
    for axis in flat[count:]:
        axis.axis("off")
    return figure, flat[:count]


def budget_curves(
    panels: Mapping[str, PerBudget],
    *,
    title: str,
    limits: Mapping[str, float] | None = None,
    termination: Mapping[str, Mapping[int, float]] | None = None,
) -> Figure:
    """One panel per measure: per-agent means over seeds (lines) with the interquartile range (shading).

    ``limits`` draws a dashed horizontal line on the named panels (the turn limit); ``termination``
    (stop reason -> budget -> share of chains at that depth that stop there) adds stacked bars.
    """
    figure, axes = _grid(len(panels) + (termination is not None))
    for axis, (label, series) in zip(axes, panels.items(), strict=False):
        for agent, by_budget in series.items():
            budgets = sorted(by_budget)
            stats = [_quartiles(by_budget[d]) for d in budgets]
            axis.plot(budgets, [s[0] for s in stats], marker="o", markersize=3, label=agent)
            axis.fill_between(budgets, [s[1] for s in stats], [s[2] for s in stats], alpha=0.2)
        if limits and label in limits:
            axis.axhline(limits[label], linestyle="--", color="grey", label=f"limit ({limits[label]:g})")
        axis.set_xlabel("depth budget d")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    if termination is not None:
        axis = axes[-1]
        bottom: dict[int, float] = {}
        for reason, rates in termination.items():
            budgets = sorted(rates)
            heights = [100 * rates[d] for d in budgets]
            axis.bar(
                budgets,
                heights,
                bottom=[bottom.get(d, 0.0) for d in budgets],
                color=STOP_COLOURS.get(reason, "#bcbd22"),
                label=reason.replace("_", " "),
            )
            for d, h in zip(budgets, heights, strict=True):
                bottom[d] = bottom.get(d, 0.0) + h
        axis.set_xlabel("depth d")
        axis.set_ylabel("chains stopping at d (% of those reaching d)")
        axis.set_ylim(0, 105)
        axis.legend(fontsize=7)
        axis.grid(alpha=0.3, axis="y")
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def current_vs_historical(
    panels: Mapping[str, Mapping[str, tuple[PerBudget, PerBudget]]], *, title: str
) -> Figure:
    """Per measure, each agent's current retained-state mean (dashed) and historical mean (solid).

    ``panels[measure][agent]`` is ``(current, historical)``, each budget -> per-seed values.
    """
    figure, axes = _grid(len(panels))
    for axis, (label, series) in zip(axes, panels.items(), strict=True):
        for index, (agent, (current, historical)) in enumerate(series.items()):
            colour = f"C{index}"
            budgets = sorted(current)
            axis.plot(
                budgets,
                [np.mean(historical[d]) for d in budgets],
                color=colour,
                marker="o",
                markersize=3,
                label=f"{agent} historical",
            )
            axis.plot(
                budgets,
                [np.mean(current[d]) for d in budgets],
                color=colour,
                linestyle="--",
                label=f"{agent} current",
            )
        axis.set_xlabel("depth budget d")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    axes[0].legend(fontsize=6)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def budget_distributions(panels: Mapping[str, PerBudget], budgets: Sequence[int], *, title: str) -> Figure:
    """Per measure, box plots of the per-seed values at the selected budgets, one box per agent."""
    figure, axes = _grid(len(panels), width=4.6)
    for axis, (label, series) in zip(axes, panels.items(), strict=True):
        agents = list(series)
        width = 0.8 / max(1, len(agents))
        for index, agent in enumerate(agents):
            positions = [b + (index - (len(agents) - 1) / 2) * width for b in range(len(budgets))]
            boxes = axis.boxplot(
                [series[agent][d] for d in budgets],
                positions=positions,
                widths=width * 0.9,
                patch_artist=True,
                showfliers=False,
            )
            for box in boxes["boxes"]:
                box.set(facecolor=f"C{index}", alpha=0.5)
            axis.plot([], [], color=f"C{index}", linewidth=6, alpha=0.5, label=agent)
        axis.set_xticks(range(len(budgets)), [str(b) for b in budgets])
        axis.set_xlabel("depth budget d")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3, axis="y")
    axes[0].legend(fontsize=7)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def caps_curves(
    caps: Sequence[int], series: Mapping[str, Mapping[str, Sequence[float]]], *, title: str
) -> Figure:
    """Pass@1 (orange) and Score (blue) per depth cap on a 0-100 scale; one line style per agent."""
    figure, axis = plt.subplots(figsize=(8.6, 4))
    styles = ["-", "--", ":", "-."]
    colours = {"Pass@1": "#ff7f0e", "Score": "#1f77b4"}
    positions = range(len(caps))
    for index, (agent, measures) in enumerate(series.items()):
        for measure, values in measures.items():
            axis.plot(
                positions,
                values,
                marker="o",
                color=colours.get(measure),
                linestyle=styles[index % 4],
                label=f"{measure}, {agent}",
            )
    axis.set_xticks(list(positions), [str(c) for c in caps])
    axis.set_xlabel("depth cap")
    axis.set_ylabel("0-100")
    axis.set_ylim(-5, 105)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    axis.set_title(title, fontsize=10)
    figure.tight_layout()
    return figure


def dumbbells(
    tasks: Sequence[str],
    panels: Sequence[tuple[str, str, Sequence[float], Sequence[float]]],
    *,
    threshold: float,
    title: str,
) -> Figure:
    """Per-task scores: the full RES control (filled) and the ablation (hollow) joined by a segment.

    Each panel is ``(control label, ablation label, control scores, ablation scores)`` on a 0-100 scale;
    the dashed line marks the success threshold.
    """
    figure, axes = plt.subplots(
        1, len(panels), figsize=(4.2 * len(panels), 0.32 * len(tasks) + 2.2), sharey=True, squeeze=False
    )
    rows = np.arange(len(tasks))[::-1]
    for axis, (control_label, ablation_label, control, ablation) in zip(axes[0], panels, strict=True):
        for y, a, b in zip(rows, control, ablation, strict=True):
            axis.plot([a, b], [y, y], color="#bbbbbb", zorder=1)
        axis.scatter(control, rows, color=CONTROL_COLOUR, zorder=2, label=control_label)
        axis.scatter(
            ablation, rows, facecolors="none", edgecolors=ABLATION_COLOUR, zorder=3, label=ablation_label
        )
        axis.axvline(threshold, linestyle="--", color="grey")
        axis.set_xlim(-5, 105)
        axis.set_xlabel("native score (0-100)")
        axis.set_title(f"{ablation_label} vs {control_label}", fontsize=9)
        axis.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=2)
        axis.grid(alpha=0.3, axis="x")
    axes[0][0].set_yticks(rows, list(tasks), fontsize=7)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def proposer_cost(costs: Sequence[Mapping[str, float]], *, title: str, pool_from: int = 5) -> Figure:
    """Mean proposer executions (bars) and seconds (line) per child by depth; depths from ``pool_from``
    on are pooled into one dark bar. ``costs`` holds one dict per child with its ``depth``."""
    groups: dict[str, list[Mapping[str, float]]] = {}
    for cost in sorted(costs, key=lambda c: c["depth"]):
        depth = int(cost["depth"])
        groups.setdefault(str(depth) if depth < pool_from else f"{pool_from}+", []).append(cost)
    labels = list(groups)
    figure, bars = plt.subplots(figsize=(6.4, 4))
    executions = [np.mean([c["executions"] for c in groups[g]]) for g in labels]
    colours = ["#08519c" if g.endswith("+") else "#9ecae1" for g in labels]
    bars.bar(range(len(labels)), executions, color=colours, label="proposals per child")
    for x, group in enumerate(labels):
        bars.annotate(f"n={len(groups[group])}", (x, 0.02), ha="center", va="bottom", fontsize=7)
    bars.set_xticks(range(len(labels)), labels)
    bars.set_xlabel("depth of the child")
    bars.set_ylabel("outer proposer executions per child")
    line = bars.twinx()
    line.plot(
        range(len(labels)),
        [1000 * np.mean([c["seconds"] for c in groups[g]]) for g in labels],
        color="#d62728",
        marker="o",
    )
    line.set_ylabel("proposer time per child (ms)", color="#d62728")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def _layers(graph: DependencyGraph) -> dict[str, int]:
    """Each node's longest distance from the observation (the goal goes last)."""
    successors: dict[str, list[str]] = {}
    for edge in graph.edges:
        successors.setdefault(edge.prerequisite, []).append(edge.dependent)
    level = {OBSERVATION: 0}
    frontier = [OBSERVATION]
    for _ in range(len(graph.nodes)):
        nxt = []
        for node in frontier:
            for child in successors.get(node, ()):
                if level.get(child, -1) < level[node] + 1:
                    level[child] = level[node] + 1
                    nxt.append(child)
        frontier = nxt
    level[GOAL] = 1 + max((depth for node, depth in level.items() if node != GOAL), default=0)
    return level


def _draw_graph(axis, graph: DependencyGraph, families: Mapping[str, str], fresh: frozenset[str]) -> None:
    """Draw ``graph`` on ``axis``, layered by prerequisite depth; ``fresh`` nodes get a bold outline."""
    level = _layers(graph)
    columns: dict[int, list[str]] = {}
    for node in sorted(graph.nodes):
        columns.setdefault(level.get(node, 0), []).append(node)
    position = {
        node: (depth, index - (len(nodes) - 1) / 2)
        for depth, nodes in columns.items()
        for index, node in enumerate(nodes)
    }
    height = max(len(nodes) for nodes in columns.values())
    into_goal = sum(edge.dependent == GOAL for edge in graph.edges)
    for edge in graph.edges:
        if edge.prerequisite == OBSERVATION and edge.dependent == GOAL and into_goal > 1:
            continue  # the released task's direct edge only clutters a scaled graph
        (x0, y0), (x1, y1) = position[edge.prerequisite], position[edge.dependent]
        style = "dashed" if edge.how.startswith("composed:") else "solid"
        axis.annotate(
            "",
            xy=(x1, y1),
            xytext=(x0, y0),
            arrowprops={"arrowstyle": "->", "linestyle": style, "alpha": 0.6},
        )
    for node, (x, y) in position.items():
        colour = FAMILY_COLOURS.get(families.get(node, ""), "#7f7f7f")
        bold = node in fresh
        axis.text(
            x,
            y,
            node,
            ha="center",
            va="center",
            fontsize=7,
            fontweight="bold" if bold else "normal",
            bbox={"boxstyle": "round", "fc": colour, "alpha": 0.25, "lw": 2 if bold else 0.8},
        )
    axis.set_xlim(-0.7, max(columns) + 0.7)
    axis.set_ylim(-height / 2 - 0.7, height / 2 + 0.7)
    axis.axis("off")


def _family_legend(axis) -> None:
    handles = [
        plt.Line2D([], [], color=c, marker="s", linestyle="", label=f.replace("_", " "))
        for f, c in FAMILY_COLOURS.items()
    ]
    axis.legend(handles=handles, fontsize=7, loc="lower right")


def lineage_graph(graph: DependencyGraph, families: Mapping[str, str], *, title: str) -> Figure:
    """The dependency graph of one environment, nodes layered by prerequisite depth.

    ``families`` maps a node to the family of the change that introduced it (for its colour).
    """
    level = _layers(graph)
    width = max(level.values()) + 1
    height = max(sum(1 for v in level.values() if v == d) for d in range(width))
    figure, axis = plt.subplots(figsize=(2.6 * width + 2, 0.9 * height + 2))
    _draw_graph(axis, graph, families, frozenset())
    _family_legend(axis)
    axis.set_title(title)
    figure.tight_layout()
    return figure


def lineage_states(
    states: Sequence[tuple[str, DependencyGraph]], families: Mapping[str, str], *, title: str
) -> Figure:
    """One lineage E0..Ek drawn as its dependency graphs side by side (nodes new at a state in bold).

    ``states`` holds ``(label, graph)`` per node, root first; ``families`` colours nodes by the family of
    the change that introduced them.
    """
    columns = min(2, len(states))
    rows = -(-len(states) // columns)
    width = max(max(_layers(graph).values()) + 1 for _, graph in states)
    figure, axes = plt.subplots(
        rows, columns, figsize=(2.4 * width * columns, 3.2 * rows + 0.6), squeeze=False
    )
    for axis in list(axes.flat)[len(states) :]:
        axis.axis("off")
    seen: frozenset[str] = frozenset()
    for axis, (label, graph) in zip(axes.flat, states, strict=False):
        _draw_graph(axis, graph, families, frozenset(graph.nodes) - seen if seen else frozenset())
        axis.set_title(label, fontsize=9)
        seen = frozenset(graph.nodes)
    _family_legend(axes.flat[len(states) - 1])
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


def save(figure: Figure, folder: Path, name: str, *, close: bool = True) -> list[Path]:
    """Write the figure as PNG and PDF (with fixed metadata, so reruns give the same files)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.png", folder / f"{name}.pdf"]
    for path in paths:
        metadata = {"Software": None} if path.suffix == ".png" else {"CreationDate": None, "Producer": None}
        figure.savefig(path, dpi=150, metadata=metadata)
    if close:
        plt.close(figure)
    return paths
