"""The simulated model endpoint: the explorer tiers and the programmatic proposer behind the OpenAI
chat-completions protocol, reached through the real ``openai`` SDK, the LLM agent and the LLM proposer."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hydra_config import agent_loop, compose_config
from scalers import build_scaler

from res_repro.agents import SCRIPTED_AGENTS, make_llm_agent
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.task import Task
from res_repro.env.tools import ToolResponse
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord, run_episode
from res_repro.pipelines.lineages import scaling_settings as settings_of
from res_repro.pipelines.protocol import SIMULATED, deviations, protocol_text
from res_repro.res.llm_proposer import LLMProposer
from res_repro.res.operators import library
from res_repro.simulation import simulator
from res_repro.simulation.explorers import parse_tool_text

LOOP = agent_loop(max_turns=200, retry={"base_delay_s": 0.01})


def sim_model(model: str, url: str) -> dict:
    """A ``models`` entry of a simulated model served at ``url``."""
    return {
        "provider": "openai",
        "model": model,
        "base_url": None,
        "api_key_env": None,
        "timeout_s": 30.0,
        "temperature": None,
        "max_output_tokens": None,
        "simulated": True,
        "address": url,
    }


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Task]]:
    """The first tasks of a bundled shell suite and a bundled tool-API suite."""
    generated = tmp_path_factory.mktemp("generated")
    return {
        "terminal": load_benchmark("terminal_bundled", generated_dir=generated)[:2],
        "claw": load_benchmark("claw_bundled", generated_dir=generated)[:2],
    }


def sent_requests(record: EpisodeRecord) -> int:
    """How many of an episode's model responses went over the wire (the rest came from the cache)."""
    return record.turns - record.accounting["cache_hits"]


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["terminal", "claw"])
@pytest.mark.parametrize("tier", ["explorer-basic", "explorer-expert"])
def test_a_simulated_explorer_acts_as_the_scripted_one(tasks, suite, tier):
    with simulator(tasks[suite], seed=0, operators_per_child=1) as running:
        agent = make_llm_agent(tier, sim_model(f"sim-{tier}", running.url), LOOP, None, 0)
        for task in tasks[suite]:
            simulated = run_episode(task, agent, backend="local", episode_id="sim")
            scripted = run_episode(task, SCRIPTED_AGENTS[tier](), backend="local", episode_id="scripted")
            assert simulated.passed == scripted.passed
            assert simulated.turns == scripted.turns + 1  # the same tool calls, then submit_answer
            assert simulated.accounting["input_tokens"] > 0 and simulated.accounting["output_tokens"] > 0


def test_the_agents_turn_limit_binds_a_simulated_explorer(tasks):
    task = tasks["claw"][0]
    with simulator([task], seed=0, operators_per_child=1) as running:
        model = sim_model("sim-explorer-expert", running.url)
        agent = make_llm_agent("expert", model, agent_loop(max_turns=3), None, 0)
        record = run_episode(task, agent, backend="local", episode_id="short")
    assert record.stop_reason == "turn_limit" and record.turns == 3 and not record.passed


@pytest.mark.slow
def test_attempts_send_their_own_requests_and_a_rerun_sends_none(tasks, tmp_path):
    task = tasks["claw"][0]
    with simulator([task], seed=0, operators_per_child=1) as running:
        model = sim_model("sim-explorer-standard", running.url)

        def attempts() -> list[EpisodeRecord]:
            agent = make_llm_agent("target", model, LOOP, tmp_path / "responses", 0)
            return [
                run_episode(task, agent, backend="local", episode_id=f"target-n0-{k}", seed=k)
                for k in range(3)
            ]

        first, rerun = attempts(), attempts()
    assert all(sent_requests(record) == record.turns > 0 for record in first)
    assert [sent_requests(record) for record in rerun] == [0, 0, 0]
    assert [r.turns for r in rerun] == [r.turns for r in first]


def test_the_simulated_proposer_grows_a_checked_child(tasks, tmp_path):
    task = tasks["claw"][0]
    with simulator([task], seed=0, operators_per_child=1) as running:
        agent = make_llm_agent("proposer", sim_model("sim-proposer", running.url), LOOP, None, 0)
        proposer = LLMProposer(library(None), agent.provider, agent.model, retry=agent.retry)
        scaler = build_scaler(tmp_path / "lineages", depth_cap=2, proposer=proposer)
        result = scaler.scale(task)
    assert result.last.manifest.depth == 2
    for node in result.nodes[1:]:
        assert node.manifest.applications and all(check["passed"] for check in node.manifest.checks)
        assert node.manifest.proposer["input_tokens"] > 0


