"""OpenAI chat completions with tools, through the official ``openai`` SDK.

The same class serves any OpenAI-compatible server (vLLM, SGLang, Ollama, hosted APIs) through
``base_url``. The SDK's own retries are off: the harness retries with its own bounded policy.
"""

from __future__ import annotations

from typing import Any

import openai

from res_repro.agents.providers.base import (
    MALFORMED_REPLY_ERRORS,
    ModelRequest,
    ModelResponse,
    Provider,
    ProviderError,
    RetryableProviderError,
    ToolCallRequest,
    Usage,
    classify_status,
    malformed_reply,
    retry_after_seconds,
)


def _tool(spec: Any) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": dict(spec.input_schema),
        },
    }


def _usage(usage: Any) -> Usage:
    if usage is None:
        return Usage()
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", 0) or 0
    reasoning = getattr(getattr(usage, "completion_tokens_details", None), "reasoning_tokens", 0) or 0
    return Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0, cached, reasoning_tokens=reasoning)


def _sendable(message: dict[str, Any]) -> dict[str, Any]:
    """A neutral message as the chat API takes it: Anthropic's thinking blocks (never made by this
    protocol, but a history may be replayed across providers) are left out."""
    if "thinking_blocks" not in message:
        return message
    return {key: value for key, value in message.items() if key != "thinking_blocks"}


def _reasoning(message: Any) -> str | None:
    """The reasoning text a server returns beside the content: DeepSeek's and older vLLM's
    ``reasoning_content``, newer vLLM's ``reasoning`` (fields the OpenAI SDK keeps as extras)."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None)
        if isinstance(value, str) and value:
            return value
    return None


class OpenAIChatProvider(Provider):
    """Chat completions; ``api_key`` may be a placeholder for local servers that ignore it. Requests go to
    ``address`` when given (see :func:`~res_repro.agents.providers.make_provider`), else to ``base_url``."""

    name = "openai"

    def __init__(
        self, *, api_key: str, base_url: str | None, timeout_s: float, address: str | None = None
    ) -> None:
        self.base_url = base_url
        self._client = openai.OpenAI(
            api_key=api_key, base_url=address or base_url, timeout=timeout_s, max_retries=0
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One chat completion; SDK errors are mapped to :class:`ProviderError` subclasses."""
        options: dict[str, Any] = {}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.max_output_tokens is not None:
            options["max_completion_tokens"] = request.max_output_tokens
        if request.tools:
            options["tools"] = [_tool(spec) for spec in request.tools]
        if request.seed is not None:
            options["seed"] = request.seed
        if request.reasoning_effort is not None:
            options["reasoning_effort"] = request.reasoning_effort
        if request.extra_body:
            options["extra_body"] = dict(request.extra_body)
        messages = [_sendable(message) for message in request.messages]
        try:
            completion = self._client.chat.completions.create(
                model=request.model, messages=messages, **options
            )
        except openai.APIStatusError as exc:
            headers = exc.response.headers if exc.response is not None else None
            raise classify_status(exc.status_code, str(exc), retry_after_seconds(headers)) from exc
        except (openai.APITimeoutError, openai.APIConnectionError) as exc:
            raise RetryableProviderError(f"{type(exc).__name__}: {exc}") from exc
        except openai.OpenAIError as exc:  # e.g. a response that fails the SDK's validation
            raise ProviderError(f"{type(exc).__name__}: {exc}") from exc
        try:
            return _response(completion)
        except MALFORMED_REPLY_ERRORS as exc:
            raise malformed_reply(exc, completion) from exc


def _response(completion: Any) -> ModelResponse:
    """The neutral response of a chat completion (raises what reading a malformed one raises)."""
    if not completion.choices:
        raise RetryableProviderError("the response had no choices")
    choice = completion.choices[0]
    calls = tuple(
        ToolCallRequest(call.id, call.function.name, call.function.arguments or "")
        for call in choice.message.tool_calls or ()
        if getattr(call, "function", None) is not None
    )
    return ModelResponse(
        choice.message.content,
        calls,
        _usage(completion.usage),
        choice.finish_reason,
        reasoning=_reasoning(choice.message),
    )
