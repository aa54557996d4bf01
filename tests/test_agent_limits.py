"""Every acting agent keeps the run's limits and takes its episode's seed; scaling stops on complete
fulfilment.

Scripted explorers stop at the configured turn limit (the tier's budget capped by it) and at the time
limit, with the stop reason a model agent would give; the limits are part of the fingerprint. The
episode's seed orders the alternatives an explorer tries, so attempts differ across seeds and repeat
exactly for one seed. The scaling target succeeds at a node only when it fulfils the task completely.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hydra_config import agent_loop
from scalers import build_scaler
from tool_factory import make_tool_task

from res_repro.agents import build_agents
from res_repro.agents.base import Agent, Attempt
from res_repro.agents.explorer import ExpertExplorer
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.grade import Grade, RubricItem
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord, run_episode


def calls_made(record: EpisodeRecord) -> list[tuple[str, str]]:
    """The tool calls of an episode, in order, with their arguments."""
    return [
        (m["tool_calls"][0]["function"]["name"], m["tool_calls"][0]["function"]["arguments"])
        for m in record.messages
        if m["role"] == "assistant" and m.get("tool_calls")
    ]


@pytest.fixture(scope="module")
def long_task(tmp_path_factory: pytest.TempPathFactory) -> tuple[Task, int]:
    """A bundled Claw-style task the unlimited expert needs more than 12 turns for, and those turns."""
    generated = tmp_path_factory.mktemp("generated")
    for task in load_benchmark("claw_bundled", generated_dir=generated):
        record = run_episode(task, ExpertExplorer(), backend="local", episode_id="unlimited")
        if record.passed and record.turns > 12:
            return task, record.turns
    raise AssertionError("no bundled Claw-style task needs more than 12 turns")


def test_explorer_stops_at_the_configured_turn_limit(long_task: tuple[Task, int]) -> None:
    """explorer-expert (budget 100) built with max_turns 12 stops at 12 turns with TURN_LIMIT."""
    task, needed = long_task
    expert = build_agents(["explorer-expert"], loop=agent_loop(max_turns=12))["explorer-expert"]
    record = run_episode(task, expert, backend="local", episode_id="limited")
    assert needed > 12
    assert record.stop_reason == StopReason.TURN_LIMIT
    assert record.turns == record.tool_calls == 12
    assert not record.passed and record.answer is None


def test_explorer_stops_at_the_time_limit(long_task: tuple[Task, int]) -> None:
    """With no time left the explorer makes no call and stops with TIME_LIMIT, not TURN_LIMIT."""
    task, _ = long_task
    expert = build_agents(["explorer-expert"], loop=agent_loop(time_limit_s=0))["explorer-expert"]
    record = run_episode(task, expert, backend="local", episode_id="no-time")
    assert record.stop_reason == StopReason.TIME_LIMIT
    assert record.turns == 0 and "time limit" in (record.error or "")


def test_limits_cap_the_budget_and_enter_the_fingerprint() -> None:
    """The target's 60-turn limit caps the expert's 100-turn budget, a limit above a tier's budget leaves
    it, and agents that differ only in limits have different fingerprints (so different episode ids)."""
    target = build_agents(["explorer-expert"], loop=agent_loop(max_turns=60))["explorer-expert"]
    evaluation = build_agents(["explorer-expert"], loop=agent_loop(max_turns=50))["explorer-expert"]
    standard = build_agents(["explorer-standard"], loop=agent_loop(max_turns=60))["explorer-standard"]
    assert target.fingerprint()["budget"] == 60 and evaluation.fingerprint()["budget"] == 50
    assert standard.fingerprint()["budget"] == standard.tier.budget == 40
    assert target.fingerprint() != evaluation.fingerprint()
    slower = build_agents(["explorer-expert"], loop=agent_loop(max_turns=60, time_limit_s=5))
    assert slower["explorer-expert"].fingerprint() != target.fingerprint()
    assert target.fingerprint()["time_limit_s"] == agent_loop()["time_limit_s"]


@pytest.fixture(scope="module")
def scaled(tmp_path_factory: pytest.TempPathFactory) -> list[Task]:
    """The depth-1 and depth-2 environments of one Claw-style and one Terminal lineage."""
    root = tmp_path_factory.mktemp("scaled")
    scaler = build_scaler(root / "lineages", depth_cap=2)
    tasks = []
    for suite, index in (("claw_bundled", 5), ("terminal_bundled", 0)):
        seed_task = load_benchmark(suite, generated_dir=root / "generated")[index]
        tasks += [node.task for node in scaler.scale(seed_task).nodes[1:]]
    return tasks


@pytest.mark.slow
def test_the_episode_seed_varies_an_explorer_and_fixes_it(scaled: list[Task]) -> None:
    """Across seeds some scaled environment sees different trajectories; each seed repeats exactly."""
    differing = 0
    for task in scaled:
        runs = {
            seed: run_episode(task, ExpertExplorer(), backend="local", episode_id=f"s{seed}", seed=seed)
            for seed in range(4)
        }
        again = run_episode(task, ExpertExplorer(), backend="local", episode_id="s1-again", seed=1)
        assert calls_made(again) == calls_made(runs[1])
        assert (again.passed, again.score, again.answer) == (runs[1].passed, runs[1].score, runs[1].answer)
        differing += len({json.dumps(calls_made(record)) for record in runs.values()}) > 1
    assert differing >= 1


# Complete fulfilment


@pytest.mark.parametrize(
    ("grade", "fulfilled"),
    [
        (Grade(score=1.0, passed=True), True),
        (Grade(score=0.8, passed=True), False),  # Claw-style pass at the 0.80 threshold, not complete
        (Grade(score=1.0 - 1e-12, passed=True), True),  # partial credits summed in floats
        (Grade(score=0.75, passed=False, rubric=(RubricItem("a", True), RubricItem("b", False))), False),
        (Grade(score=1.0, passed=True, rubric=(RubricItem("a", True),)), True),
        (Grade(score=0.0, passed=False), False),  # a failed verifier
    ],
)
def test_fulfilment_is_the_full_score_with_a_passing_verdict(grade: Grade, fulfilled: bool) -> None:
    """Claw-style 1.0, every rubric item, a verifier pass; the pass threshold alone is not enough."""
    assert grade.fulfilled is fulfilled


class MissesTheAnswer(Agent):
    """Does what the node's reference solution does (sending the right email through whatever the changes
    demand) but names nobody in its answer: native score 0.8, a pass, not complete."""

    name = "misses-the-answer"

    def run(self, task: Task, environment: Any, attempt: Attempt) -> AgentOutcome:
        """Run the reference solution and answer without the address."""
        outcome = environment.run_reference()
        outcome.answer = "done"
        return outcome


class Fulfils(MissesTheAnswer):
    """Sends the email and names the address: native score 1.0."""

    name = "fulfils"

    def run(self, task: Task, environment: Any, attempt: Attempt) -> AgentOutcome:
        """As above, answering with the address."""
        outcome = super().run(task, environment, attempt)
        outcome.answer = "Emailed ops@acme.test"
        return outcome


@pytest.mark.parametrize(
    ("target", "stop_on", "depth"),
    [(MissesTheAnswer(), "fulfilment", 1), (Fulfils(), "fulfilment", 2), (MissesTheAnswer(), "pass", 2)],
)
@pytest.mark.slow
def test_scaling_stops_unless_the_target_fulfils_the_task(
    target: Agent, stop_on: str, depth: int, tmp_path: Path
) -> None:
    """Under the paper's rule a target that passes at the 0.80 threshold without a full score stops the
    lineage at the first child and one that fulfils it lets it grow another; under ``stop_on=pass`` the
    pass suffices. The manifest records both verdicts per attempt."""
    scaler = build_scaler(
        tmp_path / "lineages", depth_cap=2, target=target, target_attempts=2, stop_on=stop_on
    )
    result = scaler.scale(load_tool_task(make_tool_task(tmp_path / "seed")))
    assert result.last.manifest.depth == depth
    outcomes = result.nodes[1].manifest.target
    assert len(outcomes) == 2 and all(o["passed"] for o in outcomes)
    assert all(o["fulfilled"] is isinstance(target, Fulfils) for o in outcomes)
    assert result.stop_reason == ("target_failed" if depth == 1 else "depth_cap")
