"""What every model provider takes and returns, in one neutral form, and how its failures are classified.

Conversations are kept in the OpenAI chat format (system, user, assistant with ``tool_calls``, tool
messages), which is also the fine-tuning export format; each provider translates to its own wire format.
"""

from __future__ import annotations

import abc
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from res_repro.env.tools import ToolSpec


class ProviderError(RuntimeError):
    """A model call failed. ``retryable`` errors (429, 5xx, timeouts, resets) are retried with backoff."""

    retryable = False

    def __init__(self, message: str, *, status: int | None = None, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class RetryableProviderError(ProviderError):
    """Rate limits, server errors, timeouts and dropped connections."""

    retryable = True


class ContextLengthError(ProviderError):
    """The conversation no longer fits the model's context window: the episode ends, nothing is retried."""


@dataclass(frozen=True)
class ToolCallRequest:
    """A tool call as the model wrote it; ``arguments`` is the raw JSON text (it may be malformed)."""

    id: str
    name: str
    arguments: str

    def parsed(self) -> dict[str, Any] | None:
        """The arguments as a JSON object, or None when they are not one."""
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, dict) else None

    @property
    def sent_arguments(self) -> str:
        """The arguments as a history sends them back: as written when they are a JSON object, else
        ``{}``."""
        return self.arguments if self.parsed() is not None else "{}"


@dataclass(frozen=True)
class Usage:
    """Tokens of one response (or of a whole episode, summed)."""

    input_tokens: int = 0  # every prompt token, cached and cache-written ones included
    output_tokens: int = 0  # every generated token, reasoning included
    cached_tokens: int = 0  # prompt tokens read from the provider's cache (billed at its cached rate)
    cache_write_tokens: int = 0  # prompt tokens written to the cache (Anthropic bills them apart)
    reasoning_tokens: int = 0  # generated tokens of reasoning, where the provider reports them

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.reasoning_tokens + other.reasoning_tokens,
        )


@dataclass(frozen=True)
class ModelResponse:
    """One model response: text, tool calls, token usage, and why generation stopped."""

    text: str | None
    tool_calls: tuple[ToolCallRequest, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    reasoning: str | None = (
        None  # the model's reasoning text (DeepSeek's reasoning_content, vLLM's reasoning)
    )
    thinking: tuple[dict[str, Any], ...] = ()  # Anthropic thinking blocks, exactly as received (signed)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (for the response cache); :func:`dataclasses.asdict` would deep-copy
        every field on the way."""
        return {
            "text": self.text,
            "tool_calls": [dict(vars(call)) for call in self.tool_calls],
            "usage": dict(vars(self.usage)),
            "finish_reason": self.finish_reason,
            "reasoning": self.reasoning,
            "thinking": list(self.thinking),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModelResponse:
        """Rebuild a response written by :meth:`to_dict` (entries cached before reasoning was kept have
        none)."""
        return cls(
            text=data["text"],
            tool_calls=tuple(ToolCallRequest(**call) for call in data["tool_calls"]),
            usage=Usage(**data["usage"]),
            finish_reason=data["finish_reason"],
            reasoning=data.get("reasoning"),
            thinking=tuple(data.get("thinking") or ()),
        )

    @property
    def truncated(self) -> bool:
        """Whether generation stopped at the output token limit (OpenAI ``length``, Anthropic
        ``max_tokens``)."""
        return self.finish_reason in TRUNCATED_FINISH

    def as_message(self) -> dict[str, Any]:
        """The assistant message in the neutral (OpenAI chat) format, with the reasoning the provider
        requires back: DeepSeek-style ``reasoning_content`` (sent back while tool calls continue a turn)
        and Anthropic's signed ``thinking_blocks`` (sent back unmodified). A tool call whose arguments
        are not a JSON object is kept with ``{}`` (strict servers reject a history holding invalid
        JSON); the raw text goes back to the model in the call's error result instead."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text}
        if self.reasoning:
            message["reasoning_content"] = self.reasoning
        if self.thinking:
            message["thinking_blocks"] = [dict(block) for block in self.thinking]
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.sent_arguments}}
                for c in self.tool_calls
            ]
        return message


