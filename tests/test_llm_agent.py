"""The LLM agent end to end: the real OpenAI and Anthropic SDK clients against local fake model servers.

Each test scripts the fake model, runs whole episodes through ``run_episode`` (or ``evaluate``), and
checks the outcome, the accounting, the conversation the server received, and the stored artefacts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (
    ANTHROPIC,
    CONTEXT_LENGTH,
    DROP,
    OPENAI,
    PROTOCOLS,
    SERVER_ERROR,
    Call,
    FakeModelServer,
    Fault,
    FaultKind,
    Raw,
    Recorded,
    Reply,
    Step,
    delay,
)
from task_factory import make_task
from tool_factory import make_tool_task

from res_repro.agents import LLMAgent, build_agents, make_llm_agent
from res_repro.agents.llm_agent import SUBMIT, SYSTEM_PROMPT
from res_repro.agents.providers.base import ConversationKeys, ModelRequest
from res_repro.agents.response_cache import ResponseCache
from res_repro.env.formats.harbor import load_task
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.task import Task
from res_repro.errors import MissingKeyError
from res_repro.evaluation.episode import EpisodeRecord, run_episode
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore

KEY = "test-key-123-5f0c9e"
KEY_VARIABLES = {OPENAI: "OPENAI_API_KEY", ANTHROPIC: "ANTHROPIC_API_KEY"}
MAX_ATTEMPTS = 3
RETRY = {"max_attempts": MAX_ATTEMPTS, "base_delay_s": 0.01, "max_delay_s": 0.05, "jitter": 0.5}
LOOP = {"max_turns": 10, "time_limit_s": 60.0, "max_tool_output_chars": 8000, "retry": RETRY}

SEARCH = Reply(
    "Looking Acme up.", (Call("crm_search", {"query": "Acme"}),), input_tokens=120, output_tokens=15
)
SOLVE_TOOL_TASK: tuple[Reply, ...] = (
    SEARCH,
    Reply(None, (Call("crm_get", {"id": "C1"}),), input_tokens=170, output_tokens=12),
    Reply(
        None,
        (Call("mail_send", {"to": "ops@acme.test", "subject": "Renewal", "body": "Your plan renews soon."}),),
        input_tokens=230,
        output_tokens=31,
    ),
    Reply(
        None, (Call("submit_answer", {"answer": "Emailed ops@acme.test"}),), input_tokens=260, output_tokens=9
    ),
)
SEARCH_RESULT = '{"items": [{"id": "C1", "name": "Acme Corp"}], "count": 1}'

AgentFactory = Callable[..., LLMAgent]


@pytest.fixture(params=PROTOCOLS)
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each provider protocol in turn, with its API key variable set."""
    monkeypatch.setenv(KEY_VARIABLES[request.param], KEY)
    return request.param


@pytest.fixture
def server(protocol: str) -> Iterator[FakeModelServer]:
    """A running fake model server for the protocol; tests load its script."""
    with FakeModelServer(protocol) as running:
        yield running


def model_config(server: FakeModelServer, **overrides: Any) -> dict[str, Any]:
    """A model config that points the provider's SDK at ``server``."""
    return {
        "provider": server.protocol,
        "model": "fake-model",
        "api_key_env": KEY_VARIABLES[server.protocol],
        "base_url": server.base_url,
        "timeout_s": 5.0,
        "temperature": 0.0,
        **overrides,
    }


@pytest.fixture
def make_agent(server: FakeModelServer) -> AgentFactory:
    """Build an agent against ``server``: keyword ``cache_dir``, ``loop`` overrides, model overrides."""

    def build(*, cache_dir: Path | None = None, loop: dict[str, Any] | None = None, **model: Any) -> LLMAgent:
        return make_llm_agent("fake", model_config(server, **model), {**LOOP, **(loop or {})}, cache_dir, 0)

    return build


@pytest.fixture
def tool_task(tmp_path: Path) -> Task:
    """The CRM-and-mail tool task."""
    return load_tool_task(make_tool_task(tmp_path / "tasks"))


