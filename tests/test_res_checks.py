"""Each execution-grounded check rejects a deliberately broken candidate of its kind."""

from __future__ import annotations

import random
import shutil
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest
from episode_records import episode_record
from task_factory import make_task
from tool_factory import make_tool_task

from res_repro.env.formats import format_of, load_task_dir, task_objective
from res_repro.res import checks
from res_repro.res.checks import CheckResult, check_applied, check_feasibility, check_validity, run_checks
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


def test_a_change_that_is_not_there_is_rejected_without_running_anything(tmp_path, monkeypatch):
    parent, child, apps, graph, draft = _child(make_tool_task(tmp_path / "p"), tmp_path / "c", "paginate")
    draft.config.middleware.clear()
    monkeypatch.setattr(checks, "run_episode", lambda *a, **k: pytest.fail("an episode ran"))
    assert run_checks(parent, child, apps, graph, draft, backend="local") == [
        CheckResult("applied", False, "paginate: no pagination layer on crm_search"),
        CheckResult("dependencies_feasible", True),
    ]


def test_infeasible_dependencies_are_rejected_without_running_anything(tmp_path, monkeypatch):
    parent, child, apps, graph, draft = _child(make_tool_task(tmp_path / "p"), tmp_path / "c", "paginate")
    cyclic = graph.extend([Edge(OBSERVATION, "a"), Edge("a", "b"), Edge("b", "a")])
    monkeypatch.setattr(checks, "run_episode", lambda *a, **k: pytest.fail("an episode ran"))
    assert run_checks(parent, child, apps, cyclic, draft, backend="local") == [
        CheckResult("applied", True),
        CheckResult("dependencies_feasible", False, "cycle: a -> b -> a"),
    ]


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
    assert result == CheckResult("dependencies_feasible", False, needle)


def test_the_graph_of_a_released_task_is_feasible():
    graph = DependencyGraph()
    assert check_feasibility(graph) == CheckResult("dependencies_feasible", True)
    assert graph.depth() == 1


def _objective_after(task_dir: Path, dest: Path, edit) -> tuple[str, str]:
    """The objective fingerprints of a task and of a copy of it after ``edit(copy_dir)``."""
    shutil.copytree(task_dir, dest)
    edit(dest)
    return task_objective(load_task_dir(task_dir)), task_objective(load_task_dir(dest))


def _write(relative: str, text: str):
    def edit(root: Path) -> None:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)

    return edit


def _replace(relative: str, old: str, new: str):
    def edit(root: Path) -> None:
        text = (root / relative).read_text()
        assert old in text
        (root / relative).write_text(text.replace(old, new))

    return edit


@pytest.mark.parametrize(
    ("relative", "edit"),
    [
        ("tests/test.sh", _replace("tests/test.sh", '= "done"', '= "finished"')),
        ("tests/expected.txt", _write("tests/expected.txt", "finished\n")),  # a verifier's data file
        ("instruction.md", _write("instruction.md", "Write the word finished into /app/out.txt.\n")),
        ("task.toml", _replace("task.toml", "[verifier]\ntimeout_sec = 30", "[verifier]\ntimeout_sec = 3")),
    ],
)
def test_every_part_of_a_harbor_objective_is_fingerprinted(tmp_path, relative, edit):
    parent = make_task(tmp_path / "p")
    (parent / "tests" / "expected.txt").write_text("done\n")
    before, after = _objective_after(parent, tmp_path / "c", edit)
    assert before != after, relative


@pytest.mark.parametrize(
    "edit",
    [
        _write("environment/workspace/notes.txt", "more context\n"),
        _replace("task.toml", "[agent]\ntimeout_sec = 60", "[agent]\ntimeout_sec = 90"),
        _write("solution/solve.sh", "#!/bin/bash\necho done | tee /app/out.txt\n"),
    ],
)
def test_a_harbor_environment_or_reference_is_not_objective(tmp_path, edit):
    before, after = _objective_after(make_task(tmp_path / "p"), tmp_path / "c", edit)
    assert before == after


