"""Recursive environment scaling: propose, check, accept, evaluate the target, and go one level deeper.

With inheritance a child extends its parent; without it, every round extends E0 independently and the
last construction is the one evaluated. Every seed grows its depth-1 child before the stopping rule is
consulted (the seed itself is never a stopping point: the paper's Table A4 has one child at depth 1 per
seed); after each child, recursion stops when the target agent fulfils the task completely (the paper's
rule: full native score, every rubric item, the verifier passed) in none of its attempts at that child.
It also stops at the depth cap (a cap of 0 grows nothing) and when no valid child can be found within
the revision budget, when no operator applies, or when the seed's own reference fails in its own
environment (an invalid task, which no child could fix); the lineage then says why
(:func:`no_child_reason`), and the store keeps it. A child is built from a copy of
its parent plus its own change, so depth d costs d single steps, not d rebuilds; finished nodes are found
again by id and reused.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import shutil
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent
from res_repro.env.formats import format_of, load_copy
from res_repro.env.middleware import GUIDED, REALISTIC
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord, run_episode
from res_repro.res.admission import AdmissionSettings, admit
from res_repro.res.checks import CheckResult, invalid_seed, own_reference, run_checks
from res_repro.res.graph import DependencyGraph
from res_repro.res.lineage import ENV_DIR, LineageStore, Manifest, Node, node_id
from res_repro.res.operators import OPERATORS, Application
from res_repro.res.proposer import Proposal, ProposalContext, Proposer, ProposerCost, ProposerFailure
from res_repro.sandbox import Backend

log = logging.getLogger(__name__)


HINTS = {
    REALISTIC: "errors carry a status, a code and a message; how to recover is in the tools' documentation",
    GUIDED: "errors also carry a hint and the next call to make",
}
NOTHING_APPLIES = "no operator of the library applies to this environment (it offers nothing they change)"
PROPOSER_FAILED = "proposer_failed"  # a stop reason: the proposer's provider failed (infrastructure)
TARGET_UNAVAILABLE = "target_unavailable"  # a stop reason: the target's attempts failed for infrastructure
INCOMPLETE = (PROPOSER_FAILED, TARGET_UNAVAILABLE)  # stop reasons of lineages the next run goes on with


class TargetUnavailable(RuntimeError):
    """The scaling target's attempts at a node ended in infrastructure failures (a provider outage, a
    sandbox failure) and none fulfilled the task: no verdict, nothing stored; the next run asks again."""


STOP_RULES = {
    "fulfilment": "fulfilled",  # the paper's: complete task fulfilment (each format's grade defines it)
    "pass": "passed",  # the benchmark's pass rule (e.g. a Claw-style native score >= its threshold)
}


@dataclass(frozen=True)
class ScalingSettings:
    """The knobs of one scaling run, built from the ``scaling`` config group and the run's seed (see
    ``res_repro.pipelines.lineages.scaling_settings``)."""

    depth_cap: int
    inheritance: bool
    composition: bool  # operators may build on earlier changes' artifacts
    max_revisions: int
    target_attempts: int
    seed: int
    stop_on: str  # a key of STOP_RULES: when a target attempt counts as solved
    hints: str = REALISTIC  # a key of HINTS: how the new layers' errors guide an agent


@dataclass(frozen=True)
class AdmissionGate:
    """AutoEnvScaling-style admission of every candidate that passes the RES checks: a refusal is a failed
    check (its reasons go back to the proposer and the revision is spent)."""

    settings: AdmissionSettings
    solver: Agent

    def fingerprint(self) -> dict[str, Any]:
        """What decides the verdicts: the settings and the solver."""
        return {**self.settings.to_dict(), "solver": self.solver.fingerprint()}


@dataclass
class LineageResult:
    """The accepted nodes of one seed task, root first, and why scaling stopped: ``stop_reason`` is
    ``target_failed``, ``no_valid_child``, ``proposer_failed``, ``target_unavailable`` or ``depth_cap``;
    for ``no_valid_child``, ``why`` says what the last rejected candidate failed (see
    :func:`no_child_reason`), for ``proposer_failed`` and ``target_unavailable`` how the proposer's or the
    target's runs failed (infrastructure failures: the lineage is incomplete and the next run goes on).
    ``unaccepted`` is what proposing cost at the depth where no child was accepted (empty otherwise)."""

    seed_task_id: str
    nodes: list[Node]
    stop_reason: str
    why: str = ""
    unaccepted: dict[str, Any] = field(default_factory=dict)

    @property
    def last(self) -> Node:
        """The last accepted environment (the "+RES" environment)."""
        return self.nodes[-1]


def root_node(task: Task, store: LineageStore) -> Node:
    """E0 as the lineage's first node (a copy of the seed task, so the lineage is self-contained)."""
    nid = node_id(None, task.content_hash, [])
    existing = store.load(task.task_id, nid)
    if existing is not None:
        return existing
    work = store.workspace(task.task_id)
    try:
        format_of(task).copy(task, work / ENV_DIR)
        manifest = Manifest(
            nid,
            task.task_id,
            task.kind,
            None,
            0,
            [],
            [],
            DependencyGraph(),
            "",
            context=format_of(task).context(task),
        )
        return store.save(work / ENV_DIR, manifest)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def apply_steps(
    draft: Any, steps: Sequence[tuple[str, dict[str, Any]]], graph: DependencyGraph
) -> list[Application]:
    """Apply each (operator, params) in order to ``draft`` over ``graph`` (each step sees the edges of the
    ones before), save the draft, and return the applications with the edges they added."""
    applications = []
    for name, params in steps:
        operator = OPERATORS[name]
        edges = operator.apply(draft, params, graph)
        applications.append(Application(name, operator.family.value, params, tuple(edges)))
        graph = graph.extend(edges)
    draft.save()
    return applications


