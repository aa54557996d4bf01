"""The tool-API operator library: each change holds, keeps the task solvable, and breaks the old solution.

Every operator is applied to a claw_bundled task where it applies. The updated reference must score 1.0
on the child, nop must fail, and the parent's reference must fail on the child (the change matters).
Composition, determinism, schema validation and a short recursive scaling run are covered too.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from scalers import build_scaler

from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.formats.tool_api import TOOL_API, ToolEnvironment, load_tool_task, run_reference_program
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall, ToolResponse
from res_repro.res.graph import DependencyGraph, Edge
from res_repro.res.operators import OPERATORS, Family
from res_repro.res.operators.tool_operators import TOOL_OPERATORS

# (operator, claw task, rng seed) where the operator applies and the parent's reference breaks.
PINNED = [
    ("paginate", "claw-hr-onboarding-00", 0),
    ("retire_search", "claw-calendar-scheduling-00", 0),
    ("move_to_attachment", "claw-helpdesk-triage-00", 0),
    ("encode_field", "claw-inventory-reorder-00", 1),
    ("superseded_copies", "claw-crm-followup-00", 0),
    ("stale_revisions", "claw-finance-reconcile-00", 0),
    ("alias_ids", "claw-expense-audit-00", 0),
    ("archive_records", "claw-calendar-scheduling-00", 1),
    ("require_token", "claw-finance-reconcile-00", 0),
    ("open_session", "claw-helpdesk-triage-00", 1),
    ("call_quota", "claw-hr-onboarding-00", 1),
    ("async_export", "claw-inventory-reorder-00", 0),
    ("repair_first", "claw-crm-followup-00", 0),
    ("summary_listing", "claw-crm-followup-00", 0),
    ("party_references", "claw-hr-onboarding-00", 0),
]
COMPOSERS = ["encode_field", "move_to_attachment", "alias_ids", "open_session", "repair_first"]
LOUD = ["retire_search", "alias_ids", "archive_records", "require_token", "open_session", "async_export"]


@pytest.fixture(scope="module")
def claw(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Task]:
    """The claw_bundled suite by task id."""
    tasks = load_benchmark("claw_bundled", generated_dir=tmp_path_factory.mktemp("generated"))
    return {task.task_id: task for task in tasks}


def _child(
    parent: Task,
    dest: Path,
    operator: str,
    seed: int,
    graph: DependencyGraph | None = None,
    hints: str = "guided",
) -> tuple[Task, dict[str, Any], list[Edge], Any]:
    """Copy the parent, let the operator propose (seeded) and apply; return (child, params, edges, draft)."""
    graph = graph or DependencyGraph()
    shutil.copytree(parent.path, dest)
    draft = TOOL_API.draft(dest)
    draft.hints = hints
    op = OPERATORS[operator]
    params = op.propose(draft, graph, random.Random(seed))
    assert params is not None, f"{operator} does not apply to {parent.task_id}"
    assert op.validate(params) is None
    edges = op.apply(draft, params, graph)
    draft.save()
    return load_tool_task(dest), params, edges, draft


def _score(task: Task) -> float:
    """The reference solution's native score on a task."""
    environment = ToolEnvironment(task)
    return environment.grade(environment.run_reference().answer).score


def _nop_score(task: Task) -> float:
    return ToolEnvironment(task).grade(None).score


def _with_solution_of(parent: Task, child: Task, dest: Path) -> Task:
    """A copy of the child carrying the parent's reference solution."""
    shutil.copytree(child.path, dest)
    shutil.rmtree(dest / "solution")
    shutil.copytree(parent.path / "solution", dest / "solution")
    return load_tool_task(dest)


def _assert_valid_child(parent: Task, child: Task, tmp_path: Path) -> None:
    assert _score(child) == 1.0, "the updated reference must still complete the task"
    assert _nop_score(child) < 0.5
    cross = _with_solution_of(parent, child, tmp_path / "cross")
    assert _score(cross) < child.config.pass_threshold, "the parent's reference must fail on the child"


