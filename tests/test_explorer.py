"""Explorer baselines: scripted agents that follow the seed task's plan and find out by acting what changed.

On the original bundled suites the expert completes nearly every task while the basic tier, with a small
budget and no repairs, cannot afford the long plans. On environments scaled by the RES engine the
expert recovers through the tool interface where the basic tier fails, and what it does depends on
nothing but the plan and the tool results.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from scalers import build_scaler

from res_repro.agents import SCRIPTED_AGENTS, Agent, AgentOutcome, build_agents
from res_repro.agents.base import Attempt
from res_repro.agents.explorer import BasicExplorer, ExpertExplorer, ExplorerAgent
from res_repro.agents.explorer.decoding import decode_value
from res_repro.agents.explorer.notes import ordered, repairs_of
from res_repro.agents.explorer.policies import ExclusionRule, LatestRule, apply_rules, parse_rules
from res_repro.agents.explorer.shell import split_steps
from res_repro.benchmarks.registry import load_benchmark
from res_repro.env.environment import Environment
from res_repro.env.formats import load_task_dir
from res_repro.env.outcome import StopReason
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord, run_episode

SUITES = ("terminal_bundled", "workspace_bundled", "claw_bundled", "agentce")
TIERS: tuple[type[ExplorerAgent], ...] = (BasicExplorer, ExpertExplorer)
# seeds scaled in these tests: the first task of each Harbor suite, one task of each Claw family
SCALED_SEEDS = {
    "terminal_bundled": slice(0, 1),
    "workspace_bundled": slice(0, 1),
    "claw_bundled": slice(0, 35, 5),
}

Results = dict[tuple[str, str], list[EpisodeRecord]]


def episodes(tasks: list[Task], agent: ExplorerAgent, label: str) -> list[EpisodeRecord]:
    """One episode of ``agent`` on each task, on the local sandbox backend."""
    return [
        run_episode(task, agent, backend="local", episode_id=f"{label}-{task.task_id}", environment=label)
        for task in tasks
    ]


def rate(records: list[EpisodeRecord]) -> float:
    """The share of passed episodes."""
    return sum(r.passed for r in records) / len(records)


@pytest.fixture(scope="module")
def original_results(tmp_path_factory: pytest.TempPathFactory) -> Results:
    """Basic and expert on every task of the four bundled suites, original environments."""
    generated = tmp_path_factory.mktemp("generated")
    results: Results = {}
    for suite in SUITES:
        tasks = load_benchmark(suite, generated_dir=generated)
        for tier in TIERS:
            results[suite, tier.name] = episodes(tasks, tier(), "original")
    return results


@pytest.fixture(scope="module")
def scaled_tasks(tmp_path_factory: pytest.TempPathFactory) -> list[Task]:
    """Every environment (depths 1-4) of lineages the RES engine grows from a few seeds."""
    root = tmp_path_factory.mktemp("scaled")
    scaler = build_scaler(root / "lineages", depth_cap=4)
    tasks = []
    for suite, seeds in SCALED_SEEDS.items():
        for seed in load_benchmark(suite, generated_dir=root / "generated")[seeds]:
            tasks += [node.task for node in scaler.scale(seed).nodes[1:]]
    return tasks


@pytest.fixture(scope="module")
def scaled_results(scaled_tasks: list[Task]) -> Results:
    """Basic and expert on every scaled environment."""
    return {("scaled", tier.name): episodes(scaled_tasks, tier(), "scaled") for tier in TIERS}


@pytest.mark.slow
def test_expert_completes_most_original_tasks(original_results: Results) -> None:
    """Following the plan with every skill completes at least 80% of the original tasks."""
    expert = [r for suite in SUITES for r in original_results[suite, ExpertExplorer.name]]
    assert len(expert) >= 80
    assert rate(expert) >= 0.8
    assert all(r.scripted and r.agent == "explorer-expert" for r in expert)


@pytest.mark.slow
def test_basic_cannot_afford_long_plans(original_results: Results) -> None:
    """The basic tier completes clearly fewer original tasks, and only runs out of budget doing so."""
    expert = [r for suite in SUITES for r in original_results[suite, ExpertExplorer.name]]
    basic = [r for suite in SUITES for r in original_results[suite, BasicExplorer.name]]
    assert rate(expert) - rate(basic) >= 0.15
    failed = [r for r in basic if not r.passed]
    assert failed and all(r.stop_reason == StopReason.TURN_LIMIT for r in failed)
    assert all(r.tool_calls == BasicExplorer.tier.budget for r in failed)
    assert rate(original_results["agentce", BasicExplorer.name]) < rate(
        original_results["agentce", ExpertExplorer.name]
    )


@pytest.mark.slow
def test_trajectories_read_like_tool_calling_agents(original_results: Results) -> None:
    """Each tool call is one turn, recorded as an assistant call answered by a tool message."""
    for records in original_results.values():
        for record in records:
            calls = [m for m in record.messages if m["role"] == "assistant" and m.get("tool_calls")]
            answers = [m for m in record.messages if m["role"] == "tool"]
            assert record.turns == record.tool_calls == len(calls) == len(answers)
            assert [c["tool_calls"][0]["id"] for c in calls] == [a["tool_call_id"] for a in answers]
            assert [m["role"] for m in record.messages[:2]] == ["system", "user"]
            assert "Scripted" in record.messages[0]["content"]


@pytest.mark.slow
def test_expert_recovers_on_scaled_environments(scaled_tasks: list[Task], scaled_results: Results) -> None:
    """On scaled environments the expert mostly succeeds, and mostly where the basic tier fails."""
    basic, expert = (
        scaled_results["scaled", BasicExplorer.name],
        scaled_results["scaled", ExpertExplorer.name],
    )
    assert len(expert) >= 20
    recovered = [
        task for task, b, e in zip(scaled_tasks, basic, expert, strict=True) if e.passed and not b.passed
    ]
    assert rate(expert) >= 0.7
    assert rate(basic) <= 0.2
    assert len(recovered) >= len(expert) // 2
    assert {task.kind for task in recovered} == {"harbor", "tool"}


def garbled_copy(task: Task, dest: Path) -> Task:
    """A copy of a scaled environment whose reference adapters and preludes are garbage."""
    shutil.copytree(task.path, dest, symlinks=True)
    solution = dest / "solution"
    if (solution / "adapters.json").exists():
        (solution / "adapters.json").write_text("not the adapters\n")
    if (solution / "prelude.d").exists():
        shutil.rmtree(solution / "prelude.d")
        (solution / "solve.sh").write_text("exit 1\n")
    return load_task_dir(dest, benchmark=task.benchmark)


def calls_made(record: EpisodeRecord) -> list[dict[str, Any]]:
    """The tool calls of an episode, in order."""
    return [
        c["function"] for m in record.messages if m["role"] == "assistant" for c in m.get("tool_calls", [])
    ]


OPENED: list[Path] = []  # files opened while a watched agent acts
WATCHING = [False]


def _record_opens(event: str, args: tuple[Any, ...]) -> None:
    if WATCHING[0] and event == "open" and isinstance(args[0], (str, Path)):
        OPENED.append(Path(args[0]).resolve())


sys.addaudithook(_record_opens)  # audit hooks stay for the process; this one only listens while watching


class Watched(Agent):
    """An explorer whose file opens are recorded while it acts (the environment's own work included)."""

    def __init__(self, inner: ExplorerAgent) -> None:
        self.inner = inner
        self.name = inner.name

    def run(self, task: Task, environment: Environment, attempt: Attempt) -> AgentOutcome:
        """Run the inner explorer with the audit hook listening."""
        OPENED.clear()
        WATCHING[0] = True
        try:
            return self.inner.run(task, environment, attempt)
        finally:
            WATCHING[0] = False


@pytest.mark.slow
def test_explorer_learns_only_through_tools(scaled_tasks: list[Task], tmp_path: Path) -> None:
    """While acting, the explorer opens nothing in the task folder but its plan.

    Garbling the rest of the reference (adapters, preludes, the wrapper script) changes none of its calls.
    """
    harbor = next(t for t in scaled_tasks if t.kind == "harbor" and (t.path / "solution/prelude.d").is_dir())
    tool = next(t for t in scaled_tasks if t.kind == "tool")
    for index, task in enumerate((harbor, tool)):
        plan = "solution/base_solve.sh" if task.kind == "harbor" else "solution/solve.py"
        # a tool plan is read by its child interpreter (task code never runs in the harness), so the
        # harness itself opens at most the plan
        expected = {task.path / plan} if task.kind == "harbor" else set()
        clean = run_episode(task, Watched(ExpertExplorer()), backend="local", episode_id="clean")
        assert {p for p in OPENED if p.is_relative_to(task.path)} == expected
        copy = garbled_copy(task, tmp_path / f"garbled-{index}")
        garbled = run_episode(copy, Watched(ExpertExplorer()), backend="local", episode_id="garbled")
        assert {p for p in OPENED if p.is_relative_to(copy.path)} == {
            copy.path / p.relative_to(task.path) for p in expected
        }
        assert calls_made(clean) == calls_made(garbled)
        assert clean.passed == garbled.passed


@pytest.mark.slow
def test_runs_are_deterministic(scaled_tasks: list[Task]) -> None:
    """The same tier on the same environment makes the same calls and reaches the same verdict."""
    for task in (next(t for t in scaled_tasks if t.kind == "tool"), scaled_tasks[0]):
        first, second = (
            run_episode(task, ExpertExplorer(), backend="local", episode_id="x") for _ in range(2)
        )
        assert calls_made(first) == calls_made(second)
        assert (first.passed, first.answer) == (second.passed, second.answer)


def with_rate_limits(task: Task, dest: Path) -> Task:
    """A copy of a tool task whose tools fail a seeded share of calls with 429 or 503 and Retry-After."""
    shutil.copytree(task.path, dest)
    config = yaml.safe_load((dest / "task.yaml").read_text(encoding="utf-8"))
    layer = {"name": "transient_failures", "params": {"rate": 0.4, "max_consecutive": 2}}
    config["middleware"].insert(0, layer)
    (dest / "task.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return load_task_dir(dest, benchmark=task.benchmark)


def test_rate_limits_are_waited_out_without_sleeping(tmp_path: Path) -> None:
    """The expert waits out each Retry-After on paper only; the basic tier stops at the first refusal."""
    task = with_rate_limits(
        load_benchmark("agentce", generated_dir=tmp_path / "generated")[0], tmp_path / "t"
    )
    expert = run_episode(task, ExpertExplorer(), backend="local", episode_id="limited-expert")
    basic = run_episode(task, BasicExplorer(), backend="local", episode_id="limited-basic")
    assert expert.passed and expert.accounting["waited_s"] >= 3
    assert expert.wall_seconds < expert.accounting["waited_s"]
    assert not basic.passed and basic.answer is None and "temporarily unavailable" in (basic.error or "")


def test_tiers_are_registered_scripted_agents() -> None:
    """Each tier is a scripted agent by name, and its fingerprint names the tier and its skills."""
    agents = build_agents(["explorer-basic", "explorer-standard", "explorer-expert"])
    for name, agent in agents.items():
        assert SCRIPTED_AGENTS[name] is type(agent) and agent.scripted
        assert agent.fingerprint()["tier"] == name
    budgets = [agent.fingerprint()["budget"] for agent in agents.values()]
    assert budgets == sorted(budgets) and len(set(budgets)) == 3
    assert agents["explorer-basic"].fingerprint()["skills"] == []


def test_plan_steps_keep_compound_commands_whole() -> None:
    """Heredocs, loops and continued lines stay one step; comments go; ``set -e`` is left to the explorer."""
    script = (
        "#!/bin/bash\nset -euo pipefail\n# go home\ncd /app\n"
        "python3 - <<'PY'\nprint(1)\n\nprint(2)\nPY\n"
        'for f in *; do\n  echo "$f"\ndone\n'
        "sort a \\\n  > b\n"
    )
    assert split_steps(script) == (
        "set -uo pipefail",
        "cd /app",
        "python3 - <<'PY'\nprint(1)\n\nprint(2)\nPY",
        'for f in *; do\n  echo "$f"\ndone',
        "sort a \\\n  > b",
    )


def test_policies_become_rules() -> None:
    """Stated policies exclude marked records and keep only the highest revision of each record."""
    superseded = "Records with record_state 'superseded' in crm/deals are obsolete: ignore them."
    revisions = (
        "Listings may show one record (same deal_id) in several revisions: only the highest revision is "
        "current; older revisions are obsolete."
    )
    body = {"items": [{"id": "p1", "text": superseded}, {"id": "p2", "text": revisions}]}
    rules = parse_rules(body)
    assert rules == [ExclusionRule("record_state", "superseded"), LatestRule("deal_id", "revision")]
    listing = {
        "items": [
            {"deal_id": "D1", "amount": 5, "revision": 1},
            {"deal_id": "D1", "amount": 10, "revision": 2},
            {"deal_id": "D1-S", "record_state": "superseded"},
            {"deal_id": "D2", "amount": 7},
        ],
        "count": 4,
    }
    kept = apply_rules(listing, rules)
    assert kept["items"] == [{"deal_id": "D1", "amount": 10, "revision": 2}, {"deal_id": "D2", "amount": 7}]
    assert kept["count"] == 2


def test_codec_schemes_decode() -> None:
    """Values come back from base64, rot13, a caesar shift over letters and digits, and a scale."""
    assert decode_value("base64", 1, "aGVsbG8=") == "hello"
    assert decode_value("rot13", 1, "uryyb") == "hello"
    assert decode_value("caesar", 3, "khoor-2") == "hello-9"
    assert decode_value("scale", 100, 1250) == 12.5
    assert decode_value("scale", 100, 1200) == 12


def test_notes_become_ordered_repairs() -> None:
    """Facts in notes become repairs; a release waits for the tool that another repair rebuilds."""
    lock = (
        "# Stale\n\npath: out/report.csv\nlockfile: out/report.csv/LOCK\nrelease: python3 bin/unlock-1a2b3c\n"
    )
    parts = "# Parts\n\nfile: bin/unlock-1a2b3c\nmode: 0755\norder: seg-b seg-a\n"
    gate = "# Vault\n\nfile: data.csv\nsetup: bash setup-4d5e6f.sh\nfetch: python3 bin/fetch-4d5e6f\n"
    release, join, run = (
        repairs_of("/app/LOCKS-1a2b3c.md", lock, restore=True)
        + repairs_of("/app/parts-9f9f9f/ORDER", parts, restore=True)
        + repairs_of("/app/NOTES-4d5e6f.md", gate, restore=True)
    )
    assert (release.kind, join.kind, run.kind) == ("release", "join", "run")
    assert "sed -n 's/^token: //p' out/report.csv/LOCK" in release.command
    assert join.inputs == {"parts-9f9f9f/seg-b", "parts-9f9f9f/seg-a"}
    assert run.command == "cd /app && bash setup-4d5e6f.sh && python3 bin/fetch-4d5e6f"
    assert ordered([release, join, run])[:2] == [join, release]
    assert [r.kind for r in repairs_of("/app/LOCKS-1a2b3c.md", lock, restore=False)] == []