@pytest.mark.parametrize(
    ("relative", "edit"),
    [
        ("grader.py", _replace("grader.py", '"weight": 3', '"weight": 4')),
        ("grader_data/expected.json", _write("grader_data/expected.json", '{"to": "it@globex.test"}\n')),
        ("task.yaml", _replace("task.yaml", "pass_threshold: 0.8", "pass_threshold: 0.5")),
        ("task.yaml", _replace("task.yaml", "prompt: Email Acme", "prompt: Email Globex")),
    ],
)
def test_every_part_of_a_tool_objective_is_fingerprinted(tmp_path, relative, edit):
    parent = make_tool_task(tmp_path / "p")
    _write("grader_data/expected.json", '{"to": "ops@acme.test"}\n')(parent)
    before, after = _objective_after(parent, tmp_path / "c", edit)
    assert before != after, relative


@pytest.mark.parametrize(
    "edit",
    [
        _write("fixtures/crm.json", '{"customers": []}\n'),
        _replace("task.yaml", "max_turns: 20", "max_turns: 30"),
        _write("solution/adapters.json", "[]\n"),
    ],
)
def test_a_tool_environment_or_reference_is_not_objective(tmp_path, edit):
    before, after = _objective_after(make_tool_task(tmp_path / "p"), tmp_path / "c", edit)
    assert before == after


@pytest.mark.parametrize("factory", [make_task, make_tool_task])
def test_a_child_saved_unchanged_is_not_applied(tmp_path, factory):
    parent = load_task_dir(factory(tmp_path / "p"))
    shutil.copytree(parent.path, tmp_path / "c")
    draft = format_of(parent).draft(tmp_path / "c")
    draft.save()  # a tool-API draft writes its (empty) reference adapters anew
    result = check_applied(parent, load_task_dir(tmp_path / "c"), [], draft)
    assert result == CheckResult("applied", False, "the child is identical to the parent")


def test_a_child_that_differs_is_applied(tmp_path):
    parent = load_task_dir(make_tool_task(tmp_path / "p"))
    shutil.copytree(parent.path, tmp_path / "c")
    draft = format_of(parent).draft(tmp_path / "c")
    draft.fixtures["crm"]["customers"].append({"id": "C3", "name": "Initech", "email": "x@initech.test"})
    draft.save()
    assert check_applied(parent, load_task_dir(tmp_path / "c"), [], draft) == CheckResult("applied", True)


def _record(passed: bool, score: float, stop_reason: str = "answered", error: str | None = None):
    return SimpleNamespace(
        passed=passed,
        score=score,
        stop_reason=stop_reason,
        error=error,
        infrastructure_failure=stop_reason != "answered",
        messages=[],
        grade=None,
        answer=None,
    )


@pytest.fixture
def scripted_runs(monkeypatch):
    """The validity check's runs scripted: ``outcomes`` answers each (reference, nop, parent's reference,
    and the parent's reference in its own environment when the third passed) in order; ``calls`` records
    what ran on what, its reference folder read while it ran.
    ``outcomes`` is only read, never consumed: a parametrized list stays whole for a later run of the
    same test in the same process (as mutation testing does)."""
    state = SimpleNamespace(outcomes=[], calls=[])

    def run(task, agent, **kwargs):
        reference = task.path / format_of(task).reference_dir
        files = {
            p.relative_to(reference).as_posix(): p.read_text() for p in reference.rglob("*") if p.is_file()
        }
        tree = {p.relative_to(task.path) for p in task.path.rglob("*")}
        links = {p.relative_to(task.path) for p in task.path.rglob("*") if p.is_symlink()}
        state.calls.append(
            {
                "agent": agent.name,
                "path": task.path,
                "reference": files,
                "tree": tree,
                "links": links,
                **kwargs,
            }
        )
        # a fourth run (the parent's reference in its own environment) answers like the third
        return state.outcomes[min(len(state.calls), len(state.outcomes)) - 1]

    monkeypatch.setattr(checks, "run_episode", run)
    return state


