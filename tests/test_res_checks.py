"""Each execution-grounded check rejects a deliberately broken candidate of its kind."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from task_factory import make_task
from tool_factory import make_tool_task

from res_repro.env.formats import format_of, load_task_dir
from res_repro.res.checks import check_feasibility, run_checks
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators import OPERATORS, Application


def _child(parent_dir: Path, dest: Path, operator: str, seed: int = 0):
    """Copy the parent and apply one operator; return (parent, child, applications, graph, draft)."""
    shutil.copytree(parent_dir, dest)
    parent = load_task_dir(parent_dir)
    draft = format_of(parent).draft(dest)
    op = OPERATORS[operator]
    params = op.propose(draft, DependencyGraph(), random.Random(seed))
    assert params is not None
    edges = op.apply(draft, params, DependencyGraph())
    draft.save()
    applications = [Application(op.name, op.family.value, params, tuple(edges))]
    return parent, load_task_dir(dest), applications, DependencyGraph().extend(edges), draft


def _failed(results) -> dict[str, str]:
    return {r.name: r.detail for r in results if not r.passed}


def test_a_good_candidate_passes_every_check(tmp_path):
    parent, child, apps, graph, draft = _child(
        make_tool_task(tmp_path / "p"), tmp_path / "c", "require_token"
    )
    results = run_checks(parent, child, apps, graph, draft, backend="local")
    assert _failed(results) == {}
    assert [r.name for r in results] == [
        "applied",
        "dependencies_feasible",
        "objective_untouched",
        "reference_passes",
        "nop_fails",
        "parent_reference_fails",
    ]


def test_touching_the_grader_is_rejected(tmp_path):
    parent, child, apps, graph, draft = _child(
        make_tool_task(tmp_path / "p"), tmp_path / "c", "require_token"
    )
    grader = child.path / "grader.py"
    grader.write_text(grader.read_text().replace('"weight": 3', '"weight": 4'))
    failed = _failed(run_checks(parent, load_task_dir(child.path), apps, graph, draft, backend="local"))
    assert "objective_untouched" in failed


def test_an_updated_reference_that_fails_is_rejected(tmp_path):
    parent, child, apps, graph, draft = _child(
        make_tool_task(tmp_path / "p"), tmp_path / "c", "require_token"
    )
    (child.path / "solution" / "adapters.json").write_text("[]\n")  # forget how to obtain the token
    failed = _failed(run_checks(parent, load_task_dir(child.path), apps, graph, draft, backend="local"))
    assert "reference_passes" in failed


def test_a_candidate_that_nop_passes_is_rejected(tmp_path):
    parent, child, apps, graph, draft = _child(make_task(tmp_path / "p"), tmp_path / "c", "archive_inputs")
    (child.path / "environment" / "workspace" / "out.txt").write_text(
        "done\n"
    )  # the change leaked the answer
    failed = _failed(run_checks(parent, load_task_dir(child.path), apps, graph, draft, backend="local"))
    assert "nop_fails" in failed


def test_a_change_that_does_not_matter_is_rejected(tmp_path):
    # The task never reads its workspace, so archiving the README leaves the parent's reference working.
    parent, child, apps, graph, draft = _child(make_task(tmp_path / "p"), tmp_path / "c", "archive_inputs")
    failed = _failed(run_checks(parent, child, apps, graph, draft, backend="local"))
    assert set(failed) == {"parent_reference_fails"}
    assert "passed" in failed["parent_reference_fails"]


def test_a_change_that_is_not_there_is_rejected(tmp_path):
    parent, child, apps, graph, draft = _child(make_tool_task(tmp_path / "p"), tmp_path / "c", "paginate")
    draft.config.middleware.clear()
    failed = _failed(run_checks(parent, child, apps, graph, draft, backend="local"))
    assert "applied" in failed


@pytest.mark.parametrize(
    ("edges", "needle"),
    [
        ([Edge(OBSERVATION, "a"), Edge("a", "b"), Edge("b", "a")], "cycle: a -> b -> a"),
        (
            [Edge("vault", "token"), Edge("token", GOAL)],
            "unreachable from the observation: ['token', 'vault']",
        ),
    ],
)
def test_cyclic_or_unreachable_dependencies_are_rejected(edges, needle):
    result = check_feasibility(DependencyGraph().extend(edges))
    assert not result.passed
    assert needle in result.detail


def test_the_graph_of_a_released_task_is_feasible():
    graph = DependencyGraph()
    assert check_feasibility(graph).passed
    assert graph.depth() == 1
