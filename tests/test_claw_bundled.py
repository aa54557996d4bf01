"""The generated claw_bundled suite: size, validity under oracle and nop, partial credit, determinism."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from res_repro.benchmarks.claw import load_claw_bundled
from res_repro.env.formats.tool_api import ToolEnvironment
from res_repro.env.task import Task


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> list[Task]:
    """The default suite, generated once for this module."""
    return load_claw_bundled({}, tmp_path_factory.mktemp("generated"))


def wrong_headline(answer: str) -> str:
    """The answer with one digit of its first (headline) line changed: right format, wrong value."""
    first, _, rest = answer.partition("\n")
    digit = re.search(r"\d", first)
    assert digit is not None, f"no number in the headline {first!r}"
    changed = str((int(digit.group()) + 1) % 10)
    return f"{first[: digit.start()]}{changed}{first[digit.end() :]}\n{rest}"


def test_suite_size_and_families(tasks: list[Task]) -> None:
    families = {task.config.family for task in tasks}
    assert len(tasks) >= 30
    assert len(families) >= 6
    assert all(task.task_id.startswith(f"claw-{task.config.family}-") for task in tasks)


def test_tools_are_declared_with_closed_schemas(tasks: list[Task]) -> None:
    for task in tasks:
        assert 3 <= len(task.config.tools) <= 8, task.task_id
        for tool in task.config.tools:
            assert tool.input_schema["additionalProperties"] is False, (task.task_id, tool.name)
            assert "required" in tool.input_schema, (task.task_id, tool.name)


@pytest.mark.slow
def test_oracle_scores_one_and_nop_stays_below_half(tasks: list[Task]) -> None:
    for task in tasks:
        environment = ToolEnvironment(task)
        outcome = environment.run_reference()
        assert outcome.answer is not None, (task.task_id, outcome.messages)
        assert environment.grade(outcome.answer).score == pytest.approx(1.0), task.task_id
        assert ToolEnvironment(task).grade("").score < 0.5, task.task_id


@pytest.mark.slow
def test_wrong_headline_gets_partial_credit(tasks: list[Task]) -> None:
    for task in tasks:
        environment = ToolEnvironment(task)
        answer = environment.run_reference().answer or ""
        grade = environment.grade(wrong_headline(answer))
        assert 0 < grade.score < 1, (task.task_id, grade.evidence)
        assert not grade.passed, task.task_id


def test_generation_is_deterministic(tmp_path: Path) -> None:
    first = load_claw_bundled({"tasks_per_family": 2, "seed": 3}, tmp_path / "a")
    second = load_claw_bundled({"tasks_per_family": 2, "seed": 3}, tmp_path / "b")
    assert [t.task_id for t in first] == [t.task_id for t in second]
    assert [t.content_hash for t in first] == [t.content_hash for t in second]


def test_instances_differ_in_their_data(tasks: list[Task]) -> None:
    fixtures = [
        b"".join(path.read_bytes() for path in sorted((task.path / "fixtures").iterdir())) for task in tasks
    ]
    assert len(set(fixtures)) == len(tasks)