def _tool_pair(tmp_path: Path):
    parent, child, *_ = _child(make_tool_task(tmp_path / "p"), tmp_path / "c", "require_token")
    return parent, child


def test_a_valid_child_passes_each_run_and_says_how_it_scored(tmp_path, scripted_runs):
    parent, child = _tool_pair(tmp_path)
    scripted_runs.outcomes = [_record(True, 1.0), _record(False, 0.2), _record(False, 0.456)]
    assert check_validity(parent, child, backend="local", seed=7) == [
        CheckResult("objective_untouched", True, ""),
        CheckResult("reference_passes", True, "score 1.00, passed"),
        CheckResult("nop_fails", True, "score 0.20, failed"),
        CheckResult("parent_reference_fails", True, "score 0.46, failed"),
    ]
    calls = scripted_runs.calls
    assert [call["agent"] for call in calls] == ["oracle", "nop", "oracle"]
    assert [call["episode_id"] for call in calls] == ["check-oracle", "check-nop", "check-oracle"]
    assert {(call["environment"], call["seed"], call["backend"]) for call in calls} == {
        ("candidate", 7, "local")
    }
    assert calls[0]["path"] == calls[1]["path"] == child.path


def test_the_parent_reference_runs_on_a_copy_of_the_child_that_is_removed_after(tmp_path, scripted_runs):
    parent, child = _tool_pair(tmp_path)
    scripted_runs.outcomes = [_record(True, 1.0), _record(False, 0.0), _record(False, 0.0)]
    check_validity(parent, child, backend="local")
    reference, _, cross = scripted_runs.calls
    assert reference["reference"] != cross["reference"]  # the child's reference knows the token
    parent_reference = parent.path / format_of(parent).reference_dir
    assert cross["reference"] == {
        p.relative_to(parent_reference).as_posix(): p.read_text()
        for p in parent_reference.rglob("*")
        if p.is_file()
    }
    outside = {p.relative_to(child.path) for p in child.path.rglob("*")}
    assert {p for p in cross["tree"] if p.parts[0] != "solution"} == {
        p for p in outside if p.parts[0] != "solution"
    }
    assert not cross["path"].parent.exists()
    assert [call["seed"] for call in scripted_runs.calls] == [0, 0, 0]  # the default seed


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        (  # the reference fails, nop and the parent's reference pass: every run check fails
            [_record(False, 0.6), _record(True, 0.9), _record(True, 1.0)],
            [
                (False, "score 0.60, failed"),
                (False, "score 0.90, passed: an agent that does nothing passes the child"),
                (
                    False,
                    "score 1.00, passed (own environment: 1.00): the parent's reference solves the child as "
                    "before (the change misses what it reads)",
                ),
            ],
        ),
        (  # runs that say nothing about the agent fail their check whatever they scored
            [
                _record(True, 1.0, "sandbox_error", "no docker"),
                _record(False, 0.0, "service_error", "crm died"),
                _record(False, 0.0, "sandbox_error", "timeout"),
            ],
            [
                (False, "sandbox_error: no docker"),
                (False, "service_error: crm died"),
                (False, "sandbox_error: timeout"),
            ],
        ),
    ],
)
def test_each_run_check_fails_with_the_run_it_saw(tmp_path, scripted_runs, outcomes, expected):
    parent, child = _tool_pair(tmp_path)
    scripted_runs.outcomes = outcomes
    results = check_validity(parent, child, backend="local")
    assert [(r.passed, r.detail) for r in results[1:]] == expected


def test_a_changed_objective_is_named_in_the_verdict(tmp_path, scripted_runs):
    parent, child = _tool_pair(tmp_path)
    _replace("grader.py", '"weight": 3', '"weight": 4')(child.path)
    scripted_runs.outcomes = [_record(True, 1.0), _record(False, 0.0), _record(False, 0.0)]
    results = check_validity(parent, load_task_dir(child.path), backend="local")
    assert results[0] == CheckResult("objective_untouched", False, "the instruction or grader changed")


