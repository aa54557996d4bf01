"""Graph layout by Graphviz's ``dot``: node boxes and edge splines in inches, for matplotlib to draw.

``dot`` (the Debian package ``graphviz``, installed by ``make system-deps``) places the nodes in ranks
with few crossings and routes each edge as a spline that ends on its nodes' borders, so arrows never run
under labels. Node boxes are sized from the labels as matplotlib renders them, at ``FONT_SIZE``.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from matplotlib.font_manager import FontProperties
from matplotlib.textpath import TextToPath

FONT_SIZE = 8.0  # points; the drawn labels use the same size
PAD = (0.16, 0.12)  # inches added to a label's width and height


@dataclass(frozen=True)
class NodeBox:
    """A node's box: centre and size in inches."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class EdgePath:
    """An edge's route: the control points (inches) of a cubic Bézier spline from tail to head."""

    tail: str
    head: str
    points: tuple[tuple[float, float], ...]
    dashed: bool


@dataclass(frozen=True)
class Layout:
    """A laid-out graph: its size in inches, its node boxes and its edge routes."""

    width: float
    height: float
    nodes: dict[str, NodeBox]
    edges: list[EdgePath]


@cache
def label_size(label: str) -> tuple[float, float]:
    """The box a label needs at ``FONT_SIZE``, in inches: the width matplotlib lays the text out in (its
    font's advances, read without building the glyphs' outlines, which cost forty times more)."""
    width, _, _ = TextToPath().get_text_width_height_descent(
        label, FontProperties(size=FONT_SIZE), ismath=False
    )
    return width / 72 + PAD[0], FONT_SIZE / 72 + PAD[1]


def _quoted(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot_source(nodes: Sequence[str], edges: Sequence[tuple[str, str, bool]]) -> str:
    """The graph in the DOT language, left to right, boxes of fixed size, ``(tail, head, dashed)`` edges
    without arrowheads (the drawing adds them, so a spline ends on the border it points at)."""
    lines = [
        "digraph G {",
        "rankdir=LR; ranksep=0.35; nodesep=0.18;",
        "node [shape=box, fixedsize=true];",
        "edge [arrowhead=none];",
    ]
    for node in nodes:
        width, height = label_size(node)
        lines.append(f"{_quoted(node)} [width={width:.3f}, height={height:.3f}];")
    for tail, head, dashed in edges:
        lines.append(f"{_quoted(tail)} -> {_quoted(head)}{' [style=dashed]' if dashed else ''};")
    lines.append("}")
    return "\n".join(lines)


def parse_plain(text: str) -> Layout:
    """Read ``dot -Tplain`` output (``graph``, ``node`` and ``edge`` lines; sizes in inches)."""
    width = height = 0.0
    nodes: dict[str, NodeBox] = {}
    edges: list[EdgePath] = []
    for line in text.splitlines():
        fields = shlex.split(line)
        if not fields:
            continue
        if fields[0] == "graph":
            width, height = float(fields[2]), float(fields[3])
        elif fields[0] == "node":
            nodes[fields[1]] = NodeBox(*(float(v) for v in fields[2:6]))
        elif fields[0] == "edge":
            count = int(fields[3])
            values = [float(v) for v in fields[4 : 4 + 2 * count]]
            points = tuple(zip(values[::2], values[1::2], strict=True))
            edges.append(EdgePath(fields[1], fields[2], points, fields[-2] == "dashed"))
    return Layout(width, height, nodes, edges)


def layout(nodes: Sequence[str], edges: Sequence[tuple[str, str, bool]]) -> Layout:
    """Lay out the graph with ``dot``; a missing Graphviz is an error that says how to install it."""
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError(
            "Graphviz's `dot` is not installed: `make system-deps` installs it (package graphviz)"
        )
    result = subprocess.run(
        [dot, "-Tplain"], input=dot_source(nodes, edges), capture_output=True, text=True, check=True
    )
    return parse_plain(result.stdout)
