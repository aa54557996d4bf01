"""A fine-tuned checkpoint behind the OpenAI chat-completions protocol, for evaluation without a GPU.

``python -m res_repro.simulation.checkpoint SPEC`` serves on a free loopback port (see
:func:`~res_repro.simulation.process.checkpoint_server`). ``SPEC`` is a JSON file: ``checkpoints``
(model name -> a local checkpoint directory holding a tokenizer with a chat template) and
``max_new_tokens``, the longest reply. The conversation and the tools are rendered with the
checkpoint's own chat template, as in training; the reply is decoded greedily (sampled, seeded by the
request's seed, when the request sets a temperature above 0). A ``<tool_call>{"name": ...,
"arguments": {...}}</tool_call>`` block in the reply becomes the response's tool call (the first one,
the text before it its content); a prompt that leaves no room in the model's context is refused with a
400 naming the context length, as OpenAI-compatible servers do. On a GPU machine, vLLM serves a real
checkpoint the same way (README, "Evaluating fine-tuned checkpoints").
"""

from __future__ import annotations

import itertools
import json
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, PreTrainedModel, PreTrainedTokenizerBase

from res_repro.simulation.http import serve
from res_repro.simulation.wire import RequestError, completion, parse_reply


class Checkpoint:
    """One checkpoint loaded for generation; a lock keeps one generation at a time (seeded sampling)."""

    def __init__(self, path: Path) -> None:
        self.tokenizer: PreTrainedTokenizerBase = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self.model: PreTrainedModel = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
        self.model.eval()
        self.context: int | None = getattr(self.model.config, "max_position_embeddings", None)
        self._lock = threading.Lock()

    def generate(self, body: Mapping[str, Any], max_new_tokens: int) -> tuple[str, int, int]:
        """The decoded reply to the request, its prompt tokens and its new tokens."""
        prompt = self.tokenizer.apply_chat_template(
            list(body.get("messages") or []),
            tools=body.get("tools") or None,
            add_generation_prompt=True,
            tokenize=True,
            return_dict=True,
            return_tensors="pt",
        )
        length = int(prompt["input_ids"].shape[1])
        room = max_new_tokens if self.context is None else min(max_new_tokens, self.context - length)
        if room < 1:
            raise RequestError(
                f"context length exceeded: the prompt has {length} tokens and the model's context length "
                f"is {self.context}"
            )
        temperature = float(body.get("temperature") or 0.0)
        sampling = (
            {"do_sample": True, "temperature": temperature} if temperature > 0 else {"do_sample": False}
        )
        with self._lock, torch.no_grad():
            torch.manual_seed(int(body.get("seed") or 0))
            output = self.model.generate(
                **prompt,
                max_new_tokens=room,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
                **sampling,
            )
        new = output[0, length:].tolist()
        eos = self.tokenizer.eos_token_id
        if eos in new:
            new = new[: new.index(eos) + 1]
        return self._text(new), length, len(new)

    def _text(self, ids: list[int]) -> str:
        """The reply's text with the tool-call markers kept and every other special token left out."""
        text = self.tokenizer.decode(ids, skip_special_tokens=False)
        for token in self.tokenizer.all_special_tokens:
            if token not in ("<tool_call>", "</tool_call>"):
                text = text.replace(token, "")
        return text


class CheckpointModels:
    """The served checkpoints by model name."""

    def __init__(self, checkpoints: Mapping[str, Checkpoint], max_new_tokens: int) -> None:
        self.checkpoints = dict(checkpoints)
        self.max_new_tokens = max_new_tokens
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    def respond(self, body: dict[str, Any]) -> dict[str, Any]:
        """The chat completion of the named checkpoint, its reply no longer than the request and the
        server allow."""
        checkpoint = self.checkpoints.get(str(body.get("model")))
        if checkpoint is None:
            raise RequestError(
                f"unknown model {body.get('model')!r}; expected one of {sorted(self.checkpoints)}"
            )
        asked = body.get("max_completion_tokens") or body.get("max_tokens") or self.max_new_tokens
        text, prompt, produced = checkpoint.generate(body, min(int(asked), self.max_new_tokens))
        with self._lock:
            number = next(self._numbers)
        return completion(body, parse_reply(text), number, usage=(prompt, produced))


def load_models(spec: Mapping[str, Any]) -> CheckpointModels:
    """The checkpoints a spec names, loaded."""
    loaded = {name: Checkpoint(Path(path)) for name, path in spec["checkpoints"].items()}
    return CheckpointModels(loaded, int(spec["max_new_tokens"]))


def main(argv: list[str]) -> None:
    """Serve the checkpoints of the spec file ``argv[0]`` on a free loopback port."""
    torch.set_num_threads(1)  # the harness runs episodes beside it on the same cores
    serve(load_models(json.loads(Path(argv[0]).read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
