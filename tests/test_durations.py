"""Episodes start longest first by what earlier runs measured; the durations file is only a hint (a
damaged one is ignored with a warning) and runs that save at once keep each other's entries."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from tool_factory import make_tool_task

from res_repro.agents.base import Agent, Attempt
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.task import Task
from res_repro.evaluation.durations import EpisodeDurations
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.jobs import EpisodeJob, EpisodeRequest
from res_repro.evaluation.runner import evaluate
from res_repro.evaluation.store import EpisodeStore

SECONDS = {"short": 0.05, "medium": 0.15, "long": 0.3, "new": 0.05}


class TimedAgent(Agent):
    """Takes SECONDS[task id] per episode and notes which task each episode it started was on."""

    name = "timed"

    def __init__(self) -> None:
        self.started: list[str] = []

    def run(self, task: Task, environment: Any, attempt: Attempt) -> AgentOutcome:
        """Note the task, wait, answer nothing."""
        self.started.append(task.task_id)
        time.sleep(SECONDS[task.task_id])
        return AgentOutcome(StopReason.ANSWERED, answer="")


def tasks(root: Path, names: list[str]) -> list[Task]:
    """A tool task per name, each with its own content."""
    return [load_tool_task(make_tool_task(root, name)) for name in names]


def run(root: Path, store: str, names: list[str], durations: EpisodeDurations) -> tuple[list[str], list[str]]:
    """The tasks in the order their episodes started, and in the order the records came back."""
    agent = TimedAgent()
    records = evaluate(
        [EpisodeRequest(task, agent.name) for task in tasks(root / "tasks", names)],
        agents={agent.name: agent},
        backend="local",
        store=EpisodeStore(root / store),
        workers=1,
        show_progress=False,
        durations=durations,
    )
    return agent.started, [r.task_id for r in records]


def test_a_later_run_starts_its_longest_episodes_first_and_unknown_ones_before_them(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    first = run(tmp_path, "first", ["short", "long", "medium"], EpisodeDurations(path))
    assert first == (["short", "long", "medium"], ["short", "long", "medium"])  # nothing known yet

    started, returned = run(tmp_path, "second", ["short", "new", "long", "medium"], EpisodeDurations(path))
    assert started == ["new", "long", "medium", "short"]
    assert returned == ["short", "new", "long", "medium"]  # records still come back in request order


def test_without_durations_episodes_start_in_request_order(tmp_path: Path) -> None:
    path = tmp_path / "durations.json"
    run(tmp_path, "first", ["short", "long"], EpisodeDurations(path))
    agent = TimedAgent()
    evaluate(
        [EpisodeRequest(task, agent.name) for task in tasks(tmp_path / "tasks", ["short", "long"])],
        agents={agent.name: agent},
        backend="local",
        store=EpisodeStore(tmp_path / "second"),
        show_progress=False,
    )
    assert agent.started == ["short", "long"]


def job(task: Task, agent: str, index: int = 0) -> EpisodeJob:
    """A job of ``agent`` on ``task``."""
    return EpisodeJob(index, EpisodeRequest(task, agent), f"episode-{index}", "local", 0, 0)


def finished(task: Task, agent: str, seconds: float, stop_reason: str = "answered") -> EpisodeRecord:
    """A record of an episode that took ``seconds``."""
    record = EpisodeRecord.unfinished(task, TimedAgent(), "original", "episode", "local")
    return replace(record, agent=agent, stop_reason=stop_reason, wall_seconds=seconds)


def test_an_agent_new_to_a_task_is_expected_to_take_the_longest_other_agents_took(tmp_path: Path) -> None:
    short, long = tasks(tmp_path, ["short", "long"])
    durations = EpisodeDurations(tmp_path / "durations.json")
    for task, agent, seconds in [(short, "nop", 0.1), (short, "expert", 9.0), (long, "nop", 5.0)]:
        durations.record(job(task, agent), finished(task, agent, seconds))
    assert durations.estimate(short.content_hash, "nop") == 0.1
    assert durations.estimate(short.content_hash, "model") == 9.0
    assert durations.estimate("unseen", "nop") is None
    ordered = durations.longest_first([job(long, "nop", 0), job(short, "model", 1), job(short, "nop", 2)])
    assert [j.index for j in ordered] == [1, 0, 2]


def test_an_infrastructure_failure_says_nothing_of_the_tasks_duration(tmp_path: Path) -> None:
    (task,) = tasks(tmp_path, ["short"])
    durations = EpisodeDurations(tmp_path / "durations.json")
    durations.record(job(task, "nop"), finished(task, "nop", 30.0, stop_reason="sandbox_error"))
    durations.save()
    assert durations.estimate(task.content_hash, "nop") is None
    assert not (tmp_path / "durations.json").exists()


def test_runs_saving_one_after_the_other_keep_each_others_durations(tmp_path: Path) -> None:
    short, long = tasks(tmp_path, ["short", "long"])
    path = tmp_path / "cache" / "durations.json"
    one, two = EpisodeDurations(path), EpisodeDurations(path)  # both read before either saved
    one.record(job(short, "nop"), finished(short, "nop", 1.0))
    two.record(job(long, "nop"), finished(long, "nop", 2.0))
    one.save()
    two.save()
    merged = EpisodeDurations(path)
    assert merged.estimate(short.content_hash, "nop") == 1.0
    assert merged.estimate(long.content_hash, "nop") == 2.0


@pytest.mark.parametrize("content", ["{not json", "[1, 2]", "\xff\xfe"])
def test_a_damaged_durations_file_is_ignored_with_a_warning_and_replaced(
    tmp_path: Path, content: str, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "durations.json"
    path.write_bytes(content.encode("latin-1"))
    (task,) = tasks(tmp_path, ["short"])
    with caplog.at_level(logging.WARNING):
        durations = EpisodeDurations(path)
    assert f"{path}: ignoring the episode durations" in caplog.text and "request order" in caplog.text
    durations.record(job(task, "nop"), finished(task, "nop", 1.0))
    durations.save()
    assert EpisodeDurations(path).estimate(task.content_hash, "nop") == 1.0


def test_durations_that_cannot_be_saved_cost_a_warning_not_the_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    durations = EpisodeDurations(tmp_path / "cache" / "durations.json")
    with caplog.at_level(logging.WARNING):
        started, returned = run(tmp_path, "store", ["short", "long"], durations)
    assert returned == ["short", "long"] and sorted(started) == ["long", "short"]
    assert "the episode durations were not saved" in caplog.text
