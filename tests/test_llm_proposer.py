"""The LLM proposer through the real SDKs against a local server: schema feedback and check feedback."""

from __future__ import annotations

import json

import pytest
from fake_providers import ANTHROPIC, OPENAI, FakeModelServer, Reply
from hydra_config import agent_loop
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.agents import make_llm_agent
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.res.operators import library
from res_repro.res.proposer import LLMProposer

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
        scaler = build_scaler(tmp_path / "lin", depth_cap=1, proposer=proposer)
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


EMPTY = Reply(json.dumps({"rationale": "nothing to add", "applications": []}), input_tokens=200)


def _scale_with(server: FakeModelServer, task, store, **settings) -> tuple:
    """Scale ``task`` one level with an LLM proposer that sends each invalid reply back zero times."""
    model = {"provider": OPENAI, "model": "fake", "base_url": server.base_url, "timeout_s": 30.0}
    agent = make_llm_agent("proposer", model, LOOP, None, 0)
    proposer = LLMProposer(
        library(None), agent.provider, agent.model, retry=agent.retry, max_invalid_replies=0
    )
    scaler = build_scaler(store, depth_cap=1, proposer=proposer, **settings)
    return scaler.scale(task), server.bodies


def test_an_empty_answer_spends_a_revision_and_the_next_one_is_accepted(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    with FakeModelServer(OPENAI, [EMPTY, GOOD]) as server:
        result, bodies = _scale_with(server, task, tmp_path / "lin")
    assert result.stop_reason == "depth_cap"
    child = result.last.manifest
    assert child.proposer["revisions"] == 1 and child.proposer["executions"] == 2
    assert child.proposer["input_tokens"] == 500  # 200 for the empty answer, 300 for the accepted one
    assert [a.operator for a in child.applications] == ["require_token"]
    assert "no operator application" in json.dumps(bodies[1])  # the empty answer went back as feedback


def test_empty_answers_end_the_lineage_only_when_the_revisions_are_spent(tmp_path):
    task = load_tool_task(make_tool_task(tmp_path / "seed"))
    with FakeModelServer(OPENAI, [], after=EMPTY) as server:
        result, bodies = _scale_with(server, task, tmp_path / "lin", max_revisions=2)
    assert (result.stop_reason, len(result.nodes)) == ("no_valid_child", 1)
    assert len(bodies) == 3  # revisions 0, 1 and 2, one request each


def test_the_proposer_is_shown_record_ids_fields_and_files_within_its_budget(tmp_path):
    from task_factory import make_task

    from res_repro.env.formats.harbor.draft import HarborDraft
    from res_repro.env.formats.tool_api import ToolDraft
    from res_repro.res.graph import DependencyGraph
    from res_repro.res.proposer import summarise

    tool = json.loads(summarise(ToolDraft(make_tool_task(tmp_path / "tool")), DependencyGraph()))
    customers = tool["collections"]["crm/customers"]
    assert customers["ids"] == ["C1", "C2"] and customers["id_field"] == "id"
    assert customers["fields"]["email"] == "text" and customers["example"]["email"] == "ops@acme.test"
    crm_get = next(t for t in tool["tools"] if t["name"] == "crm_get")
    assert crm_get["arguments"] == ["id"] and crm_get["collection"] == "crm/customers"

    harbor = json.loads(summarise(HarborDraft(make_task(tmp_path / "harbor")), DependencyGraph()))
    assert harbor["workspace_files"] == {"README": "11 bytes, text"}
    assert "/app/out.txt" in harbor["instruction"]  # the output path an operator may lock

    draft = ToolDraft(make_tool_task(tmp_path / "cut"))
    cut, full = summarise(draft, DependencyGraph(), budget=200), summarise(draft, DependencyGraph())
    assert cut.startswith(full[:200]) and f"shows 200 of {len(full)} characters" in cut