def without_paths(text: str, *folders: Path) -> str:
    """``text`` with the host paths of ``folders`` (as given and resolved) replaced by what they hold, so
    that feedback and records never name the machine's folders."""
    for folder in folders:
        for shown in {str(folder.resolve()), str(folder)}:
            text = text.replace(shown, "<candidate>")
    return text


def no_child_reason(store: LineageStore, base: Node, depth: int) -> str:
    """Why no child of ``base`` at ``depth`` was accepted, from the store's rejections: the last rejected
    candidate's operators and its first failed check with the check's detail (or, when no candidate
    reached the checks, that none was made)."""
    seed_id, parent_id = base.manifest.seed_task_id, base.manifest.node_id
    mine = [
        r for r in store.rejections(seed_id) if r.get("parent_id") == parent_id and r.get("depth") == depth
    ]
    if not mine:
        return "no candidate reached the checks (every proposal was empty)"
    last = max(mine, key=lambda r: r.get("revision", 0))
    operators = "+".join(step["operator"] for step in last.get("steps", ())) or "no operator"
    failed = [c for c in last.get("checks", ()) if not c.get("passed")]
    if not last.get("steps") and failed:  # nothing applied, or the seed itself is invalid
        return str(failed[0].get("detail"))
    check = f"{failed[0]['name']}: {failed[0].get('detail') or 'failed'}" if failed else "rejected"
    return f"last candidate ({operators}, revision {last.get('revision', 0)}) failed {check}"


