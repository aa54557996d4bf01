"""The LLM proposer through the real SDKs against local servers: what it is shown, how it inspects the
candidate, how its revisions continue the conversation with real causes, what its model config sends,
and how garbage, truncation, over-long replies and provider errors end: recorded, named, survivable."""

from __future__ import annotations

import json
import shutil

import pytest
from fake_providers import ANTHROPIC, OPENAI, Call, FakeModelServer, Fault, FaultKind, Reply
from hydra_config import agent_loop
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.agents import make_llm_agent
from res_repro.agents.providers.base import Generation
from res_repro.agents.response_cache import ResponseCache
from res_repro.env.formats import load_copy
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.formats.tool_api.task_file import ADAPTERS_FILE
from res_repro.pipelines.lineage_views import lineage_notes, proposer_totals
from res_repro.pipelines.lineages import scaling_report
from res_repro.res.checks import check_validity
from res_repro.res.lineage import LineageStore
from res_repro.res.llm_proposer import LLMProposer, ProposerLimits
from res_repro.res.operators import library

LOOP = agent_loop(max_turns=5, time_limit_s=60, retry={"base_delay_s": 0.01, "max_delay_s": 0.05})


def _propose(applications: list[dict], **reply) -> Reply:
    arguments = {"rationale": "make it harder", "applications": applications}
    return Reply(calls=(Call("propose_changes", arguments),), input_tokens=300, **reply)


def _text(applications: list[dict]) -> Reply:
    return Reply(json.dumps({"rationale": "make it harder", "applications": applications}), input_tokens=300)


PAGINATE_0 = [{"operator": "paginate", "params": {"tool": "crm_search", "page_size": 0}}]
PAGINATE_5 = [{"operator": "paginate", "params": {"tool": "crm_search", "page_size": 5}}]
TOKEN = [
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
GOOD = _propose(TOKEN)


def _model(server: FakeModelServer, protocol: str = OPENAI, **settings) -> dict:
    return {
        "provider": protocol,
        "model": "fake",
        "base_url": server.base_url,
        "api_key_env": None if protocol == OPENAI else "FAKE_KEY",
        "timeout_s": 30.0,
        **settings,
    }


def _proposer(server, protocol=OPENAI, *, cache=None, model=None, **limits) -> LLMProposer:
    entry = model or _model(server, protocol)
    agent = make_llm_agent("proposer", entry, LOOP, None, 0)
    return LLMProposer(
        library(None),
        agent.provider,
        agent.model,
        retry=agent.retry,
        generation=Generation.from_model(entry),
        limits=ProposerLimits(**limits),
        cache=cache,
    )


def _sent(body: dict) -> str:
    return json.dumps(body)


@pytest.fixture
def task(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_KEY", "k")
    return load_tool_task(make_tool_task(tmp_path / "seed"))


@pytest.mark.parametrize("protocol", [OPENAI, ANTHROPIC])
def test_the_first_request_carries_the_objective_the_tools_and_the_references_run(tmp_path, task, protocol):
    with FakeModelServer(protocol, [GOOD]) as server:
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server, protocol)).scale(task)
        first = server.bodies[0]
    assert result.stop_reason == "depth_cap"
    text = _sent(first)
    assert json.dumps(task.instruction)[1:-1] in text  # the objective, word for word
    for description in ("Search customers by name.", "Get one customer by id.", "Send an email."):
        assert description in text  # every tool the agent has, with its description
    assert "crm_search" in text and "mail_send" in text and "ops@acme.test" in text  # the reference's run
    assert "parent_reference_fails" in text and "require_token" in text  # the rules and the catalogue
    assert str(tmp_path) not in text  # no host path
    offered = {tool.get("name") or tool["function"]["name"] for tool in first["tools"]}
    assert offered == {"list_files", "read_file", "read_reference_trace", "propose_changes"}


def test_the_agentic_proposer_inspects_the_candidate_before_it_proposes(tmp_path, task):
    inspect = Reply(
        calls=(
            Call("list_files"),
            Call("read_file", {"path": "solution/solve.py"}),
            Call("read_file", {"path": "../../etc/passwd"}),
            Call("read_reference_trace"),
        )
    )
    with FakeModelServer(OPENAI, [inspect, GOOD]) as server:
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server)).scale(task)
        second = server.bodies[1]["messages"]
    results = [m["content"] for m in second if m["role"] == "tool"]
    assert any('"path": "solution/solve.py"' in r and '"kind": "text"' in r for r in results[:1])
    assert 'call(\\"crm_search\\"' in results[1] or 'call("crm_search"' in json.loads(results[1])["text"]
    assert "no file '../../etc/passwd' in the candidate" in results[2]
    assert results[3].startswith("1. crm_search(")
    assert result.last.manifest.proposer["requests"] == 2 and result.last.manifest.proposer["executions"] == 1


