"""Proposers: given an accepted parent, propose the operator applications that make a child.

The programmatic proposer makes a seeded choice of operators and parameters; the LLM proposer asks a
model, which sees a summary of the parent, the operator catalogue and the feedback of failed checks, and
answers with operator applications in JSON that are validated against each operator's schema. Both
report their cost per child (outer executions, tokens, seconds).
"""

from __future__ import annotations

import abc
import json
import random
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from res_repro.agents.providers import ModelRequest, Provider, ProviderError, Usage
from res_repro.agents.retry import RetryPolicy, call_with_retries
from res_repro.env.formats import Draft
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import Operator


@dataclass(frozen=True)
class Proposal:
    """Operator applications to try, as (operator name, params) pairs, plus a rationale.

    A proposal without steps is a failed revision (an empty or invalid answer): ``problems`` says why,
    and the scaler sends it back as feedback while the revision budget lasts.
    """

    steps: tuple[tuple[str, dict[str, Any]], ...]
    rationale: str = ""
    problems: tuple[str, ...] = ()


@dataclass
class ProposerCost:
    """What proposing one child cost: proposals made (outer executions), tokens and seconds."""

    executions: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return asdict(self)


@dataclass
class ProposalContext:
    """What a proposer may look at: the parent's draft and graph, and what failed before."""

    draft: Any
    graph: DependencyGraph
    feedback: list[str] = field(default_factory=list)
    tried: list[str] = field(default_factory=list)  # operator names rejected earlier this round
    families: list[str] = field(default_factory=list)  # the round's seeded family order (programmatic)


class Proposer(abc.ABC):
    """Proposes changes for one child at a time."""

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


CATALOGUE_HEADER = (
    "You scale the environment of an agent task: you make it harder to act in while the task's objective "
    "and grader stay exactly the same. Choose operator applications from the catalogue below. Answer with "
    'JSON only: {"rationale": "...", "applications": [{"operator": "<name>", "params": {...}}]}.'
)


CONTEXT_CHARS = 12_000  # the default bound on an environment's description


def bounded(text: str, budget: int) -> str:
    """``text`` cut to ``budget`` characters, saying so in the text when it is cut."""
    if len(text) <= budget:
        return text
    return f"{text[:budget]}\n[truncated: the description above shows {budget} of {len(text)} characters]"


def summarise(draft: Draft, graph: DependencyGraph, budget: int = CONTEXT_CHARS) -> str:
    """The environment as the LLM proposer sees it: the candidate's folder (``workdir``, which a simulated
    proposer opens), the draft's description (tools, records with their ids and field kinds, or files)
    and the dependency graph, bounded to ``budget`` characters."""
    body = {
        "kind": draft.kind,
        "workdir": str(draft.root),
        **draft.describe(),
        "dependency_graph": graph.to_dict(),
    }
    return bounded(json.dumps(body, indent=1), budget)


def _json_object(text: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if not match:
        raise ValueError("the reply holds no JSON object")
    data = json.loads(match.group(0))
    if not isinstance(data, dict) or not isinstance(data.get("applications"), list):
        raise ValueError("expected {'applications': [...]}")
    return data


class LLMProposer(Proposer):
    """A model proposes; replies that break an operator's schema are sent back as feedback."""

    def __init__(
        self,
        operators: Sequence[Operator],
        provider: Provider,
        model: str,
        *,
        retry: RetryPolicy,
        max_invalid_replies: int = 2,
        context_chars: int = CONTEXT_CHARS,
    ) -> None:
        self.operators = {op.name: op for op in operators}
        self.provider = provider
        self.model = model
        self.retry = retry
        self.max_invalid_replies = max_invalid_replies
        self.context_chars = context_chars

    def fingerprint(self) -> dict[str, Any]:
        """The model, where it is served, and the operator library it chooses from."""
        return {
            "kind": "llm",
            "provider": type(self.provider).__name__,
            "base_url": getattr(self.provider, "base_url", None),
            "model": self.model,
            "operators": sorted(self.operators),
            "context_chars": self.context_chars,
        }

    def _catalogue(self, kind: str) -> str:
        entries = [
            {
                "name": op.name,
                "family": op.family.value,
                "description": op.description,
                "params_schema": op.params_schema,
            }
            for op in self.operators.values()
            if op.kind == kind
        ]
        return json.dumps(entries, indent=1)

    def _validate(self, data: dict[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
        steps, problems = [], []
        for index, item in enumerate(data["applications"]):
            name = item.get("operator") if isinstance(item, dict) else None
            operator = self.operators.get(name) if isinstance(name, str) else None
            if operator is None:
                problems.append(f"applications[{index}]: unknown operator {name!r}")
                continue
            params = item.get("params", {})
            problem = operator.validate(params if isinstance(params, dict) else {})
            if problem:
                problems.append(f"applications[{index}]: {problem}")
            else:
                steps.append((operator.name, params))
        if not steps and not problems:
            problems.append("the proposal holds no operator application")
        return steps, problems

    def propose(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> Proposal | None:
        """Ask the model; schema violations go back to it, up to ``max_invalid_replies`` times. When no
        reply is valid, the answer is a proposal without steps whose problems are the last reply's."""
        summary = summarise(context.draft, context.graph, self.context_chars)
        user = f"Environment:\n{summary}\n\nOperator catalogue:\n{self._catalogue(context.draft.kind)}\n"
        if context.feedback:
            user += "\nYour previous proposal failed these checks; revise it:\n- " + "\n- ".join(
                context.feedback
            )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": CATALOGUE_HEADER},
            {"role": "user", "content": user},
        ]
        for _ in range(self.max_invalid_replies + 1):
            started = time.perf_counter()
            request = ModelRequest(self.model, tuple(messages), (), 0.0, 2048)
            try:
                response = call_with_retries(
                    lambda request=request: self.provider.complete(request), self.retry, rng
                )
            except ProviderError:
                cost.seconds += time.perf_counter() - started
                raise
            cost.executions += 1
            cost.seconds += time.perf_counter() - started
            usage = response.usage or Usage()
            cost.input_tokens += usage.input_tokens
            cost.output_tokens += usage.output_tokens
            try:
                data = _json_object(response.text or "")
                steps, problems = self._validate(data)
            except (ValueError, json.JSONDecodeError) as exc:
                steps, problems, data = [], [str(exc)], {}
            if steps and not problems:
                return Proposal(tuple(steps), str(data.get("rationale", "")))
            messages += [
                response.as_message(),
                {"role": "user", "content": "Invalid: " + "; ".join(problems)},
            ]
        return Proposal((), str(data.get("rationale", "")), tuple(problems))