class Scaler:
    """Builds lineages for seed tasks with one proposer, one target, one store and one sandbox backend."""

    def __init__(
        self,
        *,
        settings: ScalingSettings,
        proposer: Proposer,
        store: LineageStore,
        backend: Backend,
        target: Agent | None = None,
        admission: AdmissionGate | None = None,
        parallel_attempts: int = 1,
    ) -> None:
        self.settings = settings
        self.proposer = proposer
        self.store = store
        self.backend = backend
        self.target = target
        self.admission = admission
        # how many of a node's target attempts run at once (the caller keeps it within the caps)
        self.parallel_attempts = parallel_attempts
        self.held_out: dict[str, str] = {}  # task id -> instruction: admission's leakage set

    def hold_out(self, tasks: Iterable[Task]) -> None:
        """Admission's held-out set: the instructions of ``tasks`` (a seed's own is never held against it)."""
        self.held_out.update({task.task_id: task.instruction for task in tasks})

    def _admission(self, seed_id: str, child: Task) -> CheckResult:
        """The admission verdict on a candidate as a check."""
        assert self.admission is not None
        verdict = admit(
            child,
            self.admission.solver,
            [text for task_id, text in self.held_out.items() if task_id != seed_id],
            backend=self.backend,
            seed=self.settings.seed,
            settings=self.admission.settings,
        )
        detail = "; ".join(verdict.reasons) or f"solver rewards {verdict.solver_rewards}"
        return CheckResult("admission", verdict.admitted, detail)

    def growth_key(self, base: Node, depth: int) -> str:
        """What decides the child grown from ``base`` at ``depth``: a rerun with the same key reuses it."""
        blob = json.dumps(
            {
                "parent": base.manifest.node_id,
                "depth": depth,
                "seed": self.settings.seed,
                "composition": self.settings.composition,
                **({"hints": self.settings.hints} if self.settings.hints != GUIDED else {}),
                "max_revisions": self.settings.max_revisions,
                "proposer": self.proposer.fingerprint(),
                **({"admission": self.admission.fingerprint()} if self.admission else {}),
            },
            sort_keys=True,
        )
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def grow(self, base: Node, depth: int) -> Node | None:
        """One accepted child of ``base`` (revised up to the budget), or None when none passes the checks;
        :class:`ProposerFailure` when the proposer's provider fails. What proposing cost is kept either
        way: in the child's manifest, or (no child) in the store's unaccepted records."""
        seed_id = base.manifest.seed_task_id
        key = self.growth_key(base, depth)
        known = self.store.recall_child(seed_id, key)
        if known is not None:
            return known
        invalid = (
            invalid_seed(base.task, self.backend, self.settings.seed) if base.manifest.depth == 0 else None
        )
        if invalid is not None:  # no child could pass reference_passes: say so rather than try
            self._keep_rejection(base, depth, 0, Proposal((), "invalid seed"), [invalid])
            self._keep_unaccepted(base, depth, key, ProposerCost(), invalid.detail)
            return None
        cost = ProposerCost()
        try:
            child = self._grow(base, depth, key, cost)
        except ProposerFailure as exc:
            self._keep_unaccepted(base, depth, key, cost, str(exc))
            raise
        if child is None:
            self._keep_unaccepted(base, depth, key, cost, no_child_reason(self.store, base, depth))
        return child

    def _context(self, base: Node, depth: int) -> ProposalContext:
        """What the proposer sees of ``base``: its task, the changes so far, the graph it may build on and
        (for a proposer that reads it) the reference's run on it."""
        reference = None
        if self.proposer.reads_reference:
            reference = own_reference(base.task, self.backend, self.settings.seed)
        return ProposalContext(
            draft=None,
            graph=base.manifest.graph if self.settings.composition else DependencyGraph(),
            task=base.task,
            history=list(base.manifest.history),
            reference=reference,
            label=f"{base.manifest.seed_task_id}/{base.manifest.node_id}/{depth}/{self.settings.seed}",
        )

    def _grow(self, base: Node, depth: int, key: str, cost: ProposerCost) -> Node | None:
        """The revisions of one child (see :meth:`grow`); ``cost`` adds up every proposer call."""
        seed_id = base.manifest.seed_task_id
        rng = random.Random(f"{self.settings.seed}-{seed_id}-{depth}")
        context = self._context(base, depth)
        visible = context.graph
        for revision in range(self.settings.max_revisions + 1):
            work = self.store.workspace(seed_id)
            try:
                env = work / ENV_DIR
                shutil.copytree(base.env_dir, env, symlinks=True)
                context.draft = format_of(base.task).draft(env)
                context.draft.hints = self.settings.hints
                try:
                    proposal = self.proposer.propose(context, rng, cost)
                except ProposerFailure as exc:
                    failure = CheckResult("proposer", False, str(exc))
                    self._keep_rejection(
                        base, depth, revision, Proposal((), "the proposer failed"), [failure]
                    )
                    raise
                if proposal is None or proposal.declined:  # final: no revision can make an operator apply
                    log.debug("%s depth %d: no operator applies", seed_id, depth)
                    said = f" (the proposer: {proposal.rationale})" if proposal and proposal.rationale else ""
                    nothing = CheckResult("applies", False, NOTHING_APPLIES + said)
                    self._keep_rejection(
                        base, depth, revision, proposal or Proposal((), "no operator applies"), [nothing]
                    )
                    return None
                if not proposal.steps:  # an empty or invalid answer spends a revision
                    context.feedback = [f"proposal: {p}" for p in proposal.problems] or [
                        "proposal: no operator application"
                    ]
                    log.debug("%s depth %d revision %d empty: %s", seed_id, depth, revision, context.feedback)
                    invalid = CheckResult(
                        "proposal", False, "no valid proposal: " + "; ".join(proposal.problems)
                    )
                    self._keep_rejection(base, depth, revision, proposal, [invalid])
                    continue
                try:
                    applications = apply_steps(context.draft, proposal.steps, visible)
                except Exception as exc:  # a proposal that cannot be applied is a rejected candidate
                    reason = without_paths(f"{type(exc).__name__}: {exc}", env, self.store.root)
                    context.feedback = [f"apply: {reason}"]
                    context.tried += [name for name, _ in proposal.steps]
                    log.debug("%s depth %d revision %d not applicable: %s", seed_id, depth, revision, reason)
                    self._keep_rejection(
                        base, depth, revision, proposal, [CheckResult("apply", False, reason)]
                    )
                    continue
                nid = node_id(base.manifest.node_id, f"{base.manifest.content_hash}-{depth}", applications)
                existing = self.store.load(seed_id, nid)
                if existing is not None:
                    self.store.remember_child(seed_id, key, nid)
                    return existing
                graph = base.manifest.graph.extend(e for a in applications for e in a.edges)
                child_task = load_copy(base.task, env)
                checks = run_checks(
                    base.task,
                    child_task,
                    applications,
                    graph,
                    context.draft,
                    backend=self.backend,
                    seed=self.settings.seed,
                )
                failed = [c for c in checks if not c.passed]
                if not failed and self.admission is not None:
                    checks.append(self._admission(seed_id, child_task))
                    failed = [c for c in checks if not c.passed]
                if not failed:
                    manifest = Manifest(
                        node_id=nid,
                        seed_task_id=seed_id,
                        kind=base.task.kind,
                        parent_id=base.manifest.node_id,
                        depth=depth,
                        applications=applications,
                        history=[*base.manifest.history, *applications],
                        graph=graph,
                        content_hash="",
                        checks=[c.to_dict() for c in checks],
                        proposer={**cost.to_dict(), "revisions": revision, "rationale": proposal.rationale},
                        context=base.manifest.context,
                    )
                    child = self.store.save(env, manifest)
                    self.store.remember_child(seed_id, key, nid)
                    return child
                context.feedback = [f"{c.name}: {c.detail}" for c in failed]
                context.tried += [name for name, _ in proposal.steps]
                log.debug("%s depth %d revision %d rejected: %s", seed_id, depth, revision, context.feedback)
                self._keep_rejection(base, depth, revision, proposal, checks)
            finally:
                shutil.rmtree(work, ignore_errors=True)
        return None

    def _keep_unaccepted(self, base: Node, depth: int, key: str, cost: ProposerCost, why: str) -> None:
        """Record what growing ``base`` at ``depth`` cost when it accepted no child, and why."""
        record = {"parent_id": base.manifest.node_id, "depth": depth, "proposer": cost.to_dict(), "why": why}
        self.store.record_unaccepted(base.manifest.seed_task_id, key, record)

    def _keep_rejection(
        self, base: Node, depth: int, revision: int, proposal: Proposal, checks: Sequence[CheckResult]
    ) -> None:
        """Record a rejected candidate in the lineage store: its change and every check result."""
        self.store.record_rejection(
            base.manifest.seed_task_id,
            {
                "parent_id": base.manifest.node_id,
                "depth": depth,
                "revision": revision,
                "steps": [{"operator": name, "params": params} for name, params in proposal.steps],
                "rationale": proposal.rationale,
                "checks": [c.to_dict() for c in checks],
            },
        )

    def evaluate_target(self, node: Node) -> list[dict[str, Any]]:
        """The target's attempts at ``node`` (reused from the manifest when the same target ran before and
        its outcomes say whether it fulfilled the task)."""
        assert self.target is not None
        fingerprint = self.target.fingerprint()
        done = [o for o in node.manifest.target if o.get("agent") == fingerprint and "fulfilled" in o]
        if len(done) >= self.settings.target_attempts:
            return done
        target = self.target

        def attempt_at(attempt: int) -> EpisodeRecord:
            return run_episode(
                node.task,
                target,
                backend=self.backend,
                episode_id=f"target-{node.manifest.node_id}-{attempt}",
                environment=f"res-depth-{node.manifest.depth}",
                seed=self.settings.seed + attempt,
            )

        attempts = range(self.settings.target_attempts)
        if self.parallel_attempts > 1:  # each attempt has its own seed: the records do not depend on order
            with ThreadPoolExecutor(max_workers=self.parallel_attempts, thread_name_prefix="target") as pool:
                records = list(pool.map(attempt_at, attempts))
        else:
            records = [attempt_at(attempt) for attempt in attempts]
        outcomes, unavailable = [], []
        for attempt, record in enumerate(records):
            if record.infrastructure_failure:  # says nothing about the target: no verdict is kept
                unavailable.append(f"attempt {attempt}: {record.stop_reason}: {record.error}")
                continue
            outcomes.append(
                {
                    "agent": fingerprint,
                    "attempt": attempt,
                    "passed": record.passed,
                    "fulfilled": record.fulfilled,
                    "score": record.score,
                    "turns": record.turns,
                    "tool_calls": record.tool_calls,
                    "stop_reason": record.stop_reason,
                }
            )
        if unavailable and not any(o[STOP_RULES[self.settings.stop_on]] for o in outcomes):
            raise TargetUnavailable(
                f"the scaling target could not be run at depth {node.manifest.depth} ({unavailable[0]})"
            )
        node.manifest.target = [o for o in node.manifest.target if o.get("agent") != fingerprint] + outcomes
        self.store.update(node)
        return outcomes

    def _target_gives_up(self, node: Node) -> bool:
        solved = STOP_RULES[self.settings.stop_on]
        return self.target is not None and not any(o[solved] for o in self.evaluate_target(node))

    def scale(self, task: Task, depth_cap: int | None = None) -> LineageResult:
        """Scale one seed task until a stopping rule fires (``depth_cap`` overrides the settings').

        The seed is not a stopping point: the depth-1 child is grown whatever the target makes of the
        seed, and the rule is consulted after each child."""
        root = root_node(task, self.store)
        nodes = [root]
        parent = root
        for depth in range(1, (self.settings.depth_cap if depth_cap is None else depth_cap) + 1):
            base = parent if self.settings.inheritance else root
            try:
                child = self.grow(base, depth)
            except ProposerFailure as exc:
                log.warning("%s depth %d: %s (the next run tries again)", task.task_id, depth, exc)
                spent = self.store.unaccepted(task.task_id, self.growth_key(base, depth)) or {}
                return LineageResult(task.task_id, nodes, PROPOSER_FAILED, str(exc), spent)
            if child is None:  # grow kept why, with what proposing cost
                spent = self.store.unaccepted(task.task_id, self.growth_key(base, depth)) or {}
                why = spent.get("why") or no_child_reason(self.store, base, depth)
                return LineageResult(task.task_id, nodes, "no_valid_child", why, spent)
            nodes.append(child)
            try:
                gives_up = self._target_gives_up(child)
            except TargetUnavailable as exc:
                log.warning("%s: %s (the next run tries again)", task.task_id, exc)
                return LineageResult(task.task_id, nodes, TARGET_UNAVAILABLE, str(exc))
            if gives_up:
                return LineageResult(task.task_id, nodes, "target_failed")
            parent = child
        return LineageResult(task.task_id, nodes, "depth_cap")