@pytest.mark.parametrize("protocol", [OPENAI, ANTHROPIC])
def test_a_revision_continues_the_conversation_with_the_rejections_cause(tmp_path, task, protocol):
    with FakeModelServer(protocol, [_propose(PAGINATE_0), _propose(PAGINATE_5), GOOD]) as server:
        scaler = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server, protocol))
        result = scaler.scale(task)
        bodies = server.bodies
    child = result.last.manifest
    assert [a.operator for a in child.applications] == ["require_token"]
    assert (child.proposer["revisions"], child.proposer["executions"], child.proposer["requests"]) == (
        1,
        2,
        3,
    )
    assert child.proposer["input_tokens"] == 900
    assert "page_size" in _sent(bodies[1]) and "invalid" in _sent(bodies[1])  # the schema error went back
    third = _sent(bodies[2])
    assert _sent(bodies[1]["messages"][1])[:-1] in third  # the same conversation, the brief first
    assert "crm_search" in third and "page_size" in third  # with the rejected proposal in it
    assert "parent_reference_fails" in third and "the change misses what it reads" in third  # and its cause


def test_a_failed_reference_check_names_the_failing_call_and_its_error(tmp_path, task):
    with FakeModelServer(OPENAI, [GOOD]) as server:
        child = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server)).scale(task).last
    broken = tmp_path / "broken"
    shutil.copytree(child.env_dir, broken)
    (broken / ADAPTERS_FILE).unlink()  # the reference no longer knows about the token
    checks = check_validity(task, load_copy(task, broken), backend="local")
    reference = next(check for check in checks if check.name == "reference_passes")
    assert not reference.passed
    assert "call crm_search(" in reference.detail and "-> error 401" in reference.detail
    assert str(tmp_path) not in reference.detail


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply("I would rather not."), "the reply holds no proposal"),
        (_text([{"operator": "teleport", "params": {}}]), "unknown operator 'teleport'"),
        (_propose([{"operator": "teleport", "params": {}}]), "unknown operator 'teleport'"),
        (Reply(calls=(Call("propose_changes", "{not json"),)), "the arguments are not a JSON object"),
    ],
)
def test_a_proposer_that_answers_garbage_leaves_a_named_recorded_unscaled_seed(
    tmp_path, task, reply, problem
):
    with FakeModelServer(OPENAI, [], after=reply) as server:
        scaler = build_scaler(tmp_path / "lin", depth_cap=1, max_revisions=1, proposer=_proposer(server))
        result = scaler.scale(task)
        requests = len(server.bodies)
    assert (result.stop_reason, len(result.nodes)) == ("no_valid_child", 1)
    assert requests == 2 * 3  # two revisions, each sending two invalid replies back
    rejections = LineageStore(tmp_path / "lin").rejections(task.task_id)
    assert [r["checks"][0]["name"] for r in rejections] == ["proposal", "proposal"]
    assert problem in rejections[0]["checks"][0]["detail"] and problem in result.why
    assert task.task_id in lineage_notes([result])[0] and "unscaled" in lineage_notes([result])[0]
    assert proposer_totals([result])["requests"] == 6 and result.unaccepted["proposer"]["executions"] == 2


def test_a_change_naming_what_does_not_exist_comes_back_as_an_apply_error_without_host_paths(tmp_path, task):
    ghost = [{"operator": "paginate", "params": {"tool": "crm_teleport", "page_size": 5}}]
    with FakeModelServer(OPENAI, [_propose(ghost), GOOD]) as server:
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server)).scale(task)
        second = _sent(server.bodies[1])
    assert result.last.manifest.depth == 1
    assert "apply:" in second and "crm_teleport" in second
    assert str(tmp_path) not in second and "Traceback" not in second


def test_a_reply_cut_at_the_token_limit_is_sent_back_as_invalid(tmp_path, task):
    cut = Reply('{"rationale": "a long story about', truncated=True)
    with FakeModelServer(OPENAI, [cut, GOOD]) as server:
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server)).scale(task)
        second = _sent(server.bodies[1])
    assert result.last.manifest.depth == 1
    assert "cut at the output token limit" in second


def test_an_oversized_reply_is_refused_and_never_sent_back_whole(tmp_path, task):
    huge = Reply("x" * 2_000_000)
    with FakeModelServer(OPENAI, [huge, GOOD]) as server:
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server)).scale(task)
        second = _sent(server.bodies[1])
    assert result.last.manifest.depth == 1
    assert "the reply has 2000000 characters" in second and len(second) < 200_000
    assert len(json.dumps(result.last.manifest.to_dict())) < 50_000