def _tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def test_the_library_has_four_operators_per_family():
    families = Counter(op.family for op in TOOL_OPERATORS)
    assert len(TOOL_OPERATORS) >= 12
    assert all(families[family] >= 4 for family in Family)
    assert {name for name, _, _ in PINNED} == {op.name for op in TOOL_OPERATORS}


@pytest.mark.slow
@pytest.mark.parametrize(("operator", "task_id", "seed"), PINNED)
def test_each_operator_makes_a_valid_child(claw, tmp_path, operator, task_id, seed):
    parent = claw[task_id]
    child, params, edges, draft = _child(parent, tmp_path / "child", operator, seed)
    assert OPERATORS[operator].applied(draft, params) is None
    assert child.content_hash != parent.content_hash
    graph = DependencyGraph().extend(edges)
    assert graph.cycle() is None and not graph.unreachable()
    _assert_valid_child(parent, child, tmp_path)


@pytest.mark.parametrize(("operator", "task_id", "seed"), PINNED)
def test_a_change_names_the_tools_it_alters_not_the_tools_it_adds(claw, tmp_path, operator, task_id, seed):
    """``altered`` (what the viewer matches a trajectory's calls against) names tools of the parent whose
    behaviour or responses the change altered, never a tool the change added."""
    parent = claw[task_id]
    _, params, _, _ = _child(parent, tmp_path / "child", operator, seed)
    altered = OPERATORS[operator].altered(params)
    assert altered.tools and not altered.files
    assert set(altered.tools) <= {tool.name for tool in parent.config.tools}


@pytest.mark.parametrize(("operator", "task_id", "seed"), PINNED)
def test_a_change_that_is_undone_is_no_longer_applied(claw, tmp_path, operator, task_id, seed):
    _, params, _, draft = _child(claw[task_id], tmp_path / "child", operator, seed)
    draft.config.middleware.clear()
    assert OPERATORS[operator].applied(draft, params) is not None


@pytest.mark.parametrize(("operator", "task_id", "seed"), [p for p in PINNED if p[0] in LOUD])
def test_the_old_way_meets_an_error_that_says_what_to_do(claw, tmp_path, operator, task_id, seed):
    parent = claw[task_id]
    child, _, _, _ = _child(parent, tmp_path / "child", operator, seed)
    cross = _with_solution_of(parent, child, tmp_path / "cross")
    environment = ToolEnvironment(cross)
    errors: list[ToolResponse] = []

    def dispatch(call: ToolCall) -> ToolResponse:
        response = environment.call(call)
        if response.is_error:
            errors.append(response)
        return response

    run_reference_program(cross.path, dispatch, lambda: len(environment.audit))
    assert errors, "the parent's reference should meet the change as an error"
    assert errors[0].body.get("hint")
    assert errors[0].body.get("next", {}).get("tool")


@pytest.mark.parametrize(("operator", "task_id", "seed"), [p for p in PINNED if p[0] in LOUD])
def test_realistic_errors_say_what_went_wrong_and_the_tools_document_the_way_out(
    claw, tmp_path, operator, task_id, seed
):
    parent = claw[task_id]
    child, _, _, _ = _child(parent, tmp_path / "child", operator, seed, hints="realistic")
    _assert_valid_child(parent, child, tmp_path)
    cross = _with_solution_of(parent, child, tmp_path / "cross-realistic")
    environment = ToolEnvironment(cross)
    failed: list[tuple[str, ToolResponse]] = []

    def dispatch(call: ToolCall) -> ToolResponse:
        response = environment.call(call)
        if response.is_error:
            failed.append((call.tool, response))
        return response

    run_reference_program(cross.path, dispatch, lambda: len(environment.audit))
    assert failed, "the parent's reference should meet the change as an error"
    tool, first = failed[0]
    assert first.body["code"] and first.body["error"]
    assert "hint" not in first.body and "next" not in first.body  # no ready-made next call
    before = {spec.name: spec.description for spec in ToolEnvironment(parent).tools}
    after = {spec.name: spec.description for spec in environment.tools}
    documented = [name for name in after if name in before and after[name] != before[name]]
    assert tool in documented  # the failing tool's description says how to get past the error