def test_the_simulator_dies_with_its_parent(tmp_path):
    script = (
        "import time\n"
        "from res_repro.simulation import simulator\n"
        "with simulator([], seed=0, operators_per_child=1) as running:\n"
        "    print(running.process.pid, flush=True)\n"
        "    time.sleep(120)\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    parent = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": root},
    )
    child = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in {"Z", "X"}


def test_tool_results_are_read_back_as_the_environment_wrote_them():
    for response in (
        ToolResponse(200, {"items": [1, 2], "next_cursor": "c"}),
        ToolResponse(429, {"error": "slow down"}, {"Retry-After": "2"}),
        ToolResponse(404, {"error": "no such record", "hint": "call crm_search"}),
        ToolResponse(200, "plain text\nover two lines"),
    ):
        assert parse_tool_text(response.text()) == response


def test_the_printout_names_only_simulated_models_under_models_sim():
    assert deviations(compose_config("models=sim")) == [SIMULATED]
    assert "deviations from the paper: simulated models" in protocol_text(compose_config("models=sim"))


def test_the_default_names_the_scripted_target_and_the_programmatic_proposer():
    found = deviations(compose_config())
    assert "scripted target (explorer-standard)" in found and "programmatic proposer" in found
    assert SIMULATED not in found


def test_a_limit_that_differs_from_the_paper_is_named():
    found = deviations(compose_config("models=sim", "scaling.target_max_turns=40", "metrics.threshold=0.9"))
    assert found == [SIMULATED, "target turn limit 40 (paper: 60)", "success threshold 0.9 (paper: 0.8)"]


def test_a_stopping_rule_other_than_the_papers_is_named():
    assert deviations(compose_config("models=sim", "scaling.stop_on=pass")) == [
        SIMULATED,
        "stopping on pass (paper: fulfilment)",
    ]
    with pytest.raises(UserInputError, match=r"scaling\.stop_on: expected one of"):
        settings_of(compose_config("scaling.stop_on=score"))


def test_the_paper_models_follow_the_paper_protocol():
    assert deviations(compose_config("models=paper")) == []


def _brief_body(task: Task, folder: Path, *, agentic: bool) -> dict:
    """A proposer's first request for a copy of ``task`` at ``folder``, as the LLM proposer writes it."""
    from res_repro.env.formats import format_of
    from res_repro.res.checks import own_reference
    from res_repro.res.graph import DependencyGraph
    from res_repro.res.llm_proposer import AGENTIC, ProposerLimits
    from res_repro.res.proposer_brief import SYSTEM, BriefParts, brief
    from res_repro.res.proposer_tools import INSPECTION, PROPOSE

    operators = [op for op in library(None) if op.kind == task.kind]
    parts = BriefParts(
        task,
        format_of(task).draft(folder).describe(),
        DependencyGraph(),
        [],
        own_reference(task, "local"),
        operators,
        1,
        folder,
    )
    limits = ProposerLimits(mode=AGENTIC if agentic else "single")
    text = brief(parts, agentic=agentic, context_chars=limits.context_chars, files_chars=1_000_000)
    tools = (*INSPECTION, PROPOSE) if agentic else (PROPOSE,)
    return {
        "model": "sim-proposer",
        "seed": 0,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": text}],
        "tools": [
            {"type": "function", "function": {"name": t.name, "parameters": dict(t.input_schema)}}
            for t in tools
        ],
    }


@pytest.mark.parametrize("suite", ["terminal", "claw"])
def test_the_simulated_proposer_answers_from_the_conversation_alone(tasks, tmp_path, suite):
    import shutil

    from res_repro.simulation.proposer import ProposerModel

    task = tasks[suite][0]
    folder = tmp_path / "candidate"
    shutil.copytree(task.path, folder, symlinks=True)
    single, agentic = _brief_body(task, folder, agentic=False), _brief_body(task, folder, agentic=True)
    shutil.rmtree(folder)  # the model never sees the disk: the conversation has to be enough
    assert str(folder) not in json.dumps([single, agentic])
    answer = ProposerModel(0, 1).answer(single)
    assert answer.tool == "propose_changes" and answer.arguments["applications"]
    reads = ProposerModel(0, 1).answer(agentic)
    assert {name for name, _ in reads.calls} == {"read_file"}
    assert all(arguments["offset"] == 0 for _, arguments in reads.calls)
