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
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure

from res_repro.reporting.graph_layout import FONT_SIZE, Layout, layout
from res_repro.reporting.graph_style import (
    ENDPOINT_COLOUR,
    FAMILY_COLOURS,
    FILL_ALPHA,
    graph_edges,
    node_colour,
)
from res_repro.res.graph import DependencyGraph

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


def proposer_cost(
    costs: Sequence[Mapping[str, float]], *, title: str, timed: bool, pool_from: int = 5
) -> Figure:
    """Mean proposer executions (bars) per child by depth, with a line of mean seconds when ``timed`` (a
    model proposer, whose time is a cost) or else of mean revisions (a programmatic proposer takes
    under a millisecond, and plotting that would plot timing noise); depths from ``pool_from`` on are
    pooled into one dark bar. ``costs`` holds one dict per child with its ``depth``."""
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
    key, label = ("seconds", "proposer time per child (s)") if timed else ("revisions", "revisions per child")
    line.plot(
        range(len(labels)),
        [np.mean([c[key] for c in groups[g]]) for g in labels],
        color="#d62728",
        marker="o",
    )
    line.set_ylabel(label, color="#d62728")
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    return figure


MARGIN, TITLE_SPACE, LEGEND_SPACE = 0.3, 0.5, 0.7  # inches around a graph, above it, below it


def _draw_graph(axis, drawn: Layout, families: Mapping[str, str], fresh: frozenset[str]) -> None:
    """Draw a laid-out graph on ``axis`` (one data unit per inch): boxes filled in their family's colour,
    ``fresh`` ones with a bold border, arrows along ``dot``'s splines ending on the boxes' borders."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
    from matplotlib.path import Path as CurvePath

    for edge in drawn.edges:
        codes = [CurvePath.MOVETO] + [CurvePath.CURVE4] * (len(edge.points) - 1)
        axis.add_patch(
            FancyArrowPatch(
                path=CurvePath(edge.points, codes),
                arrowstyle="-|>",
                mutation_scale=8,
                linestyle="--" if edge.dashed else "-",
                color="#555555",
                linewidth=0.8,
            )
        )
    for node, box in drawn.nodes.items():
        colour = node_colour(node, families)
        axis.add_patch(
            FancyBboxPatch(
                (box.x - box.width / 2, box.y - box.height / 2),
                box.width,
                box.height,
                boxstyle="round,pad=0,rounding_size=0.05",
                facecolor=to_rgba(colour, FILL_ALPHA),
                edgecolor=colour,
                linewidth=2.0 if node in fresh else 0.8,
            )
        )
        axis.text(box.x, box.y, node, ha="center", va="center", fontsize=FONT_SIZE)
    axis.axis("off")


def _legend(figure: Figure, families: Mapping[str, str], *, states: bool) -> None:
    """A legend under the graphs whose swatches are drawn as the boxes are: each family present, the
    observation and goal, and (for a lineage) what bold borders and dashed arrows mean."""
    from matplotlib.patches import Patch

    present = [f for f in FAMILY_COLOURS if f in families.values()]
    handles = [
        Patch(
            facecolor=to_rgba(FAMILY_COLOURS[f], FILL_ALPHA),
            edgecolor=FAMILY_COLOURS[f],
            label=f.replace("_", " "),
        )
        for f in present
    ]
    handles.append(
        Patch(
            facecolor=to_rgba(ENDPOINT_COLOUR, FILL_ALPHA),
            edgecolor=ENDPOINT_COLOUR,
            label="observation, goal",
        )
    )
    if states:
        handles.append(Patch(facecolor="white", edgecolor="black", linewidth=2.0, label="new at this state"))
    handles.append(plt.Line2D([], [], color="#555555", linestyle="--", label="composed edge"))
    figure.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=FONT_SIZE, frameon=False)


def _graph_figure(layouts: Sequence[Layout], columns: int, titles: Sequence[str]) -> tuple[Figure, list]:
    """A figure of one axis per layout on a grid, each at one data unit per inch so that the labels fit
    the boxes ``dot`` sized for them."""
    cell_w = max(drawn.width for drawn in layouts) + 2 * MARGIN
    cell_h = max(drawn.height for drawn in layouts) + 2 * MARGIN + (TITLE_SPACE if any(titles) else 0)
    rows = -(-len(layouts) // columns)
    width, height = cell_w * columns, cell_h * rows + TITLE_SPACE + LEGEND_SPACE
    figure = plt.figure(figsize=(width, height))
    axes = []
    for index, (drawn, label) in enumerate(zip(layouts, titles, strict=True)):
        row, column = divmod(index, columns)
        box_h = cell_h - (TITLE_SPACE if any(titles) else 0)
        bottom = LEGEND_SPACE + (rows - 1 - row) * cell_h
        axis = figure.add_axes((column * cell_w / width, bottom / height, cell_w / width, box_h / height))
        axis.set_xlim(-(cell_w - drawn.width) / 2, drawn.width + (cell_w - drawn.width) / 2)
        axis.set_ylim(-(box_h - drawn.height) / 2, drawn.height + (box_h - drawn.height) / 2)
        if label:
            axis.set_title(label, fontsize=9)
        axes.append(axis)
    return figure, axes


def _layout_of(graph: DependencyGraph) -> Layout:
    return layout(sorted(graph.nodes), graph_edges(graph))


def lineage_graph(graph: DependencyGraph, families: Mapping[str, str], *, title: str) -> Figure:
    """The dependency graph of one environment, laid out by Graphviz from the observation to the goal.

    ``families`` maps a node to the family of the change that introduced it (for its colour).
    """
    drawn = _layout_of(graph)
    figure, [axis] = _graph_figure([drawn], 1, [""])
    _draw_graph(axis, drawn, families, frozenset())
    _legend(figure, {n: f for n, f in families.items() if n in graph.nodes}, states=False)
    figure.suptitle(title, fontsize=10)
    return figure


def lineage_states(
    states: Sequence[tuple[str, DependencyGraph]], families: Mapping[str, str], *, title: str
) -> Figure:
    """One lineage E0..Ek drawn as its dependency graphs (nodes new at a state in bold).

    ``states`` holds ``(label, graph)`` per node, root first; ``families`` colours nodes by the family of
    the change that introduced them.
    """
    layouts = [_layout_of(graph) for _, graph in states]
    figure, axes = _graph_figure(layouts, min(2, len(states)), [label for label, _ in states])
    seen: frozenset[str] = frozenset()
    for axis, drawn, (_, graph) in zip(axes, layouts, states, strict=True):
        _draw_graph(axis, drawn, families, frozenset(graph.nodes) - seen if seen else frozenset())
        seen = frozenset(graph.nodes)
    nodes = set().union(*(graph.nodes for _, graph in states))
    _legend(figure, {n: f for n, f in families.items() if n in nodes}, states=True)
    figure.suptitle(title, fontsize=10)
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