@pytest.mark.parametrize("operator", COMPOSERS)
def test_composed_changes_build_on_the_vault_record_of_a_token(claw, tmp_path, operator):
    parent = claw["claw-finance-reconcile-00"]
    guarded, _, token_edges, _ = _child(parent, tmp_path / "guarded", "require_token", 0)
    graph = DependencyGraph().extend(token_edges)
    child, params, edges, draft = _child(guarded, tmp_path / "child", operator, 1, graph)
    composed = [e for e in edges if e.how.startswith("composed:")]
    assert composed, f"{operator} did not compose: {params}"
    earlier = {composed[0].prerequisite, composed[0].dependent} & graph.nodes
    assert earlier & {"record:vault/secrets/cred-erp#token", "token:erp"}, composed[0]
    full = graph.extend(edges)
    assert full.cycle() is None and not full.unreachable()
    assert OPERATORS[operator].applied(draft, params) is None
    _assert_valid_child(guarded, child, tmp_path)


@pytest.mark.parametrize("operator", [*COMPOSERS, "call_quota", "async_export"])
def test_without_composition_only_original_artifacts_are_picked(claw, tmp_path, operator):
    guarded, _, _, _ = _child(claw["claw-finance-reconcile-00"], tmp_path / "guarded", "require_token", 0)
    draft = TOOL_API.draft(guarded.path)
    for seed in range(12):
        params = OPERATORS[operator].propose(draft, DependencyGraph(), random.Random(seed))
        assert params is not None
        assert not params.get("composed") and not params.get("token")
        assert "vault" not in str(params)


def test_an_attachment_tool_from_one_change_is_rationed_by_a_later_one(claw, tmp_path):
    parent = claw["claw-helpdesk-triage-00"]
    attached, _, attach_edges, _ = _child(parent, tmp_path / "attached", "move_to_attachment", 0)
    graph = DependencyGraph().extend(attach_edges)
    child, params, edges, _ = _child(attached, tmp_path / "child", "call_quota", 1, graph)
    assert params["tool"] == "helpdesk_get_attachment"
    assert any(e.how.startswith("composed:") for e in edges)
    _assert_valid_child(attached, child, tmp_path)


def test_a_bulk_tool_from_one_change_is_broken_by_a_later_one(claw, tmp_path):
    parent = claw["claw-hr-onboarding-00"]
    rationed, quota, quota_edges, _ = _child(parent, tmp_path / "rationed", "call_quota", 1)
    graph = DependencyGraph().extend(quota_edges)
    child, params, edges, _ = _child(rationed, tmp_path / "child", "repair_first", 0, graph)
    assert params["tool"] == quota["bulk_tool"] and params["composed"] == f"bulk:{quota['bulk_tool']}"
    assert OPERATORS["repair_first"].composes(params, graph)
    assert any(e.how.startswith("composed:") for e in edges)
    _assert_valid_child(rationed, child, tmp_path)


@pytest.mark.parametrize(("operator", "task_id", "seed"), PINNED)
def test_the_same_seed_gives_the_same_change(claw, tmp_path, operator, task_id, seed):
    first = _child(claw[task_id], tmp_path / "a", operator, seed)
    second = _child(claw[task_id], tmp_path / "b", operator, seed)
    assert first[1] == second[1]
    assert first[2] == second[2]
    assert _tree_digest(first[0].path) == _tree_digest(second[0].path)


@pytest.mark.parametrize(("operator", "task_id", "seed"), PINNED)
def test_validate_rejects_bad_params(claw, tmp_path, operator, task_id, seed):
    op = OPERATORS[operator]
    _, params, _, _ = _child(claw[task_id], tmp_path / "child", operator, seed)
    assert op.validate(params) is None
    assert op.validate({}) is not None
    assert op.validate({**params, "unexpected": 1}) is not None
    first = next(iter(op.params_schema["properties"]))
    assert op.validate({**params, first: {"not": "valid"}}) is not None