def test_the_copy_for_the_parent_reference_keeps_symlinks(tmp_path, scripted_runs):
    parent, child = _tool_pair(tmp_path)
    (parent.path / "solution" / "notes.md").write_text("how\n")
    (parent.path / "solution" / "link.md").symlink_to("notes.md")
    (child.path / "fixtures" / "link.json").symlink_to("crm.json")
    scripted_runs.outcomes = [_record(True, 1.0), _record(False, 0.0), _record(False, 0.0)]
    check_validity(parent, child, backend="local")
    assert scripted_runs.calls[2]["links"] == {Path("solution/link.md"), Path("fixtures/link.json")}


def test_a_child_without_a_reference_folder_is_checked_with_the_parents(tmp_path, scripted_runs):
    parent, child = _tool_pair(tmp_path)
    shutil.rmtree(child.path / "solution")
    scripted_runs.outcomes = [_record(False, 0.0), _record(False, 0.0), _record(False, 0.0)]
    check_validity(parent, child, backend="local")
    assert scripted_runs.calls[2]["reference"] == {
        "solve.py": (parent.path / "solution" / "solve.py").read_text()
    }


def test_the_resaved_copy_of_the_parent_is_removed(tmp_path, monkeypatch):
    parent = load_task_dir(make_tool_task(tmp_path / "p"))
    shutil.copytree(parent.path, tmp_path / "c")
    draft = format_of(parent).draft(tmp_path / "c")
    draft.fixtures["crm"]["customers"].append({"id": "C3", "name": "Initech", "email": "x@initech.test"})
    draft.save()
    (tmp_path / "scratch").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "scratch"))
    assert check_applied(parent, load_task_dir(tmp_path / "c"), [], draft).passed
    assert not list((tmp_path / "scratch").iterdir())


@pytest.mark.parametrize(("given", "used"), [({"seed": 7}, 7), ({}, 0)])
def test_run_checks_seeds_every_run(tmp_path, scripted_runs, given, used):
    parent, child, apps, graph, draft = _child(
        make_tool_task(tmp_path / "p"), tmp_path / "c", "require_token"
    )
    scripted_runs.outcomes = [_record(True, 1.0), _record(False, 0.0), _record(False, 0.0)]
    run_checks(parent, child, apps, graph, draft, backend="local", **given)
    assert [call["seed"] for call in scripted_runs.calls] == [used] * 3


def test_a_check_result_is_a_plain_dict():
    assert CheckResult("nop_fails", False, "score 0.90, passed").to_dict() == {
        "name": "nop_fails",
        "passed": False,
        "detail": "score 0.90, passed",
    }


@pytest.mark.parametrize(
    ("own", "cross", "broken"),
    [
        ((1.0, True), (0.9, True), True),  # still passes, but the change cost the old solution points
        ((0.95, True), (0.95, True), False),  # the same score as in its own environment: the change is idle
        ((0.95, True), (0.5, False), True),  # fails the pass rule
    ],
)
def test_the_parent_reference_fails_when_it_fails_or_loses_points(tmp_path, monkeypatch, own, cross, broken):
    parent, child, _, _, _ = _child(make_tool_task(tmp_path / "p"), tmp_path / "c", "require_token")
    checks._own_runs.clear()

    def graded(task, agent, **kwargs):
        if agent.name == "nop":
            return episode_record(score=0.0, passed=False)
        score, passed = (
            own if task.path == parent.path else cross if "res-cross-" in str(task.path) else (1, 1)
        )
        return episode_record(score=score, passed=bool(passed))

    monkeypatch.setattr(checks, "run_episode", graded)
    verdict = next(
        r for r in check_validity(parent, child, backend="local") if r.name == "parent_reference_fails"
    )
    assert verdict.passed is broken
    if cross[1]:
        assert f"own environment: {own[0]:.2f}" in verdict.detail
