"""Chat fine-tuning export: model episodes only, the OpenAI messages and tools schema, pass filter."""

from __future__ import annotations

import json
import subprocess
import sys

from hydra_config import metric_settings

from res_repro.env.grade import Grade, RubricItem
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.sft.export import export_chat_jsonl

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
    return EpisodeRecord(
        episode_id=f"{agent}-{passed}",
        task_id="t1",
        benchmark="b",
        task_hash="h",
        agent=agent,
        scripted=scripted,
        environment="original",
        sandbox="local",
        stop_reason="answered",
        grade=Grade(score=1.0 if passed else 0.0, passed=passed),
        tools=[TOOL],
        messages=MESSAGES,
    )


def _export(tmp_path, *flags: str) -> list[dict]:
    episodes = tmp_path / "episodes.jsonl"
    records = [_record("gpt", False, True), _record("gpt", False, False), _record("oracle", True, True)]
    episodes.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in records))
    out = tmp_path / "sft.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "res_repro", "export-sft", str(episodes), str(out), *flags],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "episodes written" in done.stdout
    return [json.loads(line) for line in out.read_text().splitlines()]


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
    assert export_chat_jsonl([record], out, settings=metric_settings()) == 1
    assert json.loads(out.read_text())["metadata"]["passed"] is True
    assert export_chat_jsonl([record], out, settings=metric_settings(tcr_fraction=1.0)) == 0
