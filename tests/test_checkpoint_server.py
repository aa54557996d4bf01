"""The checkpoint server: a fine-tuned checkpoint behind the OpenAI chat-completions protocol, reached
through the real ``openai`` SDK and the harness's ``openai`` provider (the path Table 2's evaluation
takes, offline and with vLLM alike)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from res_repro.agents.providers.base import ContextLengthError, ModelRequest, ProviderError
from res_repro.agents.providers.openai_chat import OpenAIChatProvider
from res_repro.env.tools import ToolSpec
from res_repro.simulation.wire import parse_reply

LIST_FILES = ToolSpec(
    "list_files",
    "List the files under a path",
    {"type": "object", "properties": {"path": {"type": "string"}}},
)
QUESTION = {"role": "user", "content": "Which files are in the workspace?"}
CALL = {
    "role": "assistant",
    "content": "",
    "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "list_files", "arguments": '{"path": "."}'}}
    ],
}
TOOLS = [
    {
        "type": "function",
        "function": {"name": s.name, "description": s.description, "parameters": s.input_schema},
    }
    for s in (LIST_FILES,)
]
CONTEXT = 512


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny checkpoint overfitted to answer QUESTION with CALL (loss on the assistant turn only)."""
    import torch

    from res_repro.sft.model import tiny_model
    from res_repro.sft.tokenizer import train_tokenizer

    example = {"messages": [QUESTION, CALL], "tools": TOOLS}
    tokenizer = train_tokenizer([example] * 4, vocab_size=320, max_length=CONTEXT)
    sizes = {"hidden_size": 32, "intermediate_size": 64, "num_layers": 1, "num_heads": 2}
    model = tiny_model(tokenizer, sizes, seed=0)
    render = {"tools": TOOLS, "tokenize": True, "return_dict": True, "return_tensors": "pt"}
    full = tokenizer.apply_chat_template([QUESTION, CALL], **render)["input_ids"]
    prompt = tokenizer.apply_chat_template([QUESTION], add_generation_prompt=True, **render)["input_ids"]
    labels = full.clone()
    labels[:, : prompt.shape[1]] = -100
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(150):
        loss = model(input_ids=full, labels=labels).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out = tmp_path_factory.mktemp("checkpoint")
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def _request(*messages: dict, max_tokens: int = 64) -> ModelRequest:
    return ModelRequest("tuned", tuple(messages), (LIST_FILES,), 0.0, max_tokens, seed=0)


@pytest.mark.slow
def test_the_served_checkpoint_answers_the_openai_provider(checkpoint):
    from res_repro.simulation import checkpoint_server

    long = {"role": "user", "content": "files " * CONTEXT}
    with checkpoint_server({"tuned": checkpoint}, max_new_tokens=64) as running:
        provider = OpenAIChatProvider(api_key="not-needed", base_url=running.url, timeout_s=60)
        response = provider.complete(_request(QUESTION))
        again = provider.complete(_request(QUESTION))
        short = provider.complete(_request(QUESTION, max_tokens=3))
        with pytest.raises(ContextLengthError, match="context length"):
            provider.complete(_request(long))
        with pytest.raises(ProviderError, match="unknown model 'other'"):
            provider.complete(ModelRequest("other", (QUESTION,), ()))
    [call] = response.tool_calls
    assert (call.name, json.loads(call.arguments)) == ("list_files", {"path": "."})
    assert response.finish_reason == "tool_calls"
    assert response.usage.input_tokens > 0 and 0 < response.usage.output_tokens <= 64
    assert [(c.name, c.arguments) for c in again.tool_calls] == [(call.name, call.arguments)]  # greedy
    assert short.tool_calls == () and short.usage.output_tokens == 3  # the request's limit holds


def test_replies_are_read_as_a_tool_call_or_as_text():
    answer = parse_reply('Let me look. <tool_call>{"name": "ls", "arguments": "{\\"p\\": 1}"}</tool_call>')
    assert (answer.text, answer.tool, answer.arguments) == ("Let me look.", "ls", {"p": 1})
    second = parse_reply(
        '<tool_call>{"name": 3}</tool_call><tool_call>{"name": "a", "arguments": {}}</tool_call>'
    )
    assert (second.tool, second.arguments) == ("a", {})
    broken = parse_reply("<tool_call>{not json</tool_call>")
    assert (broken.tool, broken.text) == (None, "<tool_call>{not json</tool_call>")


def test_the_checkpoint_digest_follows_weights_and_tokenizer(tmp_path):
    from res_repro.pipelines.served import checkpoint_digest

    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "model.safetensors").write_bytes(b"weights")
        (folder / "tokenizer.json").write_text("{}")
    (second / "train_log.json").write_text('{"elsewhere": true}')  # not part of what answers
    assert checkpoint_digest(first) == checkpoint_digest(second)
    (second / "model.safetensors").write_bytes(b"weightz")
    assert checkpoint_digest(first) != checkpoint_digest(second)
    (second / "model.safetensors").write_bytes(b"weights")
    (second / "tokenizer.json").write_text('{"vocab": 1}')
    assert checkpoint_digest(first) != checkpoint_digest(second)
