"""The LLM proposer through the real SDKs against a local server: schema feedback and check feedback."""

from __future__ import annotations

import json

import pytest
from fake_providers import ANTHROPIC, OPENAI, FakeModelServer, Reply
from hydra_config import agent_loop, scaling_settings
from tool_factory import make_tool_task

from res_repro.agents import make_llm_agent
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.res.lineage import LineageStore
from res_repro.res.operators import library
from res_repro.res.proposer import LLMProposer
from res_repro.res.scaling import Scaler

LOOP = agent_loop(max_turns=5, time_limit_s=60, retry={"base_delay_s": 0.01})


def _reply(applications: list[dict]) -> Reply:
    return Reply(json.dumps({"rationale": "make it harder", "applications": applications}), input_tokens=300)


BAD_SCHEMA = _reply([{"operator": "paginate", "params": {"tool": "crm_search", "page_size": 0}}])
DOES_NOT_MATTER = _reply([{"operator": "paginate", "params": {"tool": "crm_search", "page_size": 5}}])
GOOD = _reply(
    [
        {
            "operator": "require_token",
            "params": {
                "service": "crm",
                "tools": ["crm_get", "crm_search"],
                "token": "crm-0a1b2c",
                "record": "cred-crm",
            },
        }
    ]
)


@pytest.mark.parametrize("protocol", [OPENAI, ANTHROPIC])
def test_llm_proposer_revises_after_schema_and_check_feedback(tmp_path, monkeypatch, protocol):
    monkeypatch.setenv("FAKE_KEY", "k")
    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    with FakeModelServer(protocol, [BAD_SCHEMA, DOES_NOT_MATTER, GOOD]) as server:
        model = {
            "provider": protocol,
            "model": "fake",
            "base_url": server.base_url,
            "api_key_env": "FAKE_KEY",
            "timeout_s": 30.0,
        }
        agent = make_llm_agent("proposer", model, LOOP, None, 0)
        proposer = LLMProposer(library(None), agent.provider, agent.model, retry=agent.retry)
        scaler = Scaler(
            settings=scaling_settings(depth_cap=1),
            proposer=proposer,
            store=LineageStore(tmp_path / "lin"),
            backend="local",
        )
        result = scaler.scale(task)
        bodies = server.bodies
    assert result.stop_reason == "depth_cap"
    child = result.last.manifest
    assert [a.operator for a in child.applications] == ["require_token"]
    assert child.proposer["revisions"] == 1
    assert child.proposer["executions"] == 3
    assert child.proposer["input_tokens"] == 900
    assert all(check["passed"] for check in child.checks)
    sent = [json.dumps(body) for body in bodies]
    assert "page_size" in sent[1] and "Invalid" in sent[1]  # the schema error went back to the model
    assert "parent_reference_fails" in sent[2]  # so did the failed check
