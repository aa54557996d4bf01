"""The OpenAI chat-completions wire format of the loopback servers' answers, and its token counts."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text and JSON


class RequestError(ValueError):
    """A request a loopback server cannot answer (an unknown task or model, a prompt too long for the
    model's context); the client gets a 400 with this message."""


def tokens(value: Any) -> int:
    """An estimate of the tokens ``value`` takes (its JSON text at four characters a token)."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Answer:
    """What a simulated model says: text, or tool calls (a name and its arguments; ``more`` holds the
    calls after the first, made in the same turn)."""

    text: str | None = None
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    more: tuple[tuple[str, dict[str, Any]], ...] = ()

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """Every tool call, in order."""
        return ([(self.tool, self.arguments)] if self.tool is not None else []) + list(self.more)


def completion(
    body: dict[str, Any], answer: Answer, number: int, usage: tuple[int, int] | None = None
) -> dict[str, Any]:
    """The chat-completion object answering the request ``body`` (``number`` makes the ids unique);
    ``usage`` is (prompt, completion) tokens when the server counted them, else they are estimated."""
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    if answer.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{number}" + (f"_{index}" if index else ""),
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments, default=str)},
            }
            for index, (name, arguments) in enumerate(answer.calls)
        ]
        functions = [call["function"] for call in message["tool_calls"]]
        produced: Any = [
            answer.text or "",
            *(value for f in functions for value in (f["name"], f["arguments"])),
        ]
    else:
        produced = answer.text or ""
    prompt, output = usage or (tokens([body.get("messages", []), body.get("tools", [])]), tokens(produced))
    return {
        "id": f"chatcmpl-local-{number}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if answer.calls else "stop",
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": output, "total_tokens": prompt + output},
    }


TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def parse_reply(text: str) -> Answer:
    """The reply as an answer: its first well-formed tool-call block as the call, else all of it as text."""
    for match in TOOL_CALL.finditer(text):
        try:
            call = json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            arguments = call.get("arguments", {})
            if isinstance(arguments, str):
                try:
                    arguments = json.loads(arguments)
                except json.JSONDecodeError:
                    continue
            if isinstance(arguments, dict):
                return Answer(
                    text=text[: match.start()].strip() or None, tool=call["name"], arguments=arguments
                )
    return Answer(text=text.strip())
