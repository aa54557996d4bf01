"""Anthropic messages with tool use, through the official ``anthropic`` SDK.

Translates the neutral (OpenAI chat) conversation: the system prompt becomes ``system``, assistant tool
calls become ``tool_use`` blocks, and consecutive tool messages become one user turn of ``tool_result``
blocks.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic

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

DEFAULT_MAX_TOKENS = 4096


def _tool_input(arguments: str) -> dict[str, Any]:
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _assistant_blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The content blocks of a neutral assistant message: its thinking blocks first, unmodified (the API
    checks their signatures while tool use continues a turn), then text and tool uses."""
    blocks: list[dict[str, Any]] = [dict(block) for block in message.get("thinking_blocks") or ()]
    if message.get("content"):
        blocks.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls", ()):
        function = call["function"]
        blocks.append(
            {
                "type": "tool_use",
                "id": call["id"],
                "name": function["name"],
                "input": _tool_input(function["arguments"]),
            }
        )
    return blocks


def to_anthropic(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Split the neutral conversation into Anthropic's ``system`` text and ``messages`` list."""
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = message["role"]
        if role == "user":
            converted.append({"role": "user", "content": message["content"]})
        elif role == "assistant":
            converted.append({"role": "assistant", "content": _assistant_blocks(message)})
        elif role == "tool":
            result = {
                "type": "tool_result",
                "tool_use_id": message["tool_call_id"],
                "content": message["content"],
            }
            previous = converted[-1] if converted else None
            if previous and previous["role"] == "user" and isinstance(previous["content"], list):
                previous["content"].append(result)
            else:
                converted.append({"role": "user", "content": [result]})
    return system, converted


class AnthropicMessagesProvider(Provider):
    """The messages API; SDK retries are off (the harness retries). The API takes no seed. Requests go to
    ``address`` when given, else to ``base_url``."""

    name = "anthropic"

    def __init__(
        self, *, api_key: str, base_url: str | None, timeout_s: float, address: str | None = None
    ) -> None:
        self.base_url = base_url
        self._client = anthropic.Anthropic(
            api_key=api_key, base_url=address or base_url, timeout=timeout_s, max_retries=0
        )

    def complete(self, request: ModelRequest) -> ModelResponse:
        """One messages call; SDK errors are mapped to :class:`ProviderError` subclasses."""
        system, messages = to_anthropic(list(request.messages))
        options: dict[str, Any] = {"max_tokens": request.max_output_tokens or DEFAULT_MAX_TOKENS}
        if system:
            options["system"] = system
        extra = dict(request.extra_body or {})
        if request.temperature is not None:
            extra["temperature"] = request.temperature  # no longer a keyword in SDK 1.x
        if extra:
            options["extra_body"] = extra
        if request.thinking_budget is not None:
            options["thinking"] = {"type": "enabled", "budget_tokens": request.thinking_budget}
        if request.tools:
            options["tools"] = [
                {"name": s.name, "description": s.description, "input_schema": dict(s.input_schema)}
                for s in request.tools
            ]
        try:
            reply = self._client.messages.create(model=request.model, messages=messages, **options)
        except anthropic.APIStatusError as exc:
            headers = exc.response.headers if exc.response is not None else None
            raise classify_status(exc.status_code, str(exc), retry_after_seconds(headers)) from exc
        except (anthropic.APITimeoutError, anthropic.APIConnectionError) as exc:
            raise RetryableProviderError(f"{type(exc).__name__}: {exc}") from exc
        except anthropic.AnthropicError as exc:  # e.g. a response that fails the SDK's validation
            raise ProviderError(f"{type(exc).__name__}: {exc}") from exc
        try:
            return _response(reply)
        except MALFORMED_REPLY_ERRORS as exc:
            raise malformed_reply(exc, reply) from exc


def _response(reply: Any) -> ModelResponse:
    """The neutral response of a Messages reply (raises what reading a malformed one raises)."""
    texts = [block.text for block in reply.content if block.type == "text"]
    thinking = tuple(_thinking_block(block) for block in reply.content if block.type in THINKING_BLOCKS)
    calls = tuple(
        ToolCallRequest(block.id, block.name, json.dumps(block.input))
        for block in reply.content
        if block.type == "tool_use"
    )
    cached = getattr(reply.usage, "cache_read_input_tokens", 0) or 0
    written = getattr(reply.usage, "cache_creation_input_tokens", 0) or 0
    # Anthropic counts cache reads and writes apart from input_tokens; OpenAI's prompt_tokens include
    # them. Input tokens here mean every prompt token, as with OpenAI.
    usage = Usage(
        (reply.usage.input_tokens or 0) + cached + written,
        reply.usage.output_tokens or 0,
        cached,
        cache_write_tokens=written,
    )
    reasoning = "\n".join(block.get("thinking", "") for block in thinking if block.get("thinking")) or None
    return ModelResponse("\n".join(texts) or None, calls, usage, reply.stop_reason, reasoning, thinking)


THINKING_BLOCKS = ("thinking", "redacted_thinking")


def _thinking_block(block: Any) -> dict[str, Any]:
    """A thinking block as the API sent it (its text or redacted data, and its signature)."""
    if block.type == "redacted_thinking":
        return {"type": "redacted_thinking", "data": block.data}
    return {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
