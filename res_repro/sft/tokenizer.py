"""A tokenizer built locally for the tiny model: byte-level BPE trained on the exported trajectories.

Nothing is downloaded. The chat template renders system, user, assistant and tool turns, the tools
offered, and assistant tool calls as ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``; the
assistant's turns sit inside ``{% generation %}`` so that training can count loss on them only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

BOS, EOS, PAD, UNK = "<|begin|>", "<|end|>", "<|pad|>", "<|unk|>"
ROLE_TOKENS = ("<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<tool_call>", "</tool_call>")

CHAT_TEMPLATE = (
    "{{- bos_token -}}"
    "{%- if tools -%}<|system|>Tools:\n{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}<|end|>"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message.role == 'assistant' -%}<|assistant|>{% generation %}{{ message.content or '' }}"
    "{%- for call in message.tool_calls or [] -%}"
    '<tool_call>{"name": {{ call.function.name | tojson }}, "arguments": '
    "{%- if call.function.arguments is string %} {{ call.function.arguments }}"
    "{%- else %} {{ call.function.arguments | tojson }}{%- endif -%}"
    "}</tool_call>"
    "{%- endfor -%}<|end|>{% endgeneration %}"
    "{%- else -%}<|{{ message.role }}|>{{ message.content or '' }}<|end|>"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"
)


def example_texts(examples: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """The strings of chat examples a tokenizer should learn: tools, contents and tool calls."""
    for example in examples:
        tools = example.get("tools") or []
        yield tools if isinstance(tools, str) else json.dumps(tools)
        for message in example["messages"]:
            yield message.get("content") or ""
            for call in message.get("tool_calls") or []:
                yield f"{call['function']['name']} {call['function']['arguments']}"


def train_tokenizer(
    examples: Iterable[Mapping[str, Any]], *, vocab_size: int, max_length: int
) -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer with the chat template, trained on ``examples`` (deterministic)."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, BOS, EOS, UNK, *ROLE_TOKENS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(example_texts(examples), trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        unk_token=UNK,
        additional_special_tokens=list(ROLE_TOKENS),
        chat_template=CHAT_TEMPLATE,
        model_max_length=max_length,
    )
