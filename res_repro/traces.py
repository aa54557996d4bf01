"""Model episodes as MLflow traces: one trace per episode, a span per model turn and per tool call.

The driver logs them after the episodes ran, from the episode records, into the active MLflow run (so
the run's Traces tab lists them); scripted agents' episodes are left out (they call no model). Records
keep no per-turn clock, so the turns divide the episode's wall time evenly: their order is real, their
lengths are not (the root span says so).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from typing import Any

from res_repro.evaluation.episode import EpisodeRecord

TIMING_NOTE = (
    "turn spans split the episode's wall time evenly: their order is recorded, their lengths are not"
)


def model_episodes(records: Iterable[EpisodeRecord]) -> Iterator[EpisodeRecord]:
    """The episodes of model agents (not scripted ones) that have a conversation to show."""
    return (record for record in records if not record.scripted and record.messages)


def _arguments(text: str | None) -> Any:
    """A tool call's arguments, parsed when they are JSON."""
    try:
        return json.loads(text or "{}")
    except json.JSONDecodeError:
        return text


def turns(messages: list[dict[str, Any]]) -> list[tuple[list[dict[str, Any]], dict[str, Any]]]:
    """The conversation as model turns: each assistant message with the messages that came just before
    it (the system and user prompt, or the previous turn's tool results)."""
    found, pending = [], []
    for message in messages:
        if message.get("role") == "assistant":
            found.append((pending, message))
            pending = []
        else:
            pending.append(message)
    return found


def tool_results(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Each tool call's output, by call id (a scripted agent's tool message without one answers no call)."""
    return {
        m["tool_call_id"]: m.get("content", "")
        for m in messages
        if m.get("role") == "tool" and "tool_call_id" in m
    }


def _outcome(record: EpisodeRecord) -> dict[str, Any]:
    """What the episode came to: its answer, stop reason and grade (score, verdict, rubric, evidence)."""
    grade = record.grade.to_dict() if record.grade is not None else None
    return {"answer": record.answer, "stop_reason": record.stop_reason, "grade": grade}


def log_episode_trace(record: EpisodeRecord, experiment_id: str, end_ns: int) -> None:
    """Log one episode as a trace ending at ``end_ns``: the root span holds the task and the outcome,
    a child per model turn holds its new input messages and the reply, a grandchild per tool call its
    arguments and output."""
    import mlflow

    wall_ns = max(int(record.wall_seconds * 1e9), 1)
    start_ns = end_ns - wall_ns
    root = mlflow.start_span_no_context(
        f"{record.agent} on {record.task_id}",
        span_type="AGENT",
        inputs={"task_id": record.task_id, "environment": record.environment, "tools": record.tools},
        attributes={
            "episode_id": record.episode_id,
            "benchmark": record.benchmark,
            "node_id": record.node_id or "",
            "depth": record.depth if record.depth is not None else "",
            "role": record.role,
            "turns": record.turns,
            "tool_calls": record.tool_calls,
            "wall_seconds": record.wall_seconds,
            "accounting": json.dumps(record.accounting, sort_keys=True),
            "timing": TIMING_NOTE,
        },
        tags={"agent": record.agent, "task_id": record.task_id, "passed": str(record.passed)},
        experiment_id=experiment_id,
        start_time_ns=start_ns,
    )
    outputs = tool_results(record.messages)
    steps = turns(record.messages)
    slice_ns = wall_ns // max(len(steps), 1)
    for index, (inputs, reply) in enumerate(steps):
        turn_start = start_ns + index * slice_ns
        span = mlflow.start_span_no_context(
            f"turn {index + 1}",
            span_type="CHAT_MODEL",
            parent_span=root,
            inputs={"messages": inputs},
            start_time_ns=turn_start,
        )
        calls = reply.get("tool_calls") or []
        for call_index, call in enumerate(calls):
            function = call.get("function", {})
            tool_start = turn_start + (call_index + 1) * slice_ns // (len(calls) + 1)
            tool = mlflow.start_span_no_context(
                function.get("name", "tool"),
                span_type="TOOL",
                parent_span=span,
                inputs=_arguments(function.get("arguments")),
                attributes={"tool_call_id": call.get("id", "")},
                start_time_ns=tool_start,
            )
            tool.set_outputs(outputs.get(call.get("id", ""), ""))
            tool.end(end_time_ns=turn_start + slice_ns)
        span.set_outputs(reply)
        span.end(end_time_ns=turn_start + slice_ns)
    root.set_outputs(_outcome(record))
    root.end(end_time_ns=end_ns)


def log_episode_traces(records: Iterable[EpisodeRecord], experiment_id: str, limit: int) -> tuple[int, int]:
    """Log the first ``limit`` model episodes as traces of the active run (the exporter writes them in
    the background); return how many were logged and how many model episodes there were."""
    episodes = list(model_episodes(records))
    now = time.time_ns()
    for record in episodes[:limit]:
        log_episode_trace(record, experiment_id, now)
    return min(limit, len(episodes)), len(episodes)
