"""Task files written from kept entry texts give the same bytes as serialising the whole document, and
a document that grew by one entry serialises that entry alone; argument verdicts and grader snapshots
kept or copied without changing what they say."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tool_factory import make_tool_task

from res_repro.benchmarks.registry import load_benchmark
from res_repro.env import tools
from res_repro.env.formats import files
from res_repro.env.formats.files import dump_json_cached, dump_yaml_cached
from res_repro.env.services import FixtureService
from res_repro.env.tools import ToolSpec
from res_repro.yamlio import dump_yaml, load_yaml

REPO = Path(__file__).resolve().parents[1]

AWKWARD: list[Any] = [
    {},
    {"a": []},
    {"a": {}},
    {"a": [[], {}, [1, [2, []]], None, True, 1.5, "1.0", "yes", "- dash", "#hash"]},
    {"text": "line one\n\nline two\n\n", "tab": "a\tb", "quote": 'it\'s "x"', "u": "\u00e9\u4e2d\U0001f600"},
    {"k" * 200: [{"k" * 150: "long keys are written in YAML's long form"}]},
    {"list": ["trailing newline\n", "two\n\n", " leading space", "", None]},
    {"tools": [{"name": "t", "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}]},
    {"nested": [[["deep"]], [{"x": [{"y": []}]}]], "after": "x" * 300},
    {"1": "a string key that looks like a number", "null": None, "true": "x"},
]


@pytest.mark.parametrize("document", AWKWARD)
def test_yaml_written_entry_by_entry_is_the_whole_documents_text(document: Any) -> None:
    files._serialised.clear()
    assert dump_yaml_cached(document) == dump_yaml(document)
    assert dump_yaml_cached(document) == dump_yaml(document)  # from kept texts this time


def test_every_bundled_task_file_is_written_as_before(tmp_path: Path) -> None:
    load_benchmark(
        "claw_bundled", {"tasks_per_family": 1}, generated_dir=tmp_path
    )  # every family's generated task files
    found = [*REPO.glob("res_repro/**/task.yaml"), *REPO.glob("tests/fixtures/**/task.yaml")]
    found += sorted(tmp_path.glob("**/task.yaml"))
    documents = [load_yaml(path.read_text(encoding="utf-8")) for path in found]
    mappings = [document for document in documents if isinstance(document, dict)]
    assert mappings, "no bundled task files found"
    for document in mappings:
        assert dump_yaml_cached(document) == dump_yaml(document)


def test_a_document_json_cannot_carry_is_written_whole() -> None:
    for document in ({1: "non-string key"}, {"t": (1, 2)}, {"f": float("nan")}):
        assert dump_yaml_cached(document) == dump_yaml(document)


def test_a_grown_document_serialises_only_its_new_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    dumped: list[Any] = []

    def counting(data: Any) -> str:
        dumped.append(data)
        return dump_yaml(data)

    monkeypatch.setattr(files, "dump_yaml", counting)
    files._serialised.clear()
    tools_list = [{"name": f"tool{n}", "params": {"n": n}} for n in range(20)]
    document = {"task_id": "t", "tools": tools_list, "middleware": [{"name": "quota"}]}
    first = dump_yaml_cached(document)
    dumped.clear()
    document["tools"].append({"name": "new", "params": {}})
    grown = dump_yaml_cached(document)
    assert grown == dump_yaml({**document})
    assert grown != first
    assert dumped == [{"k": [{"name": "new", "params": {}}]}]


@pytest.mark.parametrize("document", [*AWKWARD, [{"a": 1}, [], {}, "x\ny"], [], "s", 3])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_indented_json_joined_from_entries_is_jsons_own(document: Any, ensure_ascii: bool) -> None:
    files._serialised.clear()
    expected = json.dumps(document, indent=1, ensure_ascii=ensure_ascii)
    assert dump_json_cached(document, ensure_ascii=ensure_ascii) == expected
    assert dump_json_cached(document, ensure_ascii=ensure_ascii) == expected


def test_indented_json_with_non_string_keys_is_jsons_own() -> None:
    document = {1: "a", None: [1], 2.5: {}}
    assert dump_json_cached(document, ensure_ascii=True) == json.dumps(document, indent=1)


def test_a_drafted_tool_task_saves_the_same_bytes(tmp_path: Path) -> None:
    from res_repro.env.formats.tool_api.draft import ToolDraft

    root = make_tool_task(tmp_path / "task")
    draft = ToolDraft(root)
    draft.add_adapter("require_token", {"tools": ["crm_get"], "token": "\u00e9"})
    draft.save()
    data = draft.config.model_dump(mode="json")
    assert (root / "task.yaml").read_text(encoding="utf-8") == dump_yaml(data)
    assert (root / "solution" / "adapters.json").read_text() == json.dumps(draft.adapters, indent=1) + "\n"
    for service, collections in draft.fixtures.items():
        text = (root / "fixtures" / f"{service}.json").read_text(encoding="utf-8")
        assert text == json.dumps(collections, indent=1, ensure_ascii=False) + "\n"


SPEC = ToolSpec(
    "get",
    "d",
    {
        "type": "object",
        "properties": {"id": {"type": "string"}},
        "required": ["id"],
        "additionalProperties": False,
    },
)


@pytest.mark.parametrize(
    "arguments",
    [{"id": "A"}, {}, {"id": 1}, {"id": "A", "x": 1}, {"x": 1, "id": "A", "y": 2}, {"id": True}],
)
def test_a_kept_argument_verdict_is_the_validators(arguments: dict[str, Any]) -> None:
    fresh = ToolSpec(SPEC.name, SPEC.description, SPEC.input_schema)
    expected = fresh._first_violation(arguments)
    assert SPEC.argument_error(arguments) == expected
    assert fresh.argument_error(arguments) == expected  # kept, and the same


def test_argument_verdicts_are_worked_out_once_per_schema_and_arguments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tools, "_VERDICTS", {})
    checked: list[Any] = []
    original = ToolSpec._first_violation

    def counting(self: ToolSpec, arguments: Any) -> str | None:
        checked.append(arguments)
        return original(self, arguments)

    monkeypatch.setattr(ToolSpec, "_first_violation", counting)
    for _ in range(3):
        assert ToolSpec(SPEC.name, SPEC.description, SPEC.input_schema).argument_error({"id": "A"}) is None
    assert len(checked) == 1
    # values JSON would change are validated each time: a tuple is not an array to the validator
    listed = ToolSpec("l", "d", {"type": "object", "properties": {"ids": {"type": "array"}}})
    assert listed.argument_error({"ids": ["a"]}) is None
    assert listed.argument_error({"ids": ("a",)}) is not None
    assert listed.argument_error({"ids": ("a",)}) is not None
    assert len(checked) == 4


def test_a_grader_snapshot_is_a_private_copy() -> None:
    service = FixtureService("crm", {"customers": [{"id": "C1", "tags": ["a"]}]})
    snapshot = service.snapshot()
    assert snapshot == service.collections
    snapshot["customers"][0]["tags"].append("changed")
    snapshot["customers"].append({"id": "C2"})
    assert service.collections == {"customers": [{"id": "C1", "tags": ["a"]}]}
