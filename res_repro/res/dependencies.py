"""Table 3A's transform: a saved environment with the dependency relations between its changes removed.

Every change of the saved lineage is made again on E0, in order. A change that did not compose is made with
its own params; one that composed on an earlier change's artifact (a record, a token, a tool, a file) is
made by the same operator on the original environment's material instead, re-proposed with no earlier
artifact in view. So each change survives, but none is a prerequisite of another: the dependency graph
holds the changes side by side instead of in chains (the paper: "removes composed dependencies and their
prerequisite work from saved environments").

Each remade change passes the same execution-grounded checks as a scaled child (applied, the reference
solves it, nop fails, the previous reference fails, the graph is feasible). A change that cannot be made
without composing within :data:`ATTEMPTS` proposals is left out and logged.
"""

from __future__ import annotations

import logging
import random
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from res_repro.env.formats import format_of, load_copy
from res_repro.env.middleware import REALISTIC
from res_repro.env.task import Task
from res_repro.res.checks import run_checks
from res_repro.res.graph import DependencyGraph
from res_repro.res.lineage import Node
from res_repro.res.operators import OPERATORS, Application
from res_repro.sandbox import Backend

log = logging.getLogger(__name__)

ATTEMPTS = 8
"""Fresh proposals tried for a change whose own params compose (or no longer apply) before it is left out."""


@dataclass(frozen=True)
class Independent:
    """The rebuilt environment's changes (in history order) and its dependency graph."""

    applications: list[Application]
    graph: DependencyGraph
    dropped: list[str]  # operators of changes that could not be made without composing


def _candidates(
    application: Application, current: Task, graph: DependencyGraph, rng: random.Random, hints: str
) -> Iterator[dict[str, Any]]:
    """The change's own params unless they compose on ``graph``, then fresh params of the same operator
    proposed with no earlier artifact in view."""
    operator = OPERATORS[application.operator]
    if not operator.composes(application.params, graph):
        yield application.params
    draft = format_of(current).draft(current.path)
    draft.hints = hints
    for _ in range(ATTEMPTS):
        params = operator.propose(draft, DependencyGraph(), rng)
        if params is not None and not operator.composes(params, graph):
            yield params


def _remake(
    application: Application,
    current: Task,
    graph: DependencyGraph,
    trial: Path,
    *,
    rng: random.Random,
    backend: Backend,
    seed: int,
    hints: str,
) -> tuple[Application, DependencyGraph] | None:
    """Make one change on ``current`` in ``trial`` without composing; None when no candidate passes."""
    operator = OPERATORS[application.operator]
    for params in _candidates(application, current, graph, rng, hints):
        shutil.rmtree(trial, ignore_errors=True)
        shutil.copytree(current.path, trial, symlinks=True)
        draft = format_of(current).draft(trial)
        draft.hints = hints
        try:
            edges = operator.apply(draft, params, graph)
        except Exception as exc:  # params made for another state of the environment
            log.debug("%s does not apply without its dependencies: %s", application.operator, exc)
            continue
        draft.save()
        made = Application(application.operator, application.family, params, tuple(edges))
        extended = graph.extend(edges)
        checks = run_checks(
            current, load_copy(current, trial), [made], extended, draft, backend=backend, seed=seed
        )
        if not made.composes and all(check.passed for check in checks):
            return made, extended
    return None


def without_dependencies(
    root: Node,
    history: Sequence[Application],
    dest: Path,
    *,
    backend: Backend,
    seed: int,
    hints: str = REALISTIC,
) -> Independent:
    """Write E0 plus every change of ``history``, none built on another, to ``dest`` (the changes' layers
    guiding an agent as ``hints`` says, as the lineage's did)."""
    shutil.copytree(root.env_dir, dest, symlinks=True)
    trial = dest.with_name(f"{dest.name}.trial")
    current, graph = load_copy(root.task, dest), DependencyGraph()
    applications: list[Application] = []
    dropped: list[str] = []
    try:
        for index, application in enumerate(history):
            rng = random.Random(f"{seed}-{root.manifest.seed_task_id}-without-dependencies-{index}")
            made = _remake(
                application, current, graph, trial, rng=rng, backend=backend, seed=seed, hints=hints
            )
            if made is None:
                log.warning(
                    "%s: change %d (%s) cannot be made without its dependencies; left out",
                    root.manifest.seed_task_id,
                    index + 1,
                    application.operator,
                )
                dropped.append(application.operator)
                continue
            shutil.rmtree(dest)
            trial.rename(dest)
            current = load_copy(root.task, dest)
            applications.append(made[0])
            graph = made[1]
    finally:
        shutil.rmtree(trial, ignore_errors=True)
    return Independent(applications, graph, dropped)
