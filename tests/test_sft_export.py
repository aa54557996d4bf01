"""Chat fine-tuning export: model episodes only, exactly the chat schema (metadata in a side file), every
conversation opened by the user, a pass filter, and a reason when nothing is written."""

from __future__ import annotations

import json
import subprocess
import sys

from episode_records import episode_record
from hydra_config import metric_settings
from jsonschema import Draft202012Validator

from res_repro.env.grade import Grade, RubricItem
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.sft.export import SCHEMA_FILE, export_chat_jsonl, metadata_path

TOOL = {"name": "crm_get", "description": "Get a customer.", "input_schema": {"type": "object"}}
MESSAGES = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "do it"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "crm_get", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "{}"},
    {"role": "assistant", "content": "done"},
]


def _record(agent: str, scripted: bool, passed: bool) -> EpisodeRecord:
    """An episode of ``agent`` that passed or failed outright, with the conversation and tools to export."""
    return episode_record(
        agent,
        episode_id=f"{agent}-{passed}",
        task_id="t1",
        scripted=scripted,
        score=float(passed),
        passed=passed,
        tools=[TOOL],
        messages=MESSAGES,
    )


def _oracle() -> EpisodeRecord:
    """A scripted oracle's record: it runs the solution, with no conversation to learn from."""
    record = _record("oracle", True, True)
    record.episode_id, record.messages = (
        "oracle-solution",
        [{"role": "tool", "name": "solve.sh", "exit_code": 0}],
    )
    return record


def _run_export(tmp_path, records, *flags: str) -> subprocess.CompletedProcess:
    episodes = tmp_path / "episodes.jsonl"
    episodes.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in records))
    command = [
        sys.executable,
        "-m",
        "res_repro",
        "export-sft",
        str(episodes),
        str(tmp_path / "sft.jsonl"),
        *flags,
    ]
    return subprocess.run(command, capture_output=True, text=True)


def _export(tmp_path, *flags: str) -> list[dict]:
    """The examples written, each with its metadata line (checked to be apart from the example)."""
    records = [
        _record("gpt", False, True),
        _record("gpt", False, False),
        _record("oracle", True, True),
        _oracle(),
    ]
    done = _run_export(tmp_path, records, *flags)
    assert done.returncode == 0 and "episodes written" in done.stdout, done.stdout + done.stderr
    out = tmp_path / "sft.jsonl"
    examples = [json.loads(line) for line in out.read_text().splitlines()]
    metadata = [json.loads(line) for line in metadata_path(out).read_text().splitlines()]
    assert len(metadata) == len(examples) and all(set(e) == {"messages", "tools"} for e in examples)
    return [{**example, "metadata": meta} for example, meta in zip(examples, metadata, strict=True)]


def test_every_example_validates_against_the_chat_schema_and_opens_with_the_user(tmp_path):
    validator = Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
    examples = _export(tmp_path, "--all", "--include-scripted")
    assert len(examples) == 3  # the oracle's solution run has no conversation and is left out
    for example in examples:
        validator.validate({k: v for k, v in example.items() if k != "metadata"})
        assert next(m["role"] for m in example["messages"] if m["role"] != "system") == "user"
    assert not validator.is_valid({"messages": MESSAGES, "tools": [], "metadata": {}})
    assert not validator.is_valid({"messages": _oracle().messages + MESSAGES[1:], "tools": []})
    assert not validator.is_valid({"messages": [MESSAGES[0], MESSAGES[2]], "tools": []})


def test_nothing_written_says_why(tmp_path):
    done = _run_export(tmp_path, [_record("oracle", True, True), _oracle(), _record("gpt", False, False)])
    assert done.returncode == 1
    assert done.stdout.strip() == (
        f"no episode written to {tmp_path / 'sft.jsonl'}: 2 scripted agent, 1 did not pass; "
        "--include-scripted keeps them (scripted agent); --all keeps them (did not pass)"
    )


def test_only_passed_model_episodes_by_default(tmp_path):
    [example] = _export(tmp_path)
    assert example["messages"] == MESSAGES
    names = [tool["function"]["name"] for tool in example["tools"]]
    assert names == ["crm_get", "submit_answer"]
    assert example["tools"][0] == {
        "type": "function",
        "function": {"name": "crm_get", "description": "Get a customer.", "parameters": {"type": "object"}},
    }
    assert example["metadata"]["passed"] is True


def test_all_keeps_failed_but_never_scripted(tmp_path):
    examples = _export(tmp_path, "--all")
    assert [e["metadata"]["passed"] for e in examples] == [True, False]
    assert all(e["metadata"]["agent"] == "gpt" for e in examples)


def test_include_scripted_keeps_scripted_episodes_labelled(tmp_path):
    examples = _export(tmp_path, "--include-scripted")
    assert [(e["metadata"]["agent"], e["metadata"]["scripted"]) for e in examples] == [
        ("gpt", False),
        ("oracle", True),
    ]


def test_passed_means_the_benchmarks_success_rule(tmp_path):
    # 4 of 5 rubric items: the verifier's all-items verdict failed it, TCR@80 counts it as completed.
    record = _record("gpt", False, False)
    record.benchmark = "workspace_bundled"
    items = tuple(RubricItem(name=str(i), passed=i < 4) for i in range(5))
    record.grade = Grade(score=0.8, passed=False, rubric=items)
    out = tmp_path / "sft.jsonl"
    assert export_chat_jsonl([record], out, settings=metric_settings()).written == 1
    assert json.loads(metadata_path(out).read_text())["passed"] is True
    report = export_chat_jsonl([record], out, settings=metric_settings(tcr_fraction=1.0))
    assert (report.written, dict(report.skipped)) == (0, {"did not pass": 1})
