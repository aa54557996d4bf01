"""The LLM proposer: a model reads the task and its environment, inspects the candidate, and proposes
operator applications by calling ``propose_changes``.

Its first message is the brief (:mod:`res_repro.res.proposer_brief`). In ``agentic`` mode (the paper
protocol's) it may inspect the candidate first (files, the reference's whole run) within a budget of
requests and tokens per revision; in ``single`` mode the brief carries the files' text and the model
answers at once. One conversation spans the revisions of a child: a rejected proposal gets its verdict
(the failed check and its cause) as the result of the call that made it, so the model revises what it
proposed. A proposal with no application says, as final, that no operator applies (its rationale is
kept). Replies that are not a usable proposal (not JSON, unknown operators, params outside an operator's
schema, cut at the output limit, longer than the reply cap) go back with the reason, up to
``max_invalid_replies`` per revision. Every request is counted and cached by its full content: a rerun
sends nothing. A provider that keeps failing raises :class:`ProposerFailure`.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from res_repro.agents.providers import ModelResponse, Provider, ProviderError
from res_repro.agents.providers.base import Generation
from res_repro.agents.response_cache import ResponseCache
from res_repro.agents.retry import RetryPolicy, call_with_retries
from res_repro.res.operators import Operator
from res_repro.res.proposer import (
    Proposal,
    ProposalContext,
    Proposer,
    ProposerCost,
    ProposerFailure,
)
from res_repro.res.proposer_brief import SYSTEM, BriefParts, brief
from res_repro.res.proposer_tools import INSPECTION, PROPOSE, Inspector
from res_repro.res.run_evidence import render_trace

AGENTIC, SINGLE = "agentic", "single"
MODES = (AGENTIC, SINGLE)
RATIONALE_CHARS = 2_000  # of a rationale a manifest keeps
TRACE_CHARS = 60_000  # of the reference's run read_reference_trace returns
SHOWN_REPLY_CHARS = 2_000  # of an over-long reply the conversation keeps
PROVIDER_DEFAULTS = Generation()  # no setting sent: the provider's defaults apply


@dataclass(frozen=True)
class ProposerLimits:
    """How the LLM proposer works and what bounds it (``scaling.proposer`` in the config)."""

    mode: str = AGENTIC
    per_child: int = 1  # applications one proposal holds
    max_turns: int = 16  # requests per revision, inspection included
    token_budget: int = 400_000  # input and output tokens per revision
    max_invalid_replies: int = 2  # unusable replies sent back per revision before it is spent
    max_reply_chars: int = 20_000  # a longer reply is unusable (and is not sent back whole)
    context_chars: int = 12_000  # the environment's description in the brief
    files_chars: int = 60_000  # the files' text in the brief (single mode)


def one_line(text: str, limit: int = 300) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _json_object(text: str) -> dict[str, Any]:
    match = re.search(r"\{.*\}", text or "", re.DOTALL)
    if not match:
        raise ValueError(
            "the reply holds no proposal: call propose_changes (or answer with its JSON arguments)"
        )
    data = json.loads(match.group(0))
    if not isinstance(data, dict):
        raise ValueError("expected a JSON object {'rationale': ..., 'applications': [...]}")
    return data


class LLMProposer(Proposer):
    """A model proposes (see the module's description)."""

    reads_reference = True

    def __init__(
        self,
        operators: Sequence[Operator],
        provider: Provider,
        model: str,
        *,
        retry: RetryPolicy,
        generation: Generation = PROVIDER_DEFAULTS,
        limits: ProposerLimits = ProposerLimits(),
        cache: ResponseCache | None = None,
        seed: int = 0,
    ) -> None:
        if limits.mode not in MODES:
            raise ValueError(f"scaling.proposer.mode: expected one of {list(MODES)}, got {limits.mode!r}")
        self.operators = {op.name: op for op in operators}
        self.provider = provider
        self.model = model
        self.retry = retry
        self.generation = generation
        self.limits = limits
        self.cache = cache
        self.seed = seed

    def fingerprint(self) -> dict[str, Any]:
        """The model, where it is served, how it is asked, and the operator library it chooses from."""
        return {
            "kind": "llm",
            "provider": self.provider.name,
            "base_url": self.provider.base_url,
            "model": self.model,
            "operators": sorted(self.operators),
            **asdict(self.limits),
            "generation": asdict(self.generation),
        }

    @property
    def tools(self) -> tuple[Any, ...]:
        """What the model may call."""
        return (*INSPECTION, PROPOSE) if self.limits.mode == AGENTIC else (PROPOSE,)

    def _start(self, context: ProposalContext) -> None:
        assert context.task is not None, "the scaler puts the parent's task in the context"
        parts = BriefParts(
            task=context.task,
            describe=context.draft.describe(),
            graph=context.graph,
            history=context.history,
            reference=context.reference,
            operators=[op for op in self.operators.values() if op.kind == context.draft.kind],
            per_child=self.limits.per_child,
            root=context.draft.root,
        )
        text = brief(
            parts,
            agentic=self.limits.mode == AGENTIC,
            context_chars=self.limits.context_chars,
            files_chars=self.limits.files_chars,
        )
        context.messages[:] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}]

    def _say(self, context: ProposalContext, text: str) -> None:
        """Tell the model ``text``: as the result of its pending proposal call, or as a user message."""
        if context.pending is not None:
            context.messages.append({"role": "tool", "tool_call_id": context.pending, "content": text})
            context.pending = None
        elif context.messages[-1]["role"] == "user":
            context.messages[-1] = {
                **context.messages[-1],
                "content": f"{context.messages[-1]['content']}\n\n{text}",
            }
        else:
            context.messages.append({"role": "user", "content": text})

    def _ask(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> ModelResponse:
        request = self.generation.request(self.model, context.messages, self.tools, self.seed)
        key = request.key(self.provider.name, self.provider.base_url, f"proposer/{context.label}")
        started = time.perf_counter()
        response = self.cache.get(key) if self.cache else None
        if response is not None:
            cost.cache_hits += 1
        else:
            try:
                response = call_with_retries(
                    lambda: self.provider.complete(request), self.retry, rng, model=self.model
                )
            except ProviderError as exc:
                cost.seconds += time.perf_counter() - started
                status = f"HTTP {exc.status}: " if exc.status else ""
                raise ProposerFailure(f"the proposer model failed: {status}{one_line(str(exc))}") from None
            if self.cache:
                self.cache.put(key, response)
        cost.requests += 1
        cost.seconds += time.perf_counter() - started
        cost.input_tokens += response.usage.input_tokens
        cost.output_tokens += response.usage.output_tokens
        cost.cached_tokens += response.usage.cached_tokens
        return response

    def _validate(
        self, data: dict[str, Any], kind: str
    ) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
        applications = data.get("applications")
        if not isinstance(applications, list):
            return [], ["expected 'applications': a list of {'operator': name, 'params': {...}}"]
        steps, problems = [], []
        if len(applications) > self.limits.per_child:
            problems.append(f"{len(applications)} applications: propose at most {self.limits.per_child}")
        for index, item in enumerate(applications):
            name = item.get("operator") if isinstance(item, dict) else None
            operator = self.operators.get(name) if isinstance(name, str) else None
            if operator is None or operator.kind != kind:
                known = sorted(n for n, op in self.operators.items() if op.kind == kind)
                problems.append(f"applications[{index}]: unknown operator {name!r}; expected one of {known}")
                continue
            params = item.get("params", {})
            problem = operator.validate(params if isinstance(params, dict) else {})
            if problem:
                problems.append(f"applications[{index}] ({name}): {problem}")
            else:
                steps.append((operator.name, params))
        if not steps and not problems:
            problems.append("the proposal holds no operator application")
        return steps, problems

    def _unusable(self, response: ModelResponse) -> str | None:
        """Why a reply cannot be read at all (cut at the output limit, or longer than the cap), or None."""
        if response.truncated:
            return "the reply was cut at the output token limit: propose fewer or smaller applications"
        size = len(response.text or "") + sum(len(call.arguments) for call in response.tool_calls)
        if size > self.limits.max_reply_chars:
            return f"the reply has {size} characters; keep it under {self.limits.max_reply_chars}"
        return None

    def _answer_calls(
        self, context: ProposalContext, response: ModelResponse, inspector: Inspector
    ) -> tuple[Proposal | None, list[str]]:
        """Answer each tool call of ``response``; the first valid proposal is returned (its verdict comes
        with the next revision), with the problems of any invalid one."""
        proposal, problems = None, []
        for call in response.tool_calls:
            arguments = call.parsed()
            if arguments is None:
                result = "error: the arguments are not a JSON object"
                problems.append(result)
            elif call.name == PROPOSE.name and proposal is None and arguments.get("applications") == []:
                proposal = Proposal((), str(arguments.get("rationale", ""))[:RATIONALE_CHARS], declined=True)
                result = "noted: no change"
            elif call.name == PROPOSE.name and proposal is None:
                steps, found = self._validate(arguments, context.draft.kind)
                if steps and not found:
                    rationale = str(arguments.get("rationale", ""))[:RATIONALE_CHARS]
                    proposal, context.pending = Proposal(tuple(steps), rationale), call.id
                    continue
                problems += found
                result = "invalid: " + "; ".join(found)
            elif call.name == PROPOSE.name:
                result = "ignored: one proposal at a time"
            elif self.limits.mode == AGENTIC:
                result = inspector.answer(call.name, arguments)
            else:
                result = f"error: unknown tool {call.name!r}; answer by calling {PROPOSE.name}"
                problems.append(result)
            context.messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        return proposal, problems

    def _sent_back(self, response: ModelResponse, problem: str | None) -> dict[str, Any]:
        """The assistant message as the conversation keeps it (:meth:`ModelResponse.as_message`), an
        unusable reply cut and without calls."""
        if problem is not None:
            return {"role": "assistant", "content": (response.text or "")[:SHOWN_REPLY_CHARS] or "(no text)"}
        return response.as_message()

    def propose(self, context: ProposalContext, rng: random.Random, cost: ProposerCost) -> Proposal:
        """One revision: start the conversation or send the last verdict back, then ask until a valid
        proposal, the invalid-reply budget, the request budget or the token budget ends it."""
        cost.executions += 1
        if not context.messages:
            self._start(context)
        elif context.feedback:
            causes = "\n".join(f"- {line}" for line in context.feedback)
            self._say(
                context, f"Rejected; the failed checks and their causes:\n{causes}\nRevise the proposal."
            )
        inspector = Inspector(
            lambda: context.draft.root,
            render_trace(context.reference, TRACE_CHARS) if context.reference else "not run",
        )
        tokens_at_start = cost.input_tokens + cost.output_tokens
        invalid: list[str] = []
        sent_back = 0
        for _ in range(self.limits.max_turns):
            response = self._ask(context, rng, cost)
            problem = self._unusable(response)
            context.messages.append(self._sent_back(response, problem))
            if problem is not None:
                problems = [problem]
            elif response.tool_calls:
                proposal, problems = self._answer_calls(context, response, inspector)
                if proposal is not None:
                    return proposal
            else:
                try:
                    data = _json_object(response.text or "")
                    steps, problems = self._validate(data, context.draft.kind)
                except (ValueError, json.JSONDecodeError) as exc:
                    data, steps, problems = {}, [], [one_line(str(exc))]
                rationale = str(data.get("rationale", ""))[:RATIONALE_CHARS]
                if data.get("applications") == []:
                    return Proposal((), rationale, declined=True)
                if steps and not problems:
                    return Proposal(tuple(steps), rationale)
            if problems:
                invalid = problems
                if sent_back >= self.limits.max_invalid_replies:
                    break
                if problem is not None or not response.tool_calls:  # a call's problems are in its result
                    self._say(context, "Invalid: " + "; ".join(problems))
                sent_back += 1
            if cost.input_tokens + cost.output_tokens - tokens_at_start > self.limits.token_budget:
                return Proposal(
                    (), "", (f"the revision's token budget ({self.limits.token_budget}) is spent",)
                )
        return Proposal((), "", tuple(invalid) or (f"no proposal within {self.limits.max_turns} requests",))
