"""Export episodes as chat fine-tuning records: OpenAI ``messages`` with tool calls, plus ``tools``.

One JSONL line per episode: ``{"messages": [...], "tools": [...], "metadata": {...}}``. By default only
episodes of model agents are kept, and only those that passed. Scripted agents' episodes (the explorer
tiers record real tool-call conversations) are kept only when asked with ``include_scripted``, and every
record says in ``metadata.scripted`` which kind of agent produced it.

"Passed" is the benchmark's success rule (``metrics.succeeded``) under the given metric settings, the
paper's thresholds by default, so trajectories are selected by the same rule the tables report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import MetricSettings, succeeded

CHAT_ROLES = {"system", "user", "assistant", "tool"}


def openai_tools(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool specs in the OpenAI function-calling schema."""
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]},
        }
        for t in tools
    ]


def chat_record(
    record: EpisodeRecord,
    settings: MetricSettings,
    submit_tool: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One fine-tuning example: the conversation, the tools offered, and where it came from (``passed``
    under ``settings``)."""
    tools = [*record.tools, *([submit_tool] if submit_tool else [])]
    return {
        "messages": [m for m in record.messages if m.get("role") in CHAT_ROLES],
        "tools": openai_tools(tools),
        "metadata": {
            "task_id": record.task_id,
            "benchmark": record.benchmark,
            "environment": record.environment,
            "agent": record.agent,
            "scripted": record.scripted,
            "score": record.score,
            "passed": succeeded(record, settings),
            "stop_reason": record.stop_reason,
        },
    }


def trainable(
    record: EpisodeRecord,
    *,
    only_passed: bool,
    include_scripted: bool = False,
    settings: MetricSettings,
) -> bool:
    """True for finished, graded episodes with a conversation (that passed under ``settings``, when
    ``only_passed``) of model agents, and of scripted agents too when ``include_scripted``."""
    if record.scripted and not include_scripted:
        return False
    if record.infrastructure_failure or record.grade is None or not record.messages:
        return False
    return not only_passed or succeeded(record, settings)


def read_episodes(path: Path) -> Iterator[EpisodeRecord]:
    """Episode records from an ``episodes.jsonl`` file."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield EpisodeRecord.from_dict(json.loads(line))


def export_chat_jsonl(
    records: Iterable[EpisodeRecord],
    out: Path,
    *,
    only_passed: bool = True,
    include_scripted: bool = False,
    settings: MetricSettings,
) -> int:
    """Write the trainable records (see :func:`trainable`) as chat JSONL; return how many were written."""
    from res_repro.agents.llm_agent import SUBMIT

    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            if trainable(
                record, only_passed=only_passed, include_scripted=include_scripted, settings=settings
            ):
                example = chat_record(record, settings, SUBMIT.to_dict())
                handle.write(json.dumps(example, ensure_ascii=False) + "\n")
                written += 1
    return written