@pytest.mark.parametrize("fault", [FaultKind.BAD_REQUEST, FaultKind.CONTEXT_LENGTH])
def test_a_provider_error_ends_the_seed_in_one_line_and_the_run_goes_on(tmp_path, task, fault):
    second_seed = load_tool_task(make_tool_task(tmp_path / "seed2", name="renewal-mail-2"))
    with FakeModelServer(OPENAI, [], after=Fault(fault, message="prompt too large for this model")) as server:
        scaler = build_scaler(tmp_path / "lin", depth_cap=2, proposer=_proposer(server))
        results = [scaler.scale(task), scaler.scale(second_seed)]
    assert [r.stop_reason for r in results] == ["proposer_failed", "proposer_failed"]
    assert all("HTTP 400" in r.why and "\n" not in r.why for r in results)
    report = scaling_report(results, llm=True)
    assert report[:2] == [f"unscaled seed {r.seed_task_id}: {r.why}" for r in results]
    assert not LineageStore(tmp_path / "lin").recall_child(
        task.task_id, scaler.growth_key(results[0].last, 1)
    )


def test_a_rate_limit_is_retried_and_the_child_accepted(tmp_path, task):
    limited = Fault(FaultKind.RATE_LIMIT, retry_after=0.01, message="slow down")
    with FakeModelServer(OPENAI, [limited, GOOD]) as server:
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server)).scale(task)
        sent = len(server.bodies)
    assert (result.last.manifest.depth, sent) == (1, 2)


def test_a_warm_rerun_sends_no_proposer_request(tmp_path, task):
    cache = ResponseCache(tmp_path / "responses")
    with FakeModelServer(OPENAI, [GOOD], after=Reply("no idea")) as server:
        proposer = _proposer(server, cache=cache)
        first = build_scaler(tmp_path / "lin", depth_cap=2, max_revisions=0, proposer=proposer).scale(task)
        cold = len(server.bodies)
        server.load([])  # every request from now on is an error
        again = build_scaler(tmp_path / "lin", depth_cap=2, max_revisions=0, proposer=proposer).scale(task)
        warm = len(server.bodies)
    assert (first.stop_reason, first.last.manifest.depth, cold) == ("no_valid_child", 1, 4)
    assert (again.stop_reason, again.why, warm) == (first.stop_reason, first.why, 0)
    assert again.unaccepted["proposer"]["cache_hits"] == 3


def test_the_models_config_is_what_the_request_carries(tmp_path, task):
    with FakeModelServer(OPENAI, [_propose(TOKEN + PAGINATE_5), GOOD]) as server:
        model = _model(
            server, temperature=0.3, max_output_tokens=1234, reasoning_effort="high", extra_body={"top_k": 5}
        )
        result = build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server, model=model)).scale(
            task
        )
        first, second = server.bodies
    assert (first["temperature"], first["max_completion_tokens"], first["reasoning_effort"]) == (
        0.3,
        1234,
        "high",
    )
    assert first["top_k"] == 5 and first["seed"] == 0
    assert "2 applications: propose at most 1" in _sent(second)  # operators_per_child
    assert result.last.manifest.depth == 1


def test_a_model_without_a_temperature_sends_none(tmp_path, task):
    with FakeModelServer(ANTHROPIC, [GOOD]) as server:
        model = _model(server, ANTHROPIC, temperature=None, max_output_tokens=777)
        build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server, ANTHROPIC, model=model)).scale(
            task
        )
        first = server.bodies[0]
    assert "temperature" not in first and first["max_tokens"] == 777


def test_the_single_mode_brief_carries_the_files_and_offers_only_the_proposal(tmp_path, task):
    with FakeModelServer(OPENAI, [GOOD]) as server:
        build_scaler(tmp_path / "lin", depth_cap=1, proposer=_proposer(server, mode="single")).scale(task)
        first = server.bodies[0]
    assert [tool["function"]["name"] for tool in first["tools"]] == ["propose_changes"]
    assert "## File contents" in first["messages"][1]["content"]
    assert "def grade(answer, audit, state)" in first["messages"][1]["content"]


def test_a_proposal_of_no_change_is_final_and_named_with_its_rationale(tmp_path, task):
    declined = Reply(
        calls=(Call("propose_changes", {"rationale": "nothing here to gate", "applications": []}),)
    )
    with FakeModelServer(OPENAI, [declined]) as server:
        result = build_scaler(
            tmp_path / "lin", depth_cap=1, max_revisions=3, proposer=_proposer(server)
        ).scale(task)
        sent = len(server.bodies)
    assert (result.stop_reason, sent) == ("no_valid_child", 1)
    assert "no operator of the library applies" in result.why and "nothing here to gate" in result.why
