"""Token labels for assistant-only loss, read from the chat template itself.

Each assistant turn's span is where the rendering of the conversation up to and including that turn
extends the rendering of the conversation before it with the generation prompt added; this works for any
template that renders a prefix of the conversation as a prefix of the text (the tiny model's template and
the Qwen templates do), with or without ``{% generation %}`` markers. Tokens starting inside a span carry
their id as label (the turn's closing token included, so the model learns to stop); every other token
carries -100.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from res_repro.errors import UserInputError

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

IGNORE = -100  # the label that takes a token out of the loss


def render(
    tokenizer: PreTrainedTokenizerBase,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None,
    *,
    prompt: bool = False,
) -> str:
    """The conversation as text under the chat template (``prompt``: open the next assistant turn)."""
    return tokenizer.apply_chat_template(
        list(messages), tools=list(tools) if tools else None, tokenize=False, add_generation_prompt=prompt
    )


def assistant_spans(
    tokenizer: PreTrainedTokenizerBase,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None,
) -> tuple[str, list[tuple[int, int]]]:
    """The rendered conversation and the character spans of its assistant turns."""
    text = render(tokenizer, messages, tools)
    spans = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        start = len(render(tokenizer, messages[:i], tools, prompt=True))
        through = render(tokenizer, messages[: i + 1], tools)
        if not text.startswith(through) or not through.startswith(text[:start]):
            raise UserInputError(
                "sft: the chat template does not render a conversation's prefix as a prefix of its text; "
                "expected a template whose earlier turns do not change as the conversation grows"
            )
        spans.append((start, len(through)))
    return text, spans


def tokenize_example(
    tokenizer: PreTrainedTokenizerBase, example: Mapping[str, Any], *, assistant_only: bool
) -> tuple[list[int], list[int]]:
    """Token ids of a chat example and their labels: assistant tokens only, or every token."""
    text, spans = assistant_spans(tokenizer, example["messages"], example.get("tools"))
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = list(encoded["input_ids"])
    if not assistant_only:
        return ids, list(ids)
    labels = [
        token if any(start <= begin < end for start, end in spans) else IGNORE
        for token, (begin, _) in zip(ids, encoded["offset_mapping"], strict=True)
    ]
    return ids, labels
