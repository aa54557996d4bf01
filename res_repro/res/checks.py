"""Execution-grounded checks of a candidate child environment, each a real run.

1. The change is applied: every operator's own check passes and the content differs from the parent.
2. Task validity: the objective (instruction and grader) is untouched; the updated reference completes
   the task on the child; nop fails on the child; the parent's reference fails on the child: it fails the
   benchmark's pass rule there, or scores lower there than in its own environment (on lenient graders a
   change to the data an old solution reads can cost it points without crossing the pass threshold; it
   still no longer solves the task as it did).
3. Dependency feasibility: the dependency graph is acyclic and every node is reachable from the first
   observation.

A failed check carries its reason, which goes back to the proposer as feedback.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from res_repro.agents.reference import NopAgent, OracleAgent
from res_repro.env.formats import format_of, load_copy, task_objective
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord, run_episode
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS, Application
from res_repro.res.run_evidence import explained, verdict
from res_repro.sandbox import Backend
from res_repro.sandbox.owner import owned_tempdir


@dataclass(frozen=True)
class CheckResult:
    """One check's verdict and why."""

    name: str
    passed: bool
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return asdict(self)


def _episode(task: Task, agent: OracleAgent | NopAgent, backend: Backend, seed: int) -> EpisodeRecord:
    return run_episode(
        task, agent, backend=backend, episode_id=f"check-{agent.name}", environment="candidate", seed=seed
    )


def _with_parent_reference(parent: Task, child: Task) -> Path:
    """A copy of the child environment carrying the parent's reference solution."""
    reference = format_of(child).reference_dir
    folder = owned_tempdir("cross") / "task"  # labelled: a killed run's copy is swept as stale
    shutil.copytree(child.path, folder, symlinks=True)
    shutil.rmtree(folder / reference, ignore_errors=True)
    shutil.copytree(parent.path / reference, folder / reference, symlinks=True)
    return folder


_resaved: dict[tuple[str, str], str] = {}  # (format, content hash) -> the hash once resaved


def _resaved_hash(parent: Task) -> str:
    """The content hash of a copy of ``parent`` saved through its format's draft with no edit (a draft
    may write files anew, such as an empty list of reference adapters, without changing anything);
    worked out once per content (every revision of a child compares against it)."""
    key = (parent.kind, parent.content_hash)
    if key not in _resaved:
        folder = owned_tempdir("resaved") / "task"
        try:
            format_of(parent).copy(parent, folder)
            format_of(parent).draft(folder).save()
            _resaved[key] = load_copy(parent, folder).content_hash
        finally:
            shutil.rmtree(folder.parent, ignore_errors=True)
    return _resaved[key]


def check_applied(parent: Task, child: Task, applications: Sequence[Application], draft: Any) -> CheckResult:
    """Check 1: each operator finds its change in the child, and the child differs from the parent as it
    is and as a draft of it saved unchanged."""
    for application in applications:
        missing = OPERATORS[application.operator].applied(draft, application.params)
        if missing:
            return CheckResult("applied", False, f"{application.operator}: {missing}")
    if child.content_hash in (parent.content_hash, _resaved_hash(parent)):
        return CheckResult("applied", False, "the child is identical to the parent")
    return CheckResult("applied", True)


def check_validity(parent: Task, child: Task, *, backend: Backend, seed: int = 0) -> list[CheckResult]:
    """Check 2: objective untouched, reference passes, nop fails, the parent's reference fails."""
    untouched = task_objective(parent) == task_objective(child)
    results = [
        CheckResult(
            "objective_untouched", untouched, "" if untouched else "the instruction or grader changed"
        )
    ]
    reference = _episode(child, OracleAgent(), backend, seed)
    results.append(
        CheckResult(
            "reference_passes",
            reference.passed and not reference.infrastructure_failure,
            explained(reference),
        )
    )
    nop = _episode(child, NopAgent(), backend, seed)
    nop_detail = verdict(nop) + (": an agent that does nothing passes the child" if nop.passed else "")
    results.append(CheckResult("nop_fails", not nop.passed and not nop.infrastructure_failure, nop_detail))
    cross_dir = _with_parent_reference(parent, child)
    try:
        cross = _episode(load_copy(child, cross_dir), OracleAgent(), backend, seed)
    finally:
        shutil.rmtree(cross_dir.parent, ignore_errors=True)
    broken, detail = not cross.passed and not cross.infrastructure_failure, verdict(cross)
    own = own_reference(parent, backend, seed) if cross.passed and not cross.infrastructure_failure else None
    if own is not None and not own.infrastructure_failure:  # it still passes: did the change cost it points?
        broken = cross.score < own.score - SCORE_EPSILON
        detail = f"{detail} (own environment: {own.score:.2f})"
        if not broken:
            detail += ": the parent's reference solves the child as before (the change misses what it reads)"
    results.append(CheckResult("parent_reference_fails", broken, detail))
    return results


SCORE_EPSILON = 1e-6  # a score lower than this much below another is the same score
_own_runs: dict[tuple[str, str, str, int], EpisodeRecord] = {}  # (format, content, backend, seed) -> run


def own_reference(task: Task, backend: Backend, seed: int = 0) -> EpisodeRecord:
    """The task's reference run in the task's own environment (once per content, backend and seed; a run
    that failed for infrastructure reasons is not kept, so the next asks again)."""
    key = (task.kind, task.content_hash, str(backend), seed)
    if key in _own_runs:
        return _own_runs[key]
    run = _episode(task, OracleAgent(), backend, seed)
    if not run.infrastructure_failure:
        _own_runs[key] = run
    return run


def invalid_seed(task: Task, backend: Backend, seed: int = 0) -> CheckResult | None:
    """A failed ``seed_reference_passes`` check when the seed's own reference is graded and does not pass
    in its own environment (an invalid task: no child could pass ``reference_passes``), else None (an
    infrastructure failure says nothing about the task: the candidates' own checks then meet it)."""
    run = own_reference(task, backend, seed)
    if run.passed or run.infrastructure_failure:
        return None
    return CheckResult(
        "seed_reference_passes", False, f"the seed's reference fails in its own environment: {explained(run)}"
    )


def check_feasibility(graph: DependencyGraph) -> CheckResult:
    """Check 3: no cycle, and everything reachable from the first observation."""
    cycle = graph.cycle()
    if cycle:
        return CheckResult("dependencies_feasible", False, f"cycle: {' -> '.join(cycle)}")
    unreachable = graph.unreachable()
    if unreachable:
        return CheckResult(
            "dependencies_feasible", False, f"unreachable from the observation: {sorted(unreachable)}"
        )
    return CheckResult("dependencies_feasible", True)


def run_checks(
    parent: Task,
    child: Task,
    applications: Sequence[Application],
    graph: DependencyGraph,
    draft: Any,
    *,
    backend: Backend,
    seed: int = 0,
) -> list[CheckResult]:
    """Every check, cheapest first; the runs are skipped once a static check has failed."""
    static = [check_applied(parent, child, applications, draft), check_feasibility(graph)]
    if not all(result.passed for result in static):
        return static
    return static + check_validity(parent, child, backend=backend, seed=seed)
