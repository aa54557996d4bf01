"""Figures with the paper's semantics: depth curves with interquartile shading, the turn limit as a
dashed line, proposer cost per depth, and a lineage's dependency graph.
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


def _quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(np.percentile(array, 25)), float(np.percentile(array, 75))


def depth_curves(
    series: Mapping[str, Mapping[int, Sequence[tuple[bool, int, int]]]], *, turn_limit: int | None, title: str
) -> Figure:
    """Pass rate, turns and tool calls per depth for each agent; means with interquartile shading.

    ``series[agent][depth]`` lists one ``(passed, turns, tool_calls)`` per seed task.
    """
    figure, (rate_ax, turns_ax, calls_ax) = plt.subplots(1, 3, figsize=(13, 3.8))
    for agent, by_depth in series.items():
        depths = sorted(by_depth)
        rates = [100 * np.mean([p for p, _, _ in by_depth[d]]) for d in depths]
        rate_ax.plot(depths, rates, marker="o", label=agent)
        for axis, column in ((turns_ax, 1), (calls_ax, 2)):
            stats = [_quartiles([row[column] for row in by_depth[d]]) for d in depths]
            axis.plot(depths, [s[0] for s in stats], marker="o", label=agent)
            axis.fill_between(depths, [s[1] for s in stats], [s[2] for s in stats], alpha=0.2)
    if turn_limit is not None:
        turns_ax.axhline(turn_limit, linestyle="--", color="grey", label="turn limit")
    for axis, label in ((rate_ax, "pass rate (%)"), (turns_ax, "turns"), (calls_ax, "tool calls")):
        axis.set_xlabel("RES depth")
        axis.set_ylabel(label)
        axis.grid(alpha=0.3)
    rate_ax.set_ylim(-5, 105)
    rate_ax.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    return figure


def proposer_cost(costs: Mapping[int, Sequence[Mapping[str, float]]], *, title: str) -> Figure:
    """Mean proposer executions (bars) and seconds (line) per child, by depth."""
    depths = sorted(costs)
    figure, bars = plt.subplots(figsize=(6, 3.8))
    executions = [np.mean([c["executions"] for c in costs[d]]) for d in depths]
    bars.bar(depths, executions, color="#9ecae1", label="proposals per child")
    bars.set_xlabel("depth")
    bars.set_ylabel("proposals per child")
    line = bars.twinx()
    line.plot(
        depths, [np.mean([c["seconds"] for c in costs[d]]) for d in depths], color="#d62728", marker="o"
    )
    line.set_ylabel("proposer seconds per child")
    figure.suptitle(title)
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


def lineage_graph(graph: DependencyGraph, families: Mapping[str, str], *, title: str) -> Figure:
    """The dependency graph of one environment, nodes layered by prerequisite depth.

    ``families`` maps a node to the family of the change that introduced it (for its colour).
    """
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
    figure, axis = plt.subplots(figsize=(2.6 * len(columns) + 2, 0.9 * height + 2))
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
        axis.text(
            x,
            y,
            node,
            ha="center",
            va="center",
            fontsize=7,
            bbox={"boxstyle": "round", "fc": colour, "alpha": 0.25},
        )
    axis.set_xlim(-0.7, max(columns) + 0.7)
    axis.set_ylim(-height / 2 - 0.7, height / 2 + 0.7)
    axis.axis("off")
    handles = [
        plt.Line2D([], [], color=c, marker="s", linestyle="", label=f) for f, c in FAMILY_COLOURS.items()
    ]
    axis.legend(handles=handles, fontsize=7, loc="lower right")
    axis.set_title(title)
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
