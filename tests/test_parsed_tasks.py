"""Task files parsed once per content, and records written without deep copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from episode_records import episode_record
from tool_factory import make_tool_task

from res_repro.env.formats import files
from res_repro.env.formats.files import dump_yaml_cached, parse_yaml_cached, read_yaml_mapping
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.env.formats.tool_api.draft import ToolDraft
from res_repro.env.grade import Grade, RubricItem
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.yamlio import load_yaml


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the YAML parser is handed, with the cache emptied first."""
    monkeypatch.setattr(files, "_parsed", {})
    seen: list[str] = []

    def counting(text: str) -> object:
        seen.append(text)
        return load_yaml(text)

    monkeypatch.setattr(files, "load_yaml", counting)
    return seen


def test_the_same_text_is_parsed_once_and_each_caller_gets_its_own_copy(parses: list[str]) -> None:
    text = "a: 1\nb: [x, y]\nc: {d: true}\n"
    first = parse_yaml_cached(text)
    first["b"].append("changed")
    second = parse_yaml_cached(text)
    assert second == {"a": 1, "b": ["x", "y"], "c": {"d": True}}
    assert parses == [text]
    parse_yaml_cached(text + "e: 2\n")
    assert len(parses) == 2  # other content is parsed


def test_a_document_json_cannot_carry_is_parsed_every_time(parses: list[str]) -> None:
    text = "when: 2024-01-02\n1: one\n"
    assert parse_yaml_cached(text) == parse_yaml_cached(text)
    assert len(parses) == 2


def test_the_cache_keeps_a_bounded_number_of_documents(
    parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_PARSED", 3)
    for n in range(5):
        parse_yaml_cached(f"n: {n}\n")
    assert len(files._parsed) == 3
    parse_yaml_cached("n: 0\n")  # the oldest was dropped
    assert len(parses) == 6


def test_a_file_written_through_the_cache_reads_back_without_parsing(
    tmp_path: Path, parses: list[str]
) -> None:
    document = {"task_id": "t", "prompt": "yes: no\n'quoted' \u00e9", "n": 1.5, "items": [None, "1.0"]}
    path = tmp_path / "task.yaml"
    path.write_text(dump_yaml_cached(document), encoding="utf-8")
    assert read_yaml_mapping(path, "needed") == document
    assert parses == []
    assert load_yaml(path.read_text(encoding="utf-8")) == document  # what the parser would have said


def test_a_drafted_task_is_parsed_once_however_often_it_is_loaded(tmp_path: Path, parses: list[str]) -> None:
    root = make_tool_task(tmp_path / "task")
    files._parsed.clear()  # as in a process that did not write it
    for _ in range(3):
        load_tool_task(root)
        ToolDraft(root)
    assert len(parses) == 1
    ToolDraft(root).save()  # the saved text is kept as its own parse
    load_tool_task(root)
    assert len(parses) == 1


@pytest.mark.parametrize(
    "grade",
    [None, Grade(score=0.5, passed=False, rubric=(RubricItem("x", True),), evidence={"log": [1, 2]})],
)
def test_an_episode_record_round_trips_through_json(grade: Grade | None) -> None:
    original = episode_record(
        grade=grade, messages=[{"role": "assistant", "content": "hi"}], tools=[{"name": "crm_get"}]
    )
    data = json.loads(json.dumps(original.to_dict()))
    assert EpisodeRecord.from_dict(data) == original
    assert data["grade"] == (
        None if grade is None else {**vars(grade), "rubric": [{"name": "x", "passed": True}]}
    )