TRUNCATED_FINISH = ("length", "max_tokens")  # finish reasons of a reply cut at the output token limit


@dataclass(frozen=True)
class Generation:
    """How a model is asked to generate, from its config: every setting a request carries besides the
    conversation (None: not sent, the provider's default applies)."""

    temperature: float | None = None
    max_output_tokens: int | None = None
    reasoning_effort: str | None = None
    extra_body: dict[str, Any] | None = None
    thinking_budget: int | None = None  # Anthropic extended thinking's budget_tokens (None: off)

    @classmethod
    def from_model(cls, model: Mapping[str, Any]) -> Generation:
        """The settings of a ``models`` entry."""
        return cls(
            model.get("temperature"),
            model.get("max_output_tokens"),
            model.get("reasoning_effort"),
            dict(model.get("extra_body") or {}) or None,
            model.get("thinking_budget"),
        )

    def request(
        self, model: str, messages: Sequence[dict[str, Any]], tools: Sequence[ToolSpec], seed: int | None
    ) -> ModelRequest:
        """The request for ``messages`` with ``tools`` under these settings."""
        return ModelRequest(
            model,
            tuple(messages),
            tuple(tools),
            self.temperature,
            self.max_output_tokens,
            seed=seed,
            reasoning_effort=self.reasoning_effort,
            extra_body=self.extra_body,
            thinking_budget=self.thinking_budget,
        )


@dataclass(frozen=True)
class ModelRequest:
    """Everything that determines a response; its hash keys the response cache."""

    model: str
    messages: tuple[dict[str, Any], ...]
    tools: tuple[ToolSpec, ...]
    temperature: float | None = None
    max_output_tokens: int | None = None
    seed: int | None = None  # the sample's seed, sent where the API takes one (OpenAI chat completions)
    reasoning_effort: str | None = None  # sent where the API takes one (OpenAI-style reasoning models)
    extra_body: dict[str, Any] | None = None  # extra request fields, sent as they are (a model's config)
    thinking_budget: int | None = None  # Anthropic extended thinking (budget_tokens)

    def options(self) -> dict[str, Any]:
        """The settings beyond the common ones that this request sets (hashed only when set, so that the
        keys of requests without them stay as they were)."""
        found: dict[str, Any] = {}
        if self.reasoning_effort is not None:
            found["reasoning_effort"] = self.reasoning_effort
        if self.extra_body:
            found["extra_body"] = self.extra_body
        if self.thinking_budget is not None:
            found["thinking_budget"] = self.thinking_budget
        return found

    def key(self, provider: str, base_url: str | None, sample: str = "") -> str:
        """A SHA-256 over the provider, endpoint, the sample it belongs to (an episode id: see
        :class:`~res_repro.agents.base.Attempt`) and the full request: of
        ``json.dumps(blob, sort_keys=True, default=str)`` where ``blob`` holds every field of the request
        (see :meth:`_frame`). :class:`ConversationKeys` computes the same keys for a growing conversation."""
        head, tail = self._frame(provider, base_url, sample)
        items = ", ".join(_message_json(message) for message in self.messages)
        return hashlib.sha256(f"{head}{items}{tail}".encode()).hexdigest()

    def _frame(self, provider: str, base_url: str | None, sample: str) -> tuple[str, str]:
        """The hashed JSON text before and after the items of its ``messages`` list."""
        blob = {
            "provider": provider,
            "base_url": base_url,
            "sample": sample,
            "model": self.model,
            "messages": [],
            "tools": [tool.to_dict() for tool in self.tools],
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
            "seed": self.seed,
            **({"options": options} if (options := self.options()) else {}),
        }
        text = json.dumps(blob, sort_keys=True, default=str)
        # Only the base URL and the token limit sort before "messages" ("options", "sample" and "seed" sort
        # after), and a string's quotes are escaped, so the first match is the key itself.
        split = text.index(_MESSAGES_OPEN) + len(_MESSAGES_OPEN)
        return text[:split], text[split:]


