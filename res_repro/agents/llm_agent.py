"""The LLM agent: one tool-calling loop over any environment's tools, for any provider.

A turn is one model response, possibly with several tool calls, each answered in order. The episode
ends when the model calls ``submit_answer`` (or answers without calling a tool), at the turn limit, at
the wall-clock limit, when the context overflows, when a reply is cut at the output token limit
(``truncated``: its calls may be partial, so none is made), or when the provider keeps failing (an
infrastructure failure, retried by the runner and never scored). Every response is cached by its full
request, so an interrupted run resumes without paying twice and a replay is exact.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from res_repro.agents.base import Agent, Attempt
from res_repro.agents.providers import (
    ContextLengthError,
    ModelRequest,
    ModelResponse,
    Provider,
    ProviderError,
    Usage,
)
from res_repro.agents.providers.base import ConversationKeys, Generation
from res_repro.agents.response_cache import ResponseCache
from res_repro.agents.retry import RetryPolicy, call_with_retries
from res_repro.env.outcome import PERMANENT_ERROR, AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.env.tools import ToolCall, ToolSpec

if TYPE_CHECKING:
    from res_repro.env.environment import Environment

SUBMIT = ToolSpec(
    "submit_answer",
    "Finish the task. Put your final answer (or a short summary of what you did) in `answer`.",
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    },
)

GREEDY = Generation(temperature=0.0)
TRUNCATED_REPLY = (
    "the reply was cut at the output token limit (max_output_tokens); the episode ends there, graded on "
    "the environment as the agent left it"
)  # an agent's settings when its model's config gives none

SYSTEM_PROMPT = (
    "You are an autonomous agent completing a task in an environment that you can only reach through "
    "the tools provided. Tool results are JSON; errors say what went wrong, so read them and adapt. "
    "Work step by step, verify your results, and call `submit_answer` when the task is done."
)


def truncate_middle(text: str, limit: int) -> str:
    """Keep the head and tail of ``text`` within ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    keep = max(limit - 60, 0)
    head, tail = text[: keep // 2], text[len(text) - keep // 2 :]
    return f"{head}\n[... {len(text) - 2 * (keep // 2)} characters truncated ...]\n{tail}"


@dataclass
class LoopState:
    """The running account of an episode."""

    messages: list[dict[str, Any]]
    turns: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    model_seconds: float = 0.0
    retries: int = 0
    cache_hits: int = 0


class LLMAgent(Agent):
    """A model acting through tools. ``display_name`` is how tables name it."""

    scripted: ClassVar[bool] = False

    def __init__(
        self,
        *,
        name: str,
        model: str,
        provider: Provider,
        max_turns: int,
        time_limit_s: float,
        max_tool_output_chars: int,
        retry: RetryPolicy,
        cache: ResponseCache | None = None,
        generation: Generation = GREEDY,
        seed: int = 0,
    ) -> None:
        self.name = name
        self.model = model
        self.provider = provider
        self.max_turns = max_turns
        self.time_limit_s = time_limit_s
        self.max_tool_output_chars = max_tool_output_chars
        self.retry = retry
        self.cache = cache
        self.generation = generation
        self.seed = seed

    def fingerprint(self) -> dict[str, Any]:
        """The model, its endpoint and every setting that shapes its responses."""
        return {
            "name": self.name,
            "provider": self.provider.name,
            "base_url": self.provider.base_url,
            "model": self.model,
            "temperature": self.generation.temperature,
            "max_output_tokens": self.generation.max_output_tokens,
            **self.generation.request(self.model, (), (), None).options(),
            "max_turns": self.max_turns,
            "max_tool_output_chars": self.max_tool_output_chars,
        }

    def _respond(
        self, request: ModelRequest, keys: ConversationKeys, state: LoopState, rng: random.Random
    ) -> ModelResponse:
        key = keys.key(request) if self.cache else ""
        cached = self.cache.get(key) if self.cache else None
        if cached is not None:
            state.cache_hits += 1
            return cached

        def count_retry(error: ProviderError, wait: float) -> None:
            state.retries += 1

        started = time.perf_counter()
        try:
            response = call_with_retries(
                lambda: self.provider.complete(request),
                self.retry,
                rng,
                on_retry=count_retry,
                model=self.model,
            )
        finally:  # a request that kept failing took model time too
            state.model_seconds += time.perf_counter() - started
        if self.cache:
            self.cache.put(key, response)
        return response

    def _tool_message(self, call_id: str, content: str) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": call_id,
            "content": truncate_middle(content, self.max_tool_output_chars),
        }

    def _act(self, environment: Environment, response: ModelResponse, state: LoopState) -> str | None:
        """Answer every tool call of one response; return the final answer if one was submitted."""
        answer = None
        for call in response.tool_calls:
            state.tool_calls += 1
            arguments = call.parsed()
            if arguments is None:  # the history keeps {} for it (as_message); the model sees what it wrote
                written = truncate_middle(call.arguments, 500)
                error = f"error: the arguments are not a JSON object, so the call was not made: {written}"
                state.messages.append(self._tool_message(call.id, error))
                continue
            if call.name == SUBMIT.name:
                answer = str(arguments.get("answer", ""))
                state.messages.append(self._tool_message(call.id, "answer received"))
                continue
            result = environment.call(ToolCall(call.name, arguments))
            state.messages.append(self._tool_message(call.id, result.text()))
        return answer

    def _outcome(
        self, stop: StopReason, state: LoopState, answer: str | None, error: str | None
    ) -> AgentOutcome:
        accounting = {
            "input_tokens": state.usage.input_tokens,
            "output_tokens": state.usage.output_tokens,
            "cached_tokens": state.usage.cached_tokens,
            "cache_write_tokens": state.usage.cache_write_tokens,
            "reasoning_tokens": state.usage.reasoning_tokens,
            "model_seconds": round(state.model_seconds, 4),
            "retries": state.retries,
            "cache_hits": state.cache_hits,
        }
        return AgentOutcome(
            stop_reason=stop,
            answer=answer,
            turns=state.turns,
            tool_calls=state.tool_calls,
            messages=state.messages,
            accounting=accounting,
            error=error,
        )

    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Run the loop until an answer, a limit, a context overflow or a provider failure."""
        tools = (*environment.tools, SUBMIT)
        state = LoopState(
            messages=[
                {"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": task.instruction},
            ]
        )
        # Retry waits are jittered per episode (its sample names the task, condition and attempt), so the
        # original and +RES episodes of a task do not retry in lockstep.
        rng = random.Random(f"{self.seed}-{attempt.seed}-{task.task_id}-{attempt.sample}")
        keys = ConversationKeys(self.provider.name, self.provider.base_url, attempt.sample)
        deadline = time.monotonic() + self.time_limit_s
        while state.turns < self.max_turns:
            if time.monotonic() >= deadline:
                return self._outcome(StopReason.TIME_LIMIT, state, None, None)
            request = self.generation.request(self.model, state.messages, tools, attempt.seed)
            try:
                response = self._respond(request, keys, state, rng)
            except ContextLengthError as exc:
                return self._outcome(StopReason.CONTEXT_LENGTH, state, None, str(exc))
            except ProviderError as exc:
                outcome = self._outcome(StopReason.PROVIDER_ERROR, state, None, str(exc))
                if not exc.retryable and exc.status is not None and 400 <= exc.status < 500:
                    outcome.accounting[PERMANENT_ERROR] = 1.0
                return outcome
            state.turns += 1
            state.usage = state.usage + response.usage
            state.messages.append(response.as_message())
            if response.truncated:  # cut mid-reply: its calls may be partial, so none is made
                return self._outcome(StopReason.TRUNCATED, state, None, TRUNCATED_REPLY)
            if not response.tool_calls:
                return self._outcome(StopReason.ANSWERED, state, response.text or "", None)
            answer = self._act(environment, response, state)
            if answer is not None:
                return self._outcome(StopReason.ANSWERED, state, answer, None)
        return self._outcome(StopReason.TURN_LIMIT, state, None, None)
