"""Export episodes as chat fine-tuning records: OpenAI ``messages`` with tool calls, plus ``tools``.

One JSONL line per episode holding exactly the chat fine-tuning schema (``chat_schema.json`` beside this
module: ``{"messages": [...], "tools": [...]}``, each message with only its role's keys), and the same
line of ``<out>.metadata.jsonl`` saying where it came from (task, environment, agent, ``scripted``,
score, ``passed``). Every conversation opens with the user's message (after an optional system
message); an episode without one (a scripted oracle runs its solution with no conversation) is not
exported. By default only episodes of model agents are kept, and only those that passed; scripted
agents' episodes (the explorer tiers record real tool-call conversations) only with
``include_scripted``. The report says how many were written and why the others were not.

"Passed" is the benchmark's success rule (``metrics.succeeded``) under the given metric settings, the
paper's thresholds by default, so trajectories are selected by the same rule the tables report.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import MetricSettings, succeeded
from res_repro.storage import write_bytes_atomic

SCHEMA_FILE = Path(__file__).with_name("chat_schema.json")
MESSAGE_KEYS = {
    "system": ("role", "content"),
    "user": ("role", "content"),
    "assistant": ("role", "content", "tool_calls"),
    "tool": ("role", "tool_call_id", "content"),
}
# why an episode is not exported
SCRIPTED, INFRASTRUCTURE, UNGRADED, NO_USER, NOT_PASSED = (
    "scripted agent",
    "infrastructure failure",
    "ungraded",
    "no user message to open the conversation",
    "did not pass",
)


@cache
def chat_validator() -> Draft202012Validator:
    """A validator for the chat fine-tuning schema (``chat_schema.json``)."""
    return Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def openai_tools(tools: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool specs in the OpenAI function-calling schema."""
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]},
        }
        for t in tools
    ]


def chat_messages(record: EpisodeRecord) -> list[dict[str, Any]]:
    """The conversation in the schema: chat roles only, each message with only its role's keys (content
    as text), from the first system or user message on."""
    messages = []
    for message in record.messages:
        keys = MESSAGE_KEYS.get(message.get("role", ""))
        if keys is None:
            continue
        kept = {key: message[key] for key in keys if key in message and message[key] != []}
        if "tool_calls" not in kept:  # only a message with tool calls may have no content
            kept["content"] = "" if kept.get("content") is None else str(kept["content"])
        messages.append(kept)
    return messages


def opens_with_user(messages: list[dict[str, Any]]) -> bool:
    """True when the first message that is not a system message is the user's."""
    return next((m["role"] for m in messages if m["role"] != "system"), None) == "user"


def chat_record(record: EpisodeRecord, submit_tool: dict[str, Any] | None = None) -> dict[str, Any]:
    """One fine-tuning example: the conversation and the tools offered (nothing else)."""
    tools = [*record.tools, *([submit_tool] if submit_tool else [])]
    return {"messages": chat_messages(record), "tools": openai_tools(tools)}


def record_metadata(record: EpisodeRecord, settings: MetricSettings) -> dict[str, Any]:
    """Where an example came from (``passed`` under ``settings``): one line of the metadata side file."""
    return {
        "episode_id": record.episode_id,
        "task_id": record.task_id,
        "benchmark": record.benchmark,
        "environment": record.environment,
        "agent": record.agent,
        "scripted": record.scripted,
        "score": record.score,
        "passed": succeeded(record, settings),
        "stop_reason": record.stop_reason,
    }


def skip_reason(
    record: EpisodeRecord, *, only_passed: bool, include_scripted: bool = False, settings: MetricSettings
) -> str | None:
    """Why ``record`` is not a fine-tuning example, or None when it is one: a finished, graded episode
    whose conversation opens with the user (that passed under ``settings``, when ``only_passed``) of a
    model agent, or of a scripted agent too when ``include_scripted``."""
    if record.scripted and not include_scripted:
        return SCRIPTED
    if record.infrastructure_failure:
        return INFRASTRUCTURE
    if record.grade is None:
        return UNGRADED
    if not opens_with_user(chat_messages(record)):
        return NO_USER
    if only_passed and not succeeded(record, settings):
        return NOT_PASSED
    return None


def trainable(
    record: EpisodeRecord, *, only_passed: bool, include_scripted: bool = False, settings: MetricSettings
) -> bool:
    """True when :func:`skip_reason` finds nothing against ``record``."""
    reason = skip_reason(
        record, only_passed=only_passed, include_scripted=include_scripted, settings=settings
    )
    return reason is None


def metadata_path(out: Path) -> Path:
    """The side file beside ``out`` holding each example's metadata, line for line."""
    return out.with_name(f"{out.stem}.metadata.jsonl")


@dataclass
class ExportReport:
    """How many examples were written, and how many episodes were left out for each reason."""

    written: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def why_none(self) -> str:
        """The reasons nothing was written, most frequent first."""
        if not self.skipped:
            return "no episode in the input"
        return ", ".join(f"{n} {reason}" for reason, n in self.skipped.most_common())


def export_chat_jsonl(
    records: Iterable[EpisodeRecord],
    out: Path,
    *,
    only_passed: bool = True,
    include_scripted: bool = False,
    settings: MetricSettings,
) -> ExportReport:
    """Write the examples (see :func:`skip_reason`) as chat JSONL, each checked against the schema, and
    their metadata to :func:`metadata_path` (neither when no example is kept); report what was written and
    why the rest was not."""
    from res_repro.agents.llm_agent import SUBMIT

    report = ExportReport()
    examples: list[str] = []
    metadata: list[str] = []
    for record in records:
        reason = skip_reason(
            record, only_passed=only_passed, include_scripted=include_scripted, settings=settings
        )
        if reason is not None:
            report.skipped[reason] += 1
            continue
        example = chat_record(record, SUBMIT.to_dict())
        chat_validator().validate(example)
        examples.append(json.dumps(example, ensure_ascii=False) + "\n")
        metadata.append(json.dumps(record_metadata(record, settings), ensure_ascii=False) + "\n")
        report.written += 1
    if examples:  # both files at once, after every record was read: a bad input leaves neither
        write_bytes_atomic(out, "".join(examples).encode())
        write_bytes_atomic(metadata_path(out), "".join(metadata).encode())
    return report
