"""Figures: lineage graphs laid out by Graphviz with arrows ending on box borders and legends drawn as
the boxes are; the proposer-cost figure plots no timing noise for a programmatic proposer."""

from __future__ import annotations

import pytest
from matplotlib.colors import to_rgba

from res_repro.reporting.figures import FAMILY_COLOURS, lineage_graph, lineage_states, proposer_cost
from res_repro.reporting.graph_layout import dot_source, label_size, layout, parse_plain
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge

GRAPH = DependencyGraph(
    [
        Edge(OBSERVATION, GOAL, "the released task"),
        Edge(OBSERVATION, "tool:resolve_contacts_alias"),
        Edge("tool:resolve_contacts_alias", "bulk:resolve_contacts_alias_bulk", "composed:bulk"),
        Edge("bulk:resolve_contacts_alias_bulk", GOAL),
        Edge(OBSERVATION, "pages:list-opportunities"),
        Edge("pages:list-opportunities", GOAL),
    ]
)
FAMILIES = {
    "tool:resolve_contacts_alias": "resource_relations",
    "bulk:resolve_contacts_alias_bulk": "execution_dependencies",
    GOAL: "execution_dependencies",  # an edge into the goal: the goal still draws as an endpoint
}


def test_plain_output_is_read_into_boxes_and_splines():
    drawn = parse_plain(
        "graph 1 3.5 1.25\nnode a 0.5 0.6 0.9 0.3 a solid box black lightgrey\n"
        'node "b c" 3 0.6 1 0.3 "b c" solid box black lightgrey\n'
        'edge a "b c" 4 0.95 0.6 1.5 0.6 2 0.6 2.5 0.6 dashed black\nstop\n'
    )
    assert (drawn.width, drawn.height) == (3.5, 1.25)
    assert drawn.nodes["b c"].x == 3.0
    [edge] = drawn.edges
    assert (edge.tail, edge.head, edge.dashed) == ("a", "b c", True)
    assert edge.points[0] == (0.95, 0.6) and edge.points[-1] == (2.5, 0.6)


def test_dot_source_quotes_names():
    source = dot_source(['say "hi"'], [('say "hi"', "goal", False)])
    assert '"say \\"hi\\""' in source


def test_arrows_end_on_the_borders_of_boxes_that_fit_their_labels():
    edges = [(e.prerequisite, e.dependent, e.how.startswith("composed:")) for e in GRAPH.edges]
    drawn = layout(sorted(GRAPH.nodes), edges)
    for node, box in drawn.nodes.items():
        assert box.width >= label_size(node)[0] - 0.01
    for edge in drawn.edges:
        for name, (x, y) in ((edge.tail, edge.points[0]), (edge.head, edge.points[-1])):
            box = drawn.nodes[name]
            inside_x, inside_y = abs(x - box.x) / (box.width / 2), abs(y - box.y) / (box.height / 2)
            assert max(inside_x, inside_y) == pytest.approx(1.0, abs=0.05), (edge, name)
    assert [e.dashed for e in drawn.edges].count(True) == 1


def test_legend_swatches_match_the_node_boxes():
    figure = lineage_graph(GRAPH, FAMILIES, title="t")
    boxes = {tuple(p.get_facecolor()) for p in figure.axes[0].patches if hasattr(p, "get_boxstyle")}
    swatches = {tuple(p.get_facecolor()): p.get_label() for p in figure.legends[0].get_patches()}
    assert set(swatches) == boxes
    assert swatches[to_rgba(FAMILY_COLOURS["resource_relations"], 0.3)] == "resource relations"
    assert "information access" not in swatches.values()  # no node of that family


def test_lineage_states_mark_new_nodes_and_explain_the_marks():
    figure = lineage_states([("E0", DependencyGraph()), ("E1", GRAPH)], FAMILIES, title="t")
    widths = sorted({p.get_linewidth() for p in figure.axes[1].patches if hasattr(p, "get_boxstyle")})
    assert widths == [0.8, 2.0]
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert {"new at this state", "composed edge"} <= set(labels)


def test_programmatic_proposer_cost_plots_revisions_not_seconds():
    costs = [
        {"depth": 1, "executions": 2, "revisions": 1, "seconds": 0.0003},
        {"depth": 1, "executions": 4, "revisions": 3, "seconds": 0.0001},
        {"depth": 2, "executions": 1, "revisions": 0, "seconds": 0.0002},
    ]
    untimed = proposer_cost(costs, title="t", timed=False)
    [line] = untimed.axes[1].get_lines()
    assert list(line.get_ydata()) == [2.0, 0.0]
    assert untimed.axes[1].get_ylabel() == "revisions per child"
    timed = proposer_cost(costs, title="t", timed=True)
    assert list(timed.axes[1].get_lines()[0].get_ydata()) == pytest.approx([0.0002, 0.0002])
