"""Proposers: given an accepted parent, propose the operator applications that make a child.

The programmatic proposer makes a seeded choice of operators and parameters; the LLM proposer
(:mod:`res_repro.res.llm_proposer`) asks a model. Both report their cost per child (outer executions,
requests, tokens, seconds).
"""

from __future__ import annotations

import abc
import random
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import Application, Operator


@dataclass(frozen=True)
class Proposal:
    """Operator applications to try, as (operator name, params) pairs, plus a rationale.

    A proposal without steps is a failed revision (an invalid answer): ``problems`` says why, and the
    scaler sends it back as feedback while the revision budget lasts. A ``declined`` one says, as final,
    that no operator of the catalogue applies (the rationale says why), as a None from a proposer does.
    """

    steps: tuple[tuple[str, dict[str, Any]], ...]
    rationale: str = ""
    problems: tuple[str, ...] = ()
    declined: bool = False


class ProposerFailure(RuntimeError):
    """The proposer could not be asked (its provider failed after retries): an infrastructure failure of
    the seed's scaling, never a verdict on a candidate. The message is one line."""


@dataclass
class ProposerCost:
    """What proposing one child cost: proposals made (outer executions: one per revision), model requests
    (every one, answered from the response cache or not, ``cache_hits`` of them from the cache), tokens
    (as the provider counted them when the response was made) and seconds."""

    executions: int = 0
    requests: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return asdict(self)


@dataclass
class ProposalContext:
    """What a proposer may look at: the parent (its task, the changes so far and the reference's run on
    it), the candidate's draft and graph, and what failed before. A model proposer keeps its conversation
    here across the revisions of one child."""

    draft: Any
    graph: DependencyGraph
    feedback: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)  # operator names rejected earlier this round
    families: list[str] = field(default_factory=list)  # the round's seeded family order (programmatic)
    task: Task | None = None  # the parent environment's task
    history: list[Application] = field(default_factory=list)  # the changes accepted so far, root first
    reference: EpisodeRecord | None = None  # the reference's run on the parent (for proposers that read it)
    label: str = ""  # which child this is (seed task and depth): a model proposer's cache sample
    messages: list[dict[str, Any]] = field(default_factory=list)  # a model proposer's conversation
    pending: str | None = None  # the id of the proposal call whose verdict the next revision answers


class Proposer(abc.ABC):
    """Proposes changes for one child at a time; ``reads_reference`` says whether it needs the reference's
    run on the parent (the scaler then puts it in the context)."""

    reads_reference: ClassVar[bool] = False

    @abc.abstractmethod
    def propose(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> Proposal | None:
        """A proposal, or None when nothing can ever apply (final: no revision can change it); adds its
        cost to ``cost``."""

    @abc.abstractmethod
    def fingerprint(self) -> dict[str, Any]:
        """What determines this proposer's proposals (part of the key under which children are reused)."""


TRIES_PER_FAMILY = 2  # candidates of the first family before a revision moves on to the next


class ProgrammaticProposer(Proposer):
    """A seeded choice among the operators that apply: the three families in a seeded order (so that each
    is as likely to go first, however many operators of each apply), avoiding operators that just failed,
    and within a family preferring changes that compose on an earlier change's artifact (with
    composition off the graph is empty and no change composes).

    The family order is drawn once per child: the first family gets :data:`TRIES_PER_FAMILY` candidates
    (a revision tries another operator of the same family, as a proposer revising its change would),
    each later family one, in turn, so that a family whose changes are rarely accepted is not left at the
    first rejection for one whose changes always are."""

    def __init__(self, operators: Sequence[Operator], *, per_child: int = 1) -> None:
        self.operators = list(operators)
        self.per_child = per_child

    def fingerprint(self) -> dict[str, Any]:
        """The operator library and how many operators make one child."""
        return {
            "kind": "programmatic",
            "operators": [op.name for op in self.operators],
            "per_child": self.per_child,
            "prefers": f"family ({TRIES_PER_FAMILY} tries), then composing",
        }

    def propose(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> Proposal | None:
        """Pick ``per_child`` applicable operators at random (fresh ones first, then by the families'
        seeded order, then those that compose on an earlier change) and sample their params."""
        started = time.perf_counter()
        cost.executions += 1
        pool = [op for op in self.operators if op.kind == context.draft.kind]
        rng.shuffle(pool)
        if not context.families:
            context.families = sorted({op.family.value for op in pool})
            rng.shuffle(context.families)
        passed_over = max(
            0, len(context.tried) - TRIES_PER_FAMILY + 1
        )  # families moved past after rejections
        moves = passed_over % len(context.families) if context.families else 0
        families = context.families[moves:] + context.families[:moves]
        candidates = []
        for operator in pool:
            params = operator.propose(context.draft, context.graph, rng)
            if params is not None:
                fresh = operator.name not in context.tried
                family = families.index(operator.family.value)
                composes = operator.composes(params, context.graph)
                candidates.append((not fresh, family, not composes, operator, params))
        candidates.sort(key=lambda candidate: candidate[:3])  # stable: the order is random otherwise
        steps = tuple((operator.name, params) for *_, operator, params in candidates[: self.per_child])
        cost.seconds += time.perf_counter() - started
        return Proposal(steps, "seeded choice") if steps else None
