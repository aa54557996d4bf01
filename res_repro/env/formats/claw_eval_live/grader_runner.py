"""Runs one Claw-Eval-Live grader in its own interpreter, against the checkout's own package.

Started as ``python -I -B grader_runner.py``; it imports nothing from the harness. Protocol, one JSON
document per line: the harness writes the request on stdin; while grading, each judge question is
written on stdout as ``{"judge": {...}}`` and answered on stdin with ``{"score", "reasoning"}`` or
``{"error"}``; the last line on stdout is ``{"scores": {...}}`` or ``{"error": ..., "judge_failure": ...}``.
Anything the grader prints goes to stderr.

Request fields: ``src`` (the checkout's ``src`` folder), ``grader`` (grader.py), ``task_yaml``,
``trace_id``, ``messages`` (``{"role", "content": [blocks]}``), ``dispatches``, ``audit_data`` and
``judge`` (true when a judge answers questions).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any


@dataclass(frozen=True)
class JudgeVerdict:
    """A judge's answer as graders read it."""

    score: float
    reasoning: str


class JudgeProxy:
    """Forwards ``evaluate`` to the judge in the harness process over the protocol's pipes."""

    def __init__(self, requests: IO[str], answers: IO[str]) -> None:
        self.requests = requests
        self.answers = answers
        self.failed = False

    def evaluate(
        self, task_prompt: str, conversation: str, actions_summary: str, rubric: str
    ) -> JudgeVerdict:
        """Ask the harness's judge; a failed judge raises RuntimeError as the benchmark's judge does."""
        question = {
            "task_prompt": task_prompt,
            "conversation": conversation,
            "actions_summary": actions_summary,
            "rubric": rubric,
        }
        write(self.requests, {"judge": question})
        answer = json.loads(self.answers.readline() or '{"error": "no answer from the harness"}')
        if "error" in answer:
            self.failed = True
            raise RuntimeError(f"Judge evaluation failed: {answer['error']}")
        return JudgeVerdict(float(answer["score"]), str(answer.get("reasoning", "")))


def write(stream: IO[str], document: dict[str, Any]) -> None:
    """Write one protocol line."""
    stream.write(json.dumps(document, ensure_ascii=False, default=str) + "\n")
    stream.flush()


def load_grader(path: Path) -> Any:
    """Instantiate the first AbstractGrader subclass defined in ``path``."""
    from liveclaw_500.graders.base import AbstractGrader

    spec = importlib.util.spec_from_file_location(f"claw_task_grader_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for _, obj in inspect.getmembers(module, inspect.isclass):
        defined_here = obj.__module__ == module.__name__
        if defined_here and issubclass(obj, AbstractGrader) and obj is not AbstractGrader:
            return obj()
    raise ValueError(f"{path} defines no AbstractGrader subclass")


def grade(request: dict[str, Any], judge: JudgeProxy | None) -> dict[str, Any]:
    """Build the grader's inputs with the checkout's own models, grade, and return the scores."""
    from liveclaw_500.models.task import TaskDefinition
    from liveclaw_500.models.trace import ToolDispatch, TraceMessage

    trace = {"trace_id": request["trace_id"]}
    messages = [TraceMessage.model_validate({**trace, "message": m}) for m in request["messages"]]
    dispatches = [ToolDispatch.model_validate({**trace, **d}) for d in request["dispatches"]]
    task = TaskDefinition.from_yaml(request["task_yaml"])
    grader = load_grader(Path(request["grader"]))
    snapshot = {"env_snapshot": request["env_snapshot"]} if request.get("env_snapshot") else {}
    scores = grader.grade(
        messages, dispatches, task, audit_data=request["audit_data"], judge=judge, **snapshot
    )
    return scores.model_dump() if hasattr(scores, "model_dump") else dict(vars(scores))


def main() -> None:
    """Serve one grading request."""
    protocol_out = sys.stdout
    sys.stdout = sys.stderr
    request = json.loads(sys.stdin.readline())
    sys.path.insert(0, request["src"])
    judge = JudgeProxy(protocol_out, sys.stdin) if request["judge"] else None
    try:
        reply = {"scores": grade(request, judge)}
    except Exception:
        reply = {"error": traceback.format_exc(), "judge_failure": bool(judge and judge.failed)}
    write(protocol_out, reply)


if __name__ == "__main__":
    main()