@pytest.mark.slow
def test_scaling_a_claw_task_to_depth_six_passes_every_check(claw, tmp_path):
    scaler = build_scaler(tmp_path / "lineages", depth_cap=6, operators=[op.name for op in TOOL_OPERATORS])
    result = scaler.scale(claw["claw-finance-reconcile-00"])
    assert result.stop_reason == "depth_cap"
    assert [node.manifest.depth for node in result.nodes] == list(range(7))
    for node in result.nodes[1:]:
        assert node.manifest.checks and all(check["passed"] for check in node.manifest.checks)
    assert _score(result.last.task) == 1.0


def test_a_session_opener_from_one_change_is_broken_by_a_later_one(claw, tmp_path):
    parent = claw["claw-helpdesk-triage-00"]
    sessions, opened, session_edges, _ = _child(parent, tmp_path / "sessions", "open_session", 1)
    graph = DependencyGraph().extend(session_edges)
    child, params, edges, _ = _child(sessions, tmp_path / "child", "repair_first", 0, graph)
    assert params["tool"] == opened["open_tool"] and params["composed"] == f"session:{opened['open_tool']}"
    assert any(e.how.startswith("composed:") for e in edges)
    _assert_valid_child(sessions, child, tmp_path)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for item in value.values() for text in _strings(item)]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


@pytest.mark.parametrize(("operator", "task_id", "seed"), PINNED)
def test_the_reference_adapter_works_from_what_the_environment_shows(claw, tmp_path, operator, task_id, seed):
    """Every operator's adapter gets only the params the environment shows an agent: each value it
    is given is a tool's name, words of the tools' documentation or schemas, or a field of the records."""
    child, params, _, draft = _child(claw[task_id], tmp_path / "child", operator, seed, hints="realistic")
    entries = json.loads((child.path / "solution" / "adapters.json").read_text())
    given = entries[-1]["params"]
    assert set(given) <= {*OPERATORS[operator].shown, "token"}
    if isinstance(given.get("token"), str):
        pytest.fail("a token's value is a secret the adapter must not be given")
    specs = ToolEnvironment(child).tools
    shown_text = json.dumps([[s.name, s.description, s.input_schema] for s in specs])
    fields = {
        name
        for collections in draft.fixtures.values()
        for rs in collections.values()
        for r in rs
        for name in r
    }
    for value in _strings(given):
        assert value in shown_text or value in fields, f"{operator}: {value!r} is not shown to an agent"
    hidden = sorted(set(params) - set(given))
    assert _score(child) == 1.0, f"the reference must pass without {hidden}"


def test_a_party_the_records_name_is_composed_on_by_a_later_change(claw, tmp_path):
    parent = claw["claw-hr-onboarding-00"]
    referenced, _, party_edges, _ = _child(parent, tmp_path / "referenced", "party_references", 0)
    graph = DependencyGraph().extend(party_edges)
    child, params, edges, _ = _child(referenced, tmp_path / "child", "alias_ids", 0, graph)
    assert params["service"] == "directory" and params["composed"].startswith("record:directory/")
    assert any(e.how.startswith("composed:") for e in edges)
    _assert_valid_child(referenced, child, tmp_path)


@pytest.mark.parametrize("first", ["party_references", "summary_listing"])
def test_summaries_and_party_ids_stack_in_either_order(claw, tmp_path, first):
    """A summary's self link leads to a record whose party field holds a directory id (or the other way
    round); the reference, through both adapters, still completes the task."""
    second = "summary_listing" if first == "party_references" else "party_references"
    parent = claw["claw-hr-onboarding-00"]
    one, _, edges, _ = _child(parent, tmp_path / "one", first, 0, hints="realistic")
    two, params, _, _ = _child(one, tmp_path / "two", second, 0, DependencyGraph().extend(edges), "realistic")
    assert params["collection"] == "hires"
    assert _score(two) == 1.0
    assert _score(_with_solution_of(parent, two, tmp_path / "cross")) < 1.0