_MESSAGES_OPEN = '"messages": ['


def _message_json(message: dict[str, Any]) -> str:
    """One message as it appears in the hashed JSON text of a request."""
    return json.dumps(message, sort_keys=True, default=str)


class ConversationKeys:
    """:meth:`ModelRequest.key` for the successive requests of one conversation, hashing each message
    once rather than the whole conversation on every turn.

    It keeps a SHA-256 state over the request's text up to the last message hashed. A request that
    keeps the same model, tools and settings and whose messages begin with the very message objects
    already hashed only adds its new messages; any other request starts the chain again. Messages must
    not be changed in place once sent (the agent loop only appends), since an unchanged object is not
    hashed twice.
    """

    def __init__(self, provider: str, base_url: str | None, sample: str = "") -> None:
        self.provider = provider
        self.base_url = base_url
        self.sample = sample
        self._settings: tuple[Any, ...] | None = None
        self._tail = b""
        self._hashed: list[dict[str, Any]] = []
        self._digest = hashlib.sha256()

    def key(self, request: ModelRequest) -> str:
        """The key of ``request``, equal to ``request.key(provider, base_url, sample)``."""
        settings = (
            request.model,
            request.tools,
            request.temperature,
            request.max_output_tokens,
            request.seed,
            json.dumps(request.options(), sort_keys=True, default=str),
        )
        if settings != self._settings or not self._extends(request.messages):
            head, tail = request._frame(self.provider, self.base_url, self.sample)
            self._settings, self._tail = settings, tail.encode()
            self._hashed, self._digest = [], hashlib.sha256(head.encode())
        for message in request.messages[len(self._hashed) :]:
            separator = ", " if self._hashed else ""
            self._digest.update(f"{separator}{_message_json(message)}".encode())
            self._hashed.append(message)
        digest = self._digest.copy()
        digest.update(self._tail)
        return digest.hexdigest()

    def _extends(self, messages: Sequence[dict[str, Any]]) -> bool:
        """Whether ``messages`` begins with exactly the message objects hashed so far."""
        hashed = self._hashed
        return len(messages) >= len(hashed) and all(a is b for a, b in zip(messages, hashed, strict=False))


class Provider(abc.ABC):
    """A model API reached through its official SDK."""

    name: str
    base_url: str | None = None

    @abc.abstractmethod
    def complete(self, request: ModelRequest) -> ModelResponse:
        """Send one request; raise a :class:`ProviderError` subclass on failure (no retries here)."""


MALFORMED_REPLY_ERRORS = (AttributeError, KeyError, TypeError, ValueError)  # what reading a bad reply raises


def malformed_reply(exc: Exception, reply: Any) -> ProviderError:
    """The error for a reply the provider's protocol does not allow (a body that is not JSON, a message
    that is null, another protocol's body): a provider error for the episode, never a crash."""
    shown = repr(reply)
    shown = shown if len(shown) <= 200 else shown[:200] + "..."
    return ProviderError(f"malformed reply ({type(exc).__name__}: {exc}): {shown}")


def retry_after_seconds(headers: Any) -> float | None:
    """Read a ``Retry-After`` header given in seconds (dates are ignored)."""
    value = headers.get("retry-after") if headers is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def classify_status(status: int, message: str, retry_after: float | None) -> ProviderError:
    """Map an HTTP error status and message to the right :class:`ProviderError`."""
    lowered = message.lower()
    if status in (400, 413) and any(
        marker in lowered
        for marker in ("context length", "context_length", "prompt is too long", "too many tokens")
    ):
        return ContextLengthError(message, status=status)
    if status in (408, 409, 429) or status >= 500:
        return RetryableProviderError(message, status=status, retry_after=retry_after)
    return ProviderError(message, status=status)
