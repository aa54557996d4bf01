"""Providers as they really behave, each enforced by a fake server that refuses what the provider's
documentation refuses: DeepSeek's thinking mode wants its reasoning back within a tool-calling turn,
Anthropic's extended thinking wants its signed thinking blocks back unmodified, vLLM validates every
tool call's arguments in the history; a reply cut at the output limit ends the episode as ``truncated``."""

from __future__ import annotations

from typing import Any

import pytest
from fake_providers import (
    ANTHROPIC,
    OPENAI,
    Call,
    FakeModelServer,
    Reply,
    anthropic_thinking,
    deepseek_thinking,
    valid_tool_arguments,
)
from tool_factory import make_tool_task

from res_repro.agents import make_llm_agent
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import run_episode

LOOP = {
    "max_turns": 10,
    "time_limit_s": 60.0,
    "max_tool_output_chars": 8000,
    "retry": {"max_attempts": 3, "base_delay_s": 0.01, "max_delay_s": 0.05, "jitter": 0.5},
}
MAIL = {"to": "ops@acme.test", "subject": "Renewal", "body": "Your plan renews soon."}
CALLS = (
    Call("crm_search", {"query": "Acme"}),
    Call("crm_get", {"id": "C1"}),
    Call("mail_send", MAIL),
    Call("submit_answer", {"answer": "Emailed ops@acme.test"}),
)


def _thinking_script() -> list[Reply]:
    return [
        Reply(None, (call,), reasoning=f"step {n}: I should call {call.name}", reasoning_tokens=7)
        for n, call in enumerate(CALLS)
    ]


def _model(server: FakeModelServer, **settings: Any) -> dict[str, Any]:
    return {
        "provider": server.protocol,
        "model": "fake-model",
        "api_key_env": None if server.protocol == OPENAI else "FAKE_KEY",
        "base_url": server.base_url,
        "timeout_s": 5.0,
        "temperature": 0.0,
        **settings,
    }


def _episode(tmp_path, server: FakeModelServer, **settings: Any):
    task = load_tool_task(make_tool_task(tmp_path / "tasks"))
    agent = make_llm_agent("fake", _model(server, **settings), LOOP, None, 0)
    return run_episode(task, agent, backend="local", episode_id="episode")


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "k")


def test_deepseek_thinking_mode_gets_its_reasoning_back_and_the_tool_turns_complete(tmp_path):
    with FakeModelServer(OPENAI, _thinking_script(), rules=[deepseek_thinking]) as server:
        record = _episode(tmp_path, server, extra_body={"thinking": {"type": "enabled"}})
        rejected, bodies = server.rejected, server.bodies
    assert rejected == []
    assert (record.stop_reason, record.grade.score) == ("answered", 1.0)
    assert bodies[0]["thinking"] == {"type": "enabled"}  # extra_body is sent
    assistant = [m for m in bodies[-1]["messages"] if m["role"] == "assistant"]
    assert [m["reasoning_content"] for m in assistant] == [
        f"step {n}: I should call {c.name}" for n, c in enumerate(CALLS[:3])
    ]
    kept = [m.get("reasoning_content") for m in record.messages if m["role"] == "assistant"]
    assert kept[0] == "step 0: I should call crm_search"  # the trajectory keeps the reasoning
    assert record.accounting["reasoning_tokens"] == 28


def test_dropping_deepseek_reasoning_is_what_the_rule_refuses():
    body = {
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": []},
        ]
    }
    assert "reasoning_content" in deepseek_thinking(body)


def test_anthropic_thinking_blocks_go_back_unmodified_and_the_tool_turns_complete(tmp_path):
    with FakeModelServer(ANTHROPIC, _thinking_script(), rules=[anthropic_thinking]) as server:
        record = _episode(tmp_path, server, temperature=None, max_output_tokens=4096, thinking_budget=2048)
        rejected, bodies = server.rejected, server.bodies
    assert rejected == []
    assert (record.stop_reason, record.grade.score) == ("answered", 1.0)
    assert bodies[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    first_turn = next(m for m in bodies[1]["messages"] if m["role"] == "assistant")
    assert first_turn["content"][0]["type"] == "thinking" and first_turn["content"][0][
        "signature"
    ].startswith("sig-")
    assert record.messages[2]["thinking_blocks"][0]["thinking"] == "step 0: I should call crm_search"


def test_anthropic_thinking_settings_the_api_refuses_stop_before_any_request(tmp_path):
    with FakeModelServer(ANTHROPIC) as server, pytest.raises(UserInputError, match="temperature"):
        _episode(tmp_path, server, thinking_budget=2048, max_output_tokens=4096)
    with FakeModelServer(ANTHROPIC) as server, pytest.raises(UserInputError, match="must exceed"):
        _episode(tmp_path, server, temperature=None, thinking_budget=2048, max_output_tokens=1024)
    with FakeModelServer(OPENAI) as server, pytest.raises(UserInputError, match="thinking_budget"):
        _episode(tmp_path, server, thinking_budget=2048)


def test_a_malformed_tool_call_does_not_poison_the_history_of_a_validating_server(tmp_path):
    script = [
        Reply(None, (Call("crm_search", '{"query": "Acme"'),)),
        *(Reply(None, (call,)) for call in CALLS),
    ]
    with FakeModelServer(OPENAI, script, rules=[valid_tool_arguments]) as server:
        record = _episode(tmp_path, server)
        rejected, second = server.rejected, server.bodies[1]
    assert rejected == []
    assert (record.stop_reason, record.grade.score) == ("answered", 1.0)
    assert second["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert '{"query": "Acme"' in second["messages"][3]["content"]  # the model sees what it wrote


@pytest.mark.parametrize("protocol", [OPENAI, ANTHROPIC])
def test_a_reply_cut_at_the_token_limit_ends_the_episode_as_truncated(tmp_path, protocol):
    script = [Reply(None, (CALLS[0],)), Reply("I will now send the mail to", truncated=True)]
    with FakeModelServer(protocol, script) as server:
        record = _episode(tmp_path, server)
        sent = len(server.bodies)
    assert (record.stop_reason, record.answer, sent) == ("truncated", None, 2)
    assert record.grade is not None and not record.grade.passed  # graded on what it did, never an answer
    assert "output token limit" in record.error


def test_the_viewer_shows_an_episodes_reasoning(tmp_path):
    from res_repro.viewer.bundle import _environment

    with FakeModelServer(OPENAI, _thinking_script(), rules=[deepseek_thinking]) as server:
        record = _episode(tmp_path, server)
    page = (
        _environment().get_template("episode.html").render(root="../", label="run", episode=record.to_dict())
    )
    assert page.count('<details class="reasoning">') == 4 and "step 0: I should call crm_search" in page
