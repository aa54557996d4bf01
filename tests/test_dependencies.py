"""Dependency composition and its removal (Table 3A's "w/o dependencies").

A lineage is scaled on a real Claw-style task with a scripted sequence of operators, so that a later change
composes on an earlier change's token. Removing the dependencies takes out every composed change and the
earlier changes it built on (transitively) and keeps the others, applied again on E0: with one chain (a
change composed on another) and one independent change, only the independent change stays, and the
reference still solves the result. Table 3A's notes say what was removed from each task.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scalers import build_scaler

from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.formats import load_copy
from res_repro.env.formats.tool_api import TOOL_API, ToolEnvironment
from res_repro.env.task import Task
from res_repro.errors import UserInputError
from res_repro.pipelines.ablations import LABELS, AblationRecords, ablation_cohort
from res_repro.pipelines.lineages import composition_counts
from res_repro.pipelines.table3 import removal_notes
from res_repro.res.dependencies import dependency_removal, without_dependencies
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators import OPERATORS, Application, library
from res_repro.res.operators.tool_operators import TOOL_OPERATORS
from res_repro.res.proposer import (
    ProgrammaticProposer,
    Proposal,
    ProposalContext,
    Proposer,
    ProposerCost,
)
from res_repro.res.scaling import LineageResult

TASK = "claw-finance-reconcile-00"
CHAIN = ["require_token", "open_session", "repair_first"]  # the last two compose on the token


class Scripted(Proposer):
    """Proposes the named operators in order, one per call, with the operator's own seeded params."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.upcoming: Iterator[str] = iter(names)

    def fingerprint(self) -> dict[str, Any]:
        """The sequence."""
        return {"kind": "sequence", "names": self.names}

    def propose(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> Proposal | None:
        """The next operator of the sequence with its proposed params."""
        name = next(self.upcoming, None)
        if name is None:
            return None
        params = OPERATORS[name].propose(context.draft, context.graph, rng)
        return Proposal(((name, params),)) if params is not None else None


@pytest.fixture(scope="module")
def claw(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Task]:
    """The claw_bundled suite by task id."""
    tasks = load_benchmark("claw_bundled", generated_dir=tmp_path_factory.mktemp("generated"))
    return {task.task_id: task for task in tasks}


def _scale(task: Task, names: list[str], store: Path, *, composition: bool = True) -> LineageResult:
    scaler = build_scaler(store, depth_cap=len(names), proposer=Scripted(names), composition=composition)
    result = scaler.scale(task)
    assert result.stop_reason == "depth_cap", result.stop_reason
    return result


def _reference_score(task: Task) -> float:
    environment = ToolEnvironment(task)
    return environment.grade(environment.run_reference().answer).score


def test_without_dependencies_keeps_only_the_change_outside_the_chain(claw, tmp_path):
    # C (paginate) first, then the chain: B (open_session) composed on A's token (require_token)
    lineage = _scale(claw[TASK], ["paginate", *CHAIN[:2]], tmp_path / "lineages")
    root, first, saved = lineage.nodes[0], lineage.nodes[1], lineage.last
    history = saved.manifest.history
    assert [(a.operator, a.composes) for a in history] == [
        ("paginate", False),
        ("require_token", False),
        ("open_session", True),
    ]

    rebuilt = without_dependencies(root, history, tmp_path / "decomposed", backend="local", seed=0)
    task = load_copy(saved.task, tmp_path / "decomposed")

    assert rebuilt.applications == [history[0]]  # C, with its own params and edges
    assert (rebuilt.removal.composed, rebuilt.removal.prerequisites, rebuilt.removal.kept) == ([2], [1], [0])
    assert rebuilt.removed == history[1:] and not rebuilt.dropped
    assert rebuilt.summary(history) == {
        "composed": ["open_session"],
        "prerequisites": ["require_token"],
        "kept": ["paginate"],
        "dropped": [],
        "failed_checks": [],
    }
    assert rebuilt.checks and all(check.passed for check in rebuilt.checks)
    assert task.content_hash == first.task.content_hash  # E0 plus C alone: the lineage's first child
    assert task.content_hash not in {root.task.content_hash, saved.task.content_hash}
    assert rebuilt.graph.to_dict() == first.manifest.graph.to_dict()
    assert rebuilt.graph.cycle() is None and not rebuilt.graph.unreachable()
    assert _reference_score(task) == 1.0


def _change(name: str, *edges: tuple[str, str, str]) -> Application:
    return Application(name, "family", {}, tuple(Edge(*edge) for edge in edges))


def test_the_removal_follows_composed_edges_back_to_the_changes_that_made_their_artifacts():
    history = [
        _change("a", (OBSERVATION, "token:mail", "the 401 names the vault"), ("token:mail", GOAL, "needed")),
        _change("c", (OBSERVATION, "pages:list", "the first page"), ("pages:list", GOAL, "all items")),
        _change("z", (OBSERVATION, "record:crm/x", "the records name it"), ("record:crm/x", GOAL, "needed")),
        _change("y", ("record:crm/x", "tool:y", "composed: the tool reads the record")),
        _change("b", ("token:mail", "session:mail", "composed: opening a session needs the token")),
        _change("w", ("tool:y", "bulk:w", "composed: the added tool is rationed")),  # on y, which is on z
        _change("v", ("alias:crm", "record:crm/v", "the alias"), ("alias:crm", "pages:none", "other")),
    ]
    removal = dependency_removal(history)
    assert (removal.composed, removal.prerequisites, removal.kept) == ([3, 4, 5], [0, 2], [1, 6])
    assert removal.removed == [0, 2, 3, 4, 5]


def test_an_artifact_a_composed_edge_leads_to_is_prerequisite_work_too():
    # an alias that now serves an earlier change's record: the composed edge ends at that record
    history = [
        _change("encode", (OBSERVATION, "record:crm/c1#email", "the records name it")),
        _change("alias", ("record:crm/c1#alias", "record:crm/c1#email", "composed: served by its alias")),
        _change("other", (OBSERVATION, "tool:x", "listed")),
    ]
    removal = dependency_removal(history)
    assert (removal.composed, removal.prerequisites, removal.kept) == ([1], [0], [2])


def test_table_3a_notes_say_what_was_removed_from_each_task():
    data = AblationRecords(
        tasks=["t1", "t2"],
        planned_depths=[3, 3],
        agents={},
        records={},
        conditions=["saved_res", "without_dependencies"],
        episodes=[],
        removals={
            "t1": {
                "composed": ["open_session"],
                "prerequisites": ["require_token"],
                "kept": ["paginate"],
                "dropped": [],
                "failed_checks": [],
            },
            "t2": {
                "composed": [],
                "prerequisites": [],
                "kept": ["paginate", "alias_ids", "archive_records"],
                "dropped": [],
                "failed_checks": [],
            },
            "t3": {"composed": ["x"], "prerequisites": [], "kept": [], "dropped": [], "failed_checks": []},
        },
    )
    definition, detail = removal_notes(data)
    assert definition.startswith(f"{LABELS['without_dependencies']}: from each saved RES environment")
    assert "every composed change" in definition and "the earlier changes it built on" in definition
    assert "removes composed dependencies and their prerequisite work" in definition
    assert detail == (
        "Over the 2 tasks, 2 of 6 changes were removed (1 composed, 1 they built on) and 4 kept. Per task: "
        "t1: removed open_session (composed) and require_token (built on), kept paginate; "
        "t2: nothing removed (no composed change), kept paginate, alias_ids, archive_records."
    )


def test_without_composition_to_remove_the_saved_environment_is_rebuilt_as_it_was(claw, tmp_path):
    lineage = _scale(claw[TASK], CHAIN, tmp_path / "lineages", composition=False)
    saved = lineage.last
    assert not any(application.composes for application in saved.manifest.history)

    independent = without_dependencies(
        lineage.nodes[0], saved.manifest.history, tmp_path / "decomposed", backend="local", seed=0
    )

    assert independent.applications == saved.manifest.history  # every change survives, unchanged
    assert load_copy(saved.task, tmp_path / "decomposed").content_hash == saved.task.content_hash
    assert load_copy(saved.task, tmp_path / "decomposed").content_hash != lineage.nodes[0].task.content_hash


def test_the_proposer_prefers_a_change_that_composes_within_the_family_it_draws(claw, tmp_path):
    lineage = _scale(claw[TASK], CHAIN[:1], tmp_path / "lineages")
    draft = TOOL_API.draft(lineage.last.env_dir)
    proposer = ProgrammaticProposer(library([op.name for op in TOOL_OPERATORS]))
    graph = lineage.last.manifest.graph
    composing = {
        op.family
        for op in TOOL_OPERATORS
        if (params := op.propose(draft, graph, random.Random(0))) is not None and op.composes(params, graph)
    }
    assert composing, "the chain's first change offers an artifact to build on"
    drawn = set()
    for seed in range(12):
        proposal = proposer.propose(ProposalContext(draft, graph), random.Random(seed), ProposerCost())
        assert proposal is not None
        ((name, params),) = proposal.steps
        drawn.add(OPERATORS[name].family)
        if OPERATORS[name].family in composing:
            assert OPERATORS[name].composes(params, graph), (seed, name)
    assert len(drawn) == 3  # every family goes first for some seed
    alone = proposer.propose(ProposalContext(draft, DependencyGraph()), random.Random(0), ProposerCost())
    assert alone is not None
    assert not any(OPERATORS[name].composes(params, graph) for name, params in alone.steps)


def test_composition_counts_count_children_that_build_on_an_earlier_change(claw, tmp_path):
    composed = _scale(claw[TASK], CHAIN, tmp_path / "composed")
    apart = _scale(claw[TASK], CHAIN, tmp_path / "apart", composition=False)
    assert composition_counts([composed, apart]) == (2, 6)


def _lineage(task_id: str, depth: int) -> LineageResult:
    """A stand-in lineage whose last node has the given planned depth."""
    last = SimpleNamespace(manifest=SimpleNamespace(depth=depth))
    return LineageResult(task_id, [last], "target_failed")  # type: ignore[list-item]


def test_the_ablation_cohort_takes_tasks_of_planned_depth_three_or_more():
    lineages = [_lineage(f"t{i}", depth) for i, depth in enumerate([1, 3, 1, 4, 5, 2, 3, 1, 6])]
    cohort = ablation_cohort(lineages, 3, 3)
    # t1 t3 t4 t6 t8 qualify; three evenly spaced over them, in task order
    assert [lineage.seed_task_id for lineage in cohort] == ["t1", "t3", "t6"]
    assert all(lineage.last.manifest.depth >= 3 for lineage in cohort)


def test_a_cohort_smaller_than_asked_is_announced(caplog):
    lineages = [_lineage(f"t{i}", depth) for i, depth in enumerate([1, 3, 2, 4])]
    cohort = ablation_cohort(lineages, 15, 3)
    assert [lineage.seed_task_id for lineage in cohort] == ["t1", "t3"]
    assert "only 2 of 4 seed tasks reach planned depth >= 3" in caplog.text


def test_no_qualifying_task_is_a_user_error():
    with pytest.raises(UserInputError, match=r"ablation\.min_planned_depth"):
        ablation_cohort([_lineage("t0", 1), _lineage("t1", 2)], 15, 3)
