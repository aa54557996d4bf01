"""How a dependency graph is drawn, by the figures and the viewer alike: the edges shown, and each node's
colour (the family of the change that introduced it; grey for the observation and the goal)."""

from __future__ import annotations

from collections.abc import Mapping

from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph

FAMILY_COLOURS = {
    "information_access": "#1f77b4",
    "resource_relations": "#2ca02c",
    "execution_dependencies": "#d62728",
}
ENDPOINT_COLOUR = "#7f7f7f"  # the observation and the goal, which no change introduces
FILL_ALPHA = 0.3


def graph_edges(graph: DependencyGraph) -> list[tuple[str, str, bool]]:
    """``(prerequisite, dependent, composed)`` per edge; the released task's direct observation-goal
    edge is left out once other edges lead into the goal (it only clutters a scaled graph)."""
    into_goal = sum(edge.dependent == GOAL for edge in graph.edges)
    return [
        (edge.prerequisite, edge.dependent, edge.how.startswith("composed:"))
        for edge in graph.edges
        if not (edge.prerequisite == OBSERVATION and edge.dependent == GOAL and into_goal > 1)
    ]


def node_colour(node: str, families: Mapping[str, str]) -> str:
    """The colour of ``node``: its family's (``families`` maps a node to the family of the change that
    introduced it), or the endpoints' grey."""
    if node in (OBSERVATION, GOAL):
        return ENDPOINT_COLOUR
    return FAMILY_COLOURS.get(families.get(node, ""), ENDPOINT_COLOUR)
