"""Dependency composition and its removal (Table 3A's "w/o dependencies").

A lineage is scaled on a real Claw-style task with a scripted sequence of operators, so that later changes
compose on an earlier change's token. Removing the dependencies keeps every change but builds none on
another: the environment differs from E0 and from the saved one, its graph is shallower, and the
reference still solves it.
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
from res_repro.pipelines.ablations import ablation_cohort
from res_repro.pipelines.lineages import composition_counts
from res_repro.res.dependencies import without_dependencies
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS, library
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


def test_without_dependencies_keeps_every_change_and_removes_the_chains(claw, tmp_path):
    lineage = _scale(claw[TASK], CHAIN, tmp_path / "lineages")
    root, saved = lineage.nodes[0], lineage.last
    history = saved.manifest.history
    assert sum(application.composes for application in history) >= 2

    independent = without_dependencies(root, history, tmp_path / "decomposed", backend="local", seed=0)
    task = load_copy(saved.task, tmp_path / "decomposed")

    assert [a.operator for a in independent.applications] == CHAIN and not independent.dropped
    assert not any(application.composes for application in independent.applications)
    assert task.content_hash not in {root.task.content_hash, saved.task.content_hash}
    fixtures = TOOL_API.draft(task.path).fixtures
    assert fixtures != TOOL_API.draft(root.env_dir).fixtures
    assert independent.graph.depth() < saved.manifest.graph.depth()
    assert independent.graph.cycle() is None and not independent.graph.unreachable()
    assert _reference_score(task) == 1.0


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