def evaluate_with_retries(
    requests: list[EpisodeRequest], agent: LLMAgent, store: EpisodeStore
) -> list[EpisodeRecord]:
    """``requests`` run by ``agent`` through the runner, an infrastructure failure retried twice."""
    return evaluate(
        requests,
        agents={"fake": agent},
        backend="local",
        store=store,
        max_infra_retries=2,
        show_progress=False,
    )


def run(task: Task, agent: LLMAgent, episode_id: str = "episode") -> EpisodeRecord:
    """One episode in the local sandbox backend."""
    return run_episode(task, agent, backend="local", episode_id=episode_id)


def sent_key(request: Recorded) -> str:
    """The API key a request carried, whichever header the SDK put it in."""
    return request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix(
        "Bearer "
    )


def tool_results(protocol: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(call id, content) of the tool results at the end of a request, in either protocol."""
    if protocol == OPENAI:
        results = []
        for message in reversed(body["messages"]):
            if message["role"] != "tool":
                break
            results.insert(0, (message["tool_call_id"], message["content"]))
        return results
    last = body["messages"][-1]
    assert last["role"] == "user"
    return [(block["tool_use_id"], block["content"]) for block in last["content"]]


@pytest.mark.slow
def test_solves_the_tool_task(server: FakeModelServer, make_agent: AgentFactory, tool_task: Task) -> None:
    server.load(SOLVE_TOOL_TASK)
    record = run(tool_task, make_agent())

    assert record.stop_reason == "answered"
    assert record.grade is not None and record.grade.score == 1.0
    assert record.answer == "Emailed ops@acme.test"
    assert (record.turns, record.tool_calls) == (4, 4)
    accounting = record.accounting
    assert accounting["input_tokens"] == sum(r.input_tokens for r in SOLVE_TOOL_TASK)
    assert accounting["output_tokens"] == sum(r.output_tokens for r in SOLVE_TOOL_TASK)
    assert (accounting["cached_tokens"], accounting["retries"], accounting["cache_hits"]) == (0, 0, 0)
    assert accounting["model_seconds"] > 0

    messages = record.messages
    assert messages[:2] == [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": tool_task.instruction},
    ]
    assert [m["role"] for m in messages[2:]] == ["assistant", "tool"] * 4
    first_call = messages[2]["tool_calls"][0]
    assert messages[2] == {
        "role": "assistant",
        "content": "Looking Acme up.",
        "tool_calls": [
            {
                "id": first_call["id"],
                "type": "function",
                "function": {"name": "crm_search", "arguments": '{"query": "Acme"}'},
            }
        ],
    }
    assert messages[3] == {"role": "tool", "tool_call_id": first_call["id"], "content": SEARCH_RESULT}
    assert messages[-1]["content"] == "answer received"
    assert len(server.requests) == 4
    assert all(sent_key(request) == KEY for request in server.requests)


def test_openai_requests_carry_the_neutral_conversation(
    monkeypatch: pytest.MonkeyPatch, tool_task: Task
) -> None:
    monkeypatch.setenv(KEY_VARIABLES[OPENAI], KEY)
    with FakeModelServer(OPENAI, SOLVE_TOOL_TASK) as server:
        record = run(tool_task, make_llm_agent("fake", model_config(server), LOOP, None, 0))
    for turn, body in enumerate(server.bodies):
        assert body["model"] == "fake-model"
        assert body["temperature"] == 0.0
        assert body["messages"] == record.messages[: 2 + 2 * turn]
        assert [tool["function"]["name"] for tool in body["tools"]] == [
            "crm_search",
            "crm_get",
            "mail_send",
            "submit_answer",
        ]


def test_anthropic_requests_carry_system_tool_use_and_tool_result_blocks(
    monkeypatch: pytest.MonkeyPatch, tool_task: Task
) -> None:
    monkeypatch.setenv(KEY_VARIABLES[ANTHROPIC], KEY)
    with FakeModelServer(ANTHROPIC, SOLVE_TOOL_TASK) as server:
        record = run(tool_task, make_llm_agent("fake", model_config(server), LOOP, None, 0))
    first, second = server.bodies[:2]
    call_id = record.messages[2]["tool_calls"][0]["id"]
    assert first["system"] == SYSTEM_PROMPT
    assert first["temperature"] == 0.0
    assert first["messages"] == [{"role": "user", "content": tool_task.instruction}]
    assert first["max_tokens"] > 0
    assert [tool["name"] for tool in first["tools"]] == [
        "crm_search",
        "crm_get",
        "mail_send",
        "submit_answer",
    ]
    assert "input_schema" in first["tools"][0]
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking Acme up."},
                {"type": "tool_use", "id": call_id, "name": "crm_search", "input": {"query": "Acme"}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call_id, "content": SEARCH_RESULT}],
        },
    ]
    roles = [message["role"] for message in server.bodies[-1]["messages"]]
    assert roles == ["user"] + ["assistant", "user"] * 3


def test_solves_the_terminal_task_in_the_local_sandbox(
    server: FakeModelServer, make_agent: AgentFactory, tmp_path: Path
) -> None:
    task = load_task(make_task(tmp_path / "tasks"))
    server.load(
        [
            Reply(None, (Call("run_command", {"command": "echo done > /app/out.txt && cat /app/out.txt"}),)),
            Reply(None, (Call("submit_answer", {"answer": "wrote done"}),)),
        ]
    )
    record = run(task, make_agent())

    assert record.stop_reason == "answered"
    assert record.grade is not None and record.grade.score == 1.0
    assert (record.turns, record.tool_calls) == (2, 2)
    [(_, result)] = tool_results(server.protocol, server.bodies[1])
    assert json.loads(result) == {"exit_code": 0, "output": "done\n"}


@pytest.mark.parametrize(
    ("faults", "timeout_s"),
    [
        pytest.param([Fault(FaultKind.RATE_LIMIT, retry_after=0.0)], 5.0, id="429"),
        pytest.param([SERVER_ERROR, SERVER_ERROR], 5.0, id="500-twice"),
        pytest.param([delay(1.5)], 0.5, id="timeout"),
        pytest.param([DROP], 5.0, id="dropped-connection"),
    ],
)
@pytest.mark.slow
def test_transient_failures_are_retried(
    server: FakeModelServer,
    make_agent: AgentFactory,
    tool_task: Task,
    faults: list[Step],
    timeout_s: float,
) -> None:
    server.load([*faults, *SOLVE_TOOL_TASK])
    record = run(tool_task, make_agent(timeout_s=timeout_s))

    assert record.stop_reason == "answered"
    assert record.grade is not None and record.grade.score == 1.0
    assert record.accounting["retries"] == len(faults)
    assert record.turns == 4
    assert len(server.requests) == len(faults) + 4
    first = server.bodies[0]
    assert all(body == first for body in server.bodies[: len(faults) + 1])  # the same request, re-sent


@pytest.mark.parametrize(
    ("retry_after", "max_delay_s", "fastest", "slowest"),
    [
        pytest.param(0.3, 1.0, 0.3, 5.0, id="honoured"),
        pytest.param(2.0, 0.05, 0.0, 1.0, id="capped-by-max-delay"),
    ],
)
def test_retry_after_is_honoured_up_to_the_max_delay(
    server: FakeModelServer,
    make_agent: AgentFactory,
    tool_task: Task,
    retry_after: float,
    max_delay_s: float,
    fastest: float,
    slowest: float,
) -> None:
    server.load([Fault(FaultKind.RATE_LIMIT, retry_after=retry_after), *SOLVE_TOOL_TASK])
    record = run(tool_task, make_agent(loop={"retry": {**RETRY, "max_delay_s": max_delay_s}}))

    assert record.accounting["retries"] == 1
    assert record.stop_reason == "answered"
    assert fastest <= record.wall_seconds < slowest


def test_a_provider_that_keeps_failing_is_an_infrastructure_failure(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, tmp_path: Path
) -> None:
    server.load([], after=SERVER_ERROR)
    agent = make_agent()
    record = run(tool_task, agent)

    assert record.stop_reason == "provider_error"
    assert record.infrastructure_failure
    assert record.grade is None
    assert len(server.requests) == MAX_ATTEMPTS
    assert record.accounting["retries"] == MAX_ATTEMPTS - 1
    assert record.turns == 0
    assert record.error is not None and "500" in record.error

    server.load([], after=SERVER_ERROR)
    store = EpisodeStore(tmp_path / "store")
    requests = [EpisodeRequest(tool_task, "fake")]
    [failed] = evaluate_with_retries(requests, agent, store)
    assert failed.stop_reason == "provider_error"
    assert failed.grade is None
    assert len(server.requests) == (2 + 1) * MAX_ATTEMPTS
    assert store.get(failed.episode_id) is None

    server.load(SOLVE_TOOL_TASK)
    [scored] = evaluate(requests, agents={"fake": agent}, backend="local", store=store, show_progress=False)
    assert scored.episode_id == failed.episode_id
    assert scored.grade is not None and scored.grade.score == 1.0
    stored = store.get(scored.episode_id)
    assert stored is not None and stored.stop_reason == "answered"


def test_malformed_tool_arguments_get_an_error_and_the_episode_goes_on(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task
) -> None:
    server.load([Reply(None, (Call("crm_search", '{"query": "Acme"'),)), *SOLVE_TOOL_TASK])
    record = run(tool_task, make_agent())

    assert record.stop_reason == "answered"
    assert record.grade is not None and record.grade.score == 1.0
    assert (record.turns, record.tool_calls) == (5, 5)
    error = record.messages[3]
    assert error["role"] == "tool"
    assert error["tool_call_id"] == record.messages[2]["tool_calls"][0]["id"]
    assert error["content"].startswith("error: the arguments are not a JSON object")
    assert tool_results(server.protocol, server.bodies[1]) == [(error["tool_call_id"], error["content"])]
    assert tool_results(server.protocol, server.bodies[2])[0][1] == SEARCH_RESULT


def test_context_overflow_ends_the_episode_without_retrying(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task
) -> None:
    server.load([SEARCH, CONTEXT_LENGTH])
    record = run(tool_task, make_agent())

    assert record.stop_reason == "context_length"
    assert not record.infrastructure_failure
    assert record.grade is not None  # the agent's own failure: graded
    assert len(server.requests) == 2
    assert record.accounting["retries"] == 0
    assert record.turns == 1
    assert record.error is not None
    assert "context length" in record.error or "prompt is too long" in record.error


def test_the_turn_limit_stops_after_exactly_max_turns_calls(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task
) -> None:
    server.load([], after=SEARCH)
    record = run(tool_task, make_agent(loop={"max_turns": 3}))

    assert record.stop_reason == "turn_limit"
    assert (record.turns, record.tool_calls) == (3, 3)
    assert len(server.requests) == 3
    assert record.grade is not None and record.grade.score < 1.0


def _full_key(request: ModelRequest, provider: str, base_url: str | None, sample: str = "") -> str:
    """The cache key by its definition, hashed over the whole request at once."""
    blob = {
        "provider": provider,
        "base_url": base_url,
        "sample": sample,
        "model": request.model,
        "messages": request.messages,
        "tools": [tool.to_dict() for tool in request.tools],
        "temperature": request.temperature,
        "max_output_tokens": request.max_output_tokens,
        "seed": request.seed,
    }
    return hashlib.sha256(json.dumps(blob, sort_keys=True, default=str).encode()).hexdigest()


def test_conversation_keys_equal_the_full_request_hash() -> None:
    endpoint = ("openai", "http://127.0.0.1:1/v1")
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": 'Find "Acme" — then email them'},
    ]
    keys = ConversationKeys(*endpoint, "episode-1")
    for turn in range(3):
        request = ModelRequest("m", tuple(messages), (SUBMIT,), 0.0, None)
        assert (
            keys.key(request)
            == request.key(*endpoint, "episode-1")
            == _full_key(request, *endpoint, "episode-1")
        )
        assert keys.key(request) != request.key(*endpoint, "episode-2")  # another sample never shares it
        call = {"id": f"c{turn}", "type": "function", "function": {"name": "crm_get", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{turn}", "content": "[]"},
        ]
    # other settings, or a conversation that does not extend the hashed one, start the chain again
    for request in (
        ModelRequest("m", tuple(messages), (SUBMIT,), 0.7, 256),
        ModelRequest("m", tuple(messages), (), 0.7, 256),
        ModelRequest("m", ({**messages[0], "content": "other"}, *messages[1:]), (), 0.7, 256),
        ModelRequest("m", tuple(messages[:2]), (), 0.7, 256),
    ):
        assert keys.key(request) == _full_key(request, *endpoint, "episode-1")


def test_a_cached_replay_makes_no_requests_and_is_identical(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    server.load(SOLVE_TOOL_TASK)
    first = run(tool_task, make_agent(cache_dir=cache_dir))
    server.load([])
    again = run(tool_task, make_agent(cache_dir=cache_dir))

    assert server.requests == []
    assert again.messages == first.messages
    assert again.grade == first.grade
    assert again.accounting["cache_hits"] == 4
    assert again.accounting["input_tokens"] == first.accounting["input_tokens"]


def test_an_interrupted_run_resumes_paying_only_for_the_rest(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    server.load(SOLVE_TOOL_TASK[:2], after=SERVER_ERROR)
    interrupted = run(tool_task, make_agent(cache_dir=cache_dir))
    assert interrupted.stop_reason == "provider_error"
    assert len(server.requests) == 2 + MAX_ATTEMPTS

    server.load(SOLVE_TOOL_TASK[2:])
    resumed = run(tool_task, make_agent(cache_dir=cache_dir))
    assert resumed.stop_reason == "answered"
    assert resumed.grade is not None and resumed.grade.score == 1.0
    assert len(server.requests) == 2
    assert resumed.accounting["cache_hits"] == 2
    assert resumed.messages[: len(interrupted.messages)] == interrupted.messages


def test_the_api_key_is_sent_but_never_stored(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    server.load(SOLVE_TOOL_TASK[:2], after=SERVER_ERROR)
    failed = run(tool_task, make_agent(cache_dir=cache_dir))
    server.load(SOLVE_TOOL_TASK[2:])
    solved = run(tool_task, make_agent(cache_dir=cache_dir))  # the same episode, resumed

    assert {sent_key(request) for request in server.requests} == {KEY}
    assert failed.error is not None
    for record in (failed, solved):
        assert KEY not in json.dumps(record.to_dict())
    assert ResponseCache(cache_dir).count() == 4
    stored = [path for path in cache_dir.rglob("*") if path.is_file()]  # the database and its log
    assert stored and not any(KEY.encode() in path.read_bytes() for path in stored)


def test_a_missing_key_fails_before_any_request(
    server: FakeModelServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RES_TEST_UNSET_KEY", raising=False)
    models = {"fake": model_config(server, api_key_env="RES_TEST_UNSET_KEY")}
    with pytest.raises(MissingKeyError, match="RES_TEST_UNSET_KEY"):
        build_agents(["oracle", "fake"], models=models, loop=LOOP)
    assert server.requests == []


@pytest.mark.parametrize("protocol", [OPENAI, ANTHROPIC], indirect=True)
def test_cached_prompt_tokens_are_part_of_the_input(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task
) -> None:
    server.load(
        [Reply(r.text, r.calls, r.input_tokens, r.output_tokens, cached_tokens=100) for r in SOLVE_TOOL_TASK]
    )
    record = run(tool_task, make_agent())

    assert record.accounting["cached_tokens"] == 100 * len(SOLVE_TOOL_TASK)
    assert record.accounting["input_tokens"] == sum(r.input_tokens for r in SOLVE_TOOL_TASK)


def test_each_sample_asks_the_model_afresh_and_a_rerun_asks_nothing(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "cache"
    server.load([], after=Reply(text="I could not finish."))
    attempts = [f"target-node-{attempt}" for attempt in range(3)]
    for episode_id in attempts:  # a target's three attempts at one node: three samples, three requests
        run(tool_task, make_agent(cache_dir=cache_dir), episode_id)
    assert len(server.requests) == 3
    run(tool_task, make_agent(cache_dir=cache_dir), "evaluation-node")  # the evaluation is a sample too
    assert len(server.requests) == 4
    paged = {"name": "pagination", "params": {"tools": ["crm_search"], "page_size": 1}}
    scaled = load_tool_task(make_tool_task(tmp_path / "scaled", middleware=[paged]))
    agents = {"fake": make_agent(cache_dir=cache_dir)}
    store = EpisodeStore(tmp_path / "episodes")
    requests = [EpisodeRequest(tool_task, "fake"), EpisodeRequest(scaled, "fake", "res-depth-1")]
    evaluate(requests, agents=agents, backend="local", store=store, show_progress=False)
    assert len(server.requests) == 6  # the original and the scaled environment: one sample each
    server.load([])  # nothing more to answer: a rerun of the same jobs must not ask
    for episode_id in attempts:
        record = run(tool_task, make_agent(cache_dir=cache_dir), episode_id)
        assert record.accounting["cache_hits"] == 1
    evaluate(
        requests, agents=agents, backend="local", store=EpisodeStore(tmp_path / "fresh"), show_progress=False
    )
    assert server.requests == []


OPENAI_NULL_MESSAGE = {
    "id": "x",
    "object": "chat.completion",
    "created": 1,
    "model": "fake-model",
    "choices": [{"index": 0, "message": None, "finish_reason": "stop"}],
}
MALFORMED = {
    "not JSON": Raw(b"<html>502 Bad Gateway</html>", "text/html"),
    "JSON that is not an object": Raw(b'["a", "list"]'),
    "message null": Raw(json.dumps(OPENAI_NULL_MESSAGE).encode()),
    "another protocol's body": Raw(json.dumps(OPENAI_NULL_MESSAGE | {"choices": []}).encode()),
    "empty object": Raw(b"{}"),
}


@pytest.mark.parametrize("kind", sorted(MALFORMED))
def test_a_malformed_reply_is_a_provider_error(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, kind: str
) -> None:
    server.load([], after=MALFORMED[kind])
    record = run(tool_task, make_agent())
    assert record.stop_reason == "provider_error", record.error
    assert record.infrastructure_failure and record.grade is None
    assert record.error is not None and "\n" not in record.error


def test_a_deterministic_400_is_asked_once_and_retries_are_counted_over_every_run(
    server: FakeModelServer, make_agent: AgentFactory, tool_task: Task, tmp_path: Path
) -> None:
    agent = make_agent()
    requests = [EpisodeRequest(tool_task, "fake")]
    server.load([], after=Fault(FaultKind.BAD_REQUEST, message="invalid request: unknown field"))
    store = EpisodeStore(tmp_path / "store")
    [refused] = evaluate_with_retries(requests, agent, store)
    assert (refused.stop_reason, len(server.requests)) == ("provider_error", 1)  # no retry can change a 400

    server.load([], after=SERVER_ERROR)
    [down] = evaluate_with_retries(requests, agent, store)
    assert len(server.requests) == 3 * MAX_ATTEMPTS
    assert (down.accounting["retries"], down.accounting["episode_runs"]) == (3 * (MAX_ATTEMPTS - 1), 3)
    assert down.accounting["model_seconds"] > 0
