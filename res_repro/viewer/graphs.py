"""Graphs as inline SVG, laid out by Graphviz's ``dot`` as the figures are
(:mod:`res_repro.reporting.graph_layout`): a lineage as a tree of its nodes (rejected candidates under
their parent), and an environment's dependency graph coloured by the family of the change behind each
node, as Figure 6 draws it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from res_repro.reporting.graph_layout import FONT_SIZE, Layout, layout
from res_repro.reporting.graph_style import ENDPOINT_COLOUR, FILL_ALPHA, graph_edges, node_colour
from res_repro.res.graph import DependencyGraph, Edge
from res_repro.viewer.changes import Change

PX = 96  # pixels per inch of the layout
MARGIN = 8  # pixels around the drawing
REJECTED_COLOUR = "#b3261e"


@dataclass(frozen=True)
class Box:
    """How one node is drawn: its colour, a link (relative to the page), bold or dashed border."""

    colour: str = ENDPOINT_COLOUR
    href: str | None = None
    bold: bool = False
    dashed: bool = False


def _svg(drawn: Layout, boxes: dict[str, Box], title: str) -> Markup:
    """The laid-out graph as an ``<svg>`` element, its text at the size ``dot`` sized the boxes for (y is
    flipped: ``dot`` counts it upwards)."""
    width, height = drawn.width * PX + 2 * MARGIN, drawn.height * PX + 2 * MARGIN

    def x(inches: float) -> float:
        return inches * PX + MARGIN

    def y(inches: float) -> float:
        return (drawn.height - inches) * PX + MARGIN

    parts = [
        f'<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-size="{FONT_SIZE / 72 * PX:.2f}" '
        f'role="img" aria-label="{escape(title)}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
    ]
    for edge in drawn.edges:
        points = [f"{x(px):.1f},{y(py):.1f}" for px, py in edge.points]
        dash = ' stroke-dasharray="5,3"' if edge.dashed else ""
        parts.append(
            f'<path class="edge" d="M{points[0]} C{" ".join(points[1:])}" fill="none" stroke="#555"{dash} '
            'marker-end="url(#arrow)"/>'
        )
    for name, box in drawn.nodes.items():
        style = boxes.get(name, Box())
        dash = ' stroke-dasharray="4,2"' if style.dashed else ""
        node = (
            f'<g class="node"><title>{escape(name)}</title>'
            f'<rect x="{x(box.x - box.width / 2):.1f}" y="{y(box.y + box.height / 2):.1f}" '
            f'width="{box.width * PX:.1f}" height="{box.height * PX:.1f}" rx="4" fill="{style.colour}" '
            f'fill-opacity="{FILL_ALPHA}" stroke="{style.colour}" '
            f'stroke-width="{3 if style.bold else 1}"{dash}/>'
            f'<text x="{x(box.x):.1f}" y="{y(box.y):.1f}" text-anchor="middle" dominant-baseline="central">'
            f"{escape(name)}</text></g>"
        )
        parts.append(f'<a href="{escape(style.href)}">{node}</a>' if style.href else node)
    parts.append("</svg>")
    return Markup("".join(parts))


def _drawn(
    nodes: Sequence[str], edges: Sequence[tuple[str, str, bool]], boxes: dict[str, Box], title: str
) -> Markup:
    """The graph drawn, or one line saying why it cannot be (``dot`` missing)."""
    try:
        return _svg(layout(nodes, edges), boxes, title)
    except RuntimeError as exc:
        return Markup(f'<p class="note">{escape(str(exc))}</p>')


def node_label(manifest: dict[str, Any]) -> str:
    """A lineage node as the tree names it: depth, short id and its operators."""
    operators = " + ".join(a["operator"] for a in manifest["applications"]) or "seed task"
    return f"E{manifest['depth']} {manifest['node_id'][:6]}: {operators}"


def lineage_tree(
    nodes: Sequence[tuple[dict[str, Any], Sequence[dict[str, Any]]]], href: dict[str, str], title: str
) -> Markup:
    """The lineage as a tree: each node (``href`` links it) under its parent, its rejected candidates
    (dashed, red) beside it. ``nodes`` holds each manifest with the rejections under it."""
    names = {m["node_id"]: node_label(m) for m, _ in nodes}
    edges, boxes, order = [], {}, []
    for manifest, rejections in nodes:
        name = names[manifest["node_id"]]
        order.append(name)
        boxes[name] = Box(colour="#0b57d0", href=href.get(manifest["node_id"]))
        if manifest["parent_id"] in names:
            edges.append((names[manifest["parent_id"]], name, False))
        for rejection in rejections:
            steps = " + ".join(s["operator"] for s in rejection["steps"]) or "no change"
            label = f"rejected d{rejection['depth']} r{rejection['revision']}: {steps}"
            if label not in boxes:
                order.append(label)
                boxes[label] = Box(colour=REJECTED_COLOUR, dashed=True)
                edges.append((name, label, True))
    return _drawn(order, edges, boxes, title)


def dependency_graph(
    graph: dict[str, Any], changes: Sequence[Change], fresh: str | None, title: str, root: str
) -> Markup:
    """A node's dependency graph (its manifest's ``graph``) over the ``changes`` behind it: each artifact
    coloured by the family of the change that introduced it and linked to that change (``root``: the
    way from the page to the bundle's root), bold when the node ``fresh`` introduced it."""
    parsed = DependencyGraph([Edge(**e) for e in graph["edges"]])
    introduced: dict[str, Change] = {}
    for change in changes:
        for edge in change.application["edges"]:
            introduced.setdefault(edge["dependent"], change)
    families = {n: c.application["family"] for n, c in introduced.items()}
    boxes = {
        n: Box(
            colour=node_colour(n, families),
            href=f"{root}{c.href}",
            bold=c.node_id == fresh,
        )
        for n, c in introduced.items()
    }
    return _drawn(sorted(parsed.nodes), graph_edges(parsed), boxes, title)
