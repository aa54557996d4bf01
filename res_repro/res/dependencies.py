"""Table 3A's transform: a saved environment with its composed dependencies and their prerequisite work
removed (the paper: "removes composed dependencies and their prerequisite work from saved environments").

From the saved lineage's history (every change since E0, oldest first) :func:`dependency_removal` takes out

- every *composed* change: one that consumed an artifact of an earlier change (an edge whose ``how``
  starts with ``composed:``, :attr:`Application.composes`), and
- the *prerequisite work* of each: the earlier change that created the artifact it consumed (the first
  change whose edges name that node; a ``composed:`` edge usually leads from the artifact, and for some
  operators to it, as an alias that now serves an earlier change's record), and, transitively, what that
  change itself built on.

Every other change is kept. :func:`without_dependencies` rebuilds the environment by applying the kept
changes again, in history order and with their own params, on a copy of E0 (the same step that grows a
child, :func:`res_repro.res.scaling.apply_steps`). A kept change that no longer applies without the work
it was made over is left out and named. The rebuilt environment passes the same execution-grounded checks
as a scaled child against E0 (the reference solves it, nop fails, E0's reference fails, the graph is
feasible); their results are returned, and a failure is logged. With nothing kept, the result is E0.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from res_repro.env.formats import format_of, load_copy
from res_repro.env.middleware import REALISTIC
from res_repro.res.checks import CheckResult, run_checks
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph
from res_repro.res.lineage import Node
from res_repro.res.operators import Application
from res_repro.res.scaling import apply_steps
from res_repro.sandbox import Backend

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Removal:
    """Which changes of a history (by index, oldest first) go and which stay."""

    composed: list[int]  # changes that consumed an earlier change's artifact
    prerequisites: list[int]  # earlier changes they built on, transitively (not composed themselves)
    kept: list[int]

    @property
    def removed(self) -> list[int]:
        """Every removed change, in history order."""
        return sorted([*self.composed, *self.prerequisites])


def creator(history: Sequence[Application], node: str, before: int) -> int | None:
    """The index of the change (before ``before``) that created ``node``: the first whose edges name it
    (E0's graph names only the observation and the goal); None when no earlier change did."""
    if node in (OBSERVATION, GOAL):
        return None
    for index, application in enumerate(history[:before]):
        if any(node in (edge.prerequisite, edge.dependent) for edge in application.edges):
            return index
    return None


def dependency_removal(history: Sequence[Application]) -> Removal:
    """Every composed change of ``history`` and, following its ``composed:`` edges back to the earlier
    changes that created the nodes they join (transitively), the work it built on; every other change is
    kept."""
    composed = [index for index, application in enumerate(history) if application.composes]
    removed, pending = set(composed), list(composed)
    while pending:
        index = pending.pop()
        for edge in history[index].edges:
            if not edge.how.startswith("composed:"):
                continue
            for node in (edge.prerequisite, edge.dependent):
                found = creator(history, node, index)
                if found is not None and found not in removed:
                    removed.add(found)
                    pending.append(found)
    return Removal(
        composed=composed,
        prerequisites=sorted(removed - set(composed)),
        kept=[index for index in range(len(history)) if index not in removed],
    )


@dataclass(frozen=True)
class WithoutDependencies:
    """The rebuilt environment's changes (kept, in history order), its graph, what was removed, and the
    checks of the rebuilt environment against E0 (none when nothing was kept)."""

    applications: list[Application]
    graph: DependencyGraph
    removal: Removal
    removed: list[Application]  # the composed changes and their prerequisite work, in history order
    dropped: list[Application] = field(default_factory=list)  # kept changes that no longer apply
    checks: list[CheckResult] = field(default_factory=list)

    def summary(self, history: Sequence[Application]) -> dict[str, list[str]]:
        """What was removed and kept, by operator name in history order (``history`` is the one given to
        :func:`without_dependencies`), and the failed checks as ``name: detail`` (a JSON document)."""
        return {
            "composed": [history[index].operator for index in self.removal.composed],
            "prerequisites": [history[index].operator for index in self.removal.prerequisites],
            "kept": [application.operator for application in self.applications],
            "dropped": [application.operator for application in self.dropped],
            "failed_checks": [f"{c.name}: {c.detail}" for c in self.checks if not c.passed],
        }


def without_dependencies(
    root: Node,
    history: Sequence[Application],
    dest: Path,
    *,
    backend: Backend,
    seed: int,
    hints: str = REALISTIC,
) -> WithoutDependencies:
    """Write E0 plus the changes of ``history`` that :func:`dependency_removal` keeps to ``dest`` (the
    changes' layers guiding an agent as ``hints`` says, as the lineage's did), and check it against E0."""
    removal = dependency_removal(history)
    seed_id = root.manifest.seed_task_id
    shutil.copytree(root.env_dir, dest, symlinks=True)
    applications: list[Application] = []
    dropped: list[Application] = []
    graph = DependencyGraph()
    trial = dest.with_name(f"{dest.name}.trial")
    try:
        for index in removal.kept:  # one at a time, so a change that no longer applies is left out alone
            application = history[index]
            shutil.rmtree(trial, ignore_errors=True)
            shutil.copytree(dest, trial, symlinks=True)
            draft = format_of(root.task).draft(trial)
            draft.hints = hints
            try:
                (made,) = apply_steps(draft, [(application.operator, application.params)], graph)
            except Exception as exc:  # params made over a removed change's work
                log.warning(
                    "%s: change %d (%s) does not apply without the removed changes; left out: %s",
                    seed_id,
                    index + 1,
                    application.operator,
                    exc,
                )
                dropped.append(application)
                continue
            shutil.rmtree(dest)
            trial.rename(dest)
            applications.append(made)
            graph = graph.extend(made.edges)
    finally:
        shutil.rmtree(trial, ignore_errors=True)
    checks: list[CheckResult] = []
    if applications:
        draft = format_of(root.task).draft(dest)
        draft.hints = hints
        checks = run_checks(
            root.task, load_copy(root.task, dest), applications, graph, draft, backend=backend, seed=seed
        )
        failed = [f"{c.name}: {c.detail}" for c in checks if not c.passed]
        if failed:
            log.warning("%s: w/o dependencies fails its checks: %s", seed_id, "; ".join(failed))
    return WithoutDependencies(
        applications,
        graph,
        removal,
        [history[index] for index in removal.removed],
        dropped,
        checks,
    )
