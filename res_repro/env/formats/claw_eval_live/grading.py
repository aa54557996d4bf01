"""Grading a Claw-Eval-Live attempt with the task's own grader.py, in a separate interpreter.

The grader gets what the benchmark's own runner would give it: the conversation (the prompt, one
assistant tool call and one tool result per dispatched call, then the final answer), the dispatches,
the services' audits and the parsed task. The checkout's package is imported only in the child
process (:mod:`.grader_runner`), which keeps its imports out of the harness and makes parallel
episodes safe. With no judge, the graders run their own fallback scorers instead of judge questions.
"""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any, Protocol

from res_repro.env.grade import Grade
from res_repro.env.processes import (
    Stopped,
    output_tail,
    signal_group,
    start_runner,
    stopping,
    track,
)
from res_repro.sandbox.base import SandboxError

RUNNER = Path(__file__).with_name("grader_runner.py")
GRADER_TIMEOUT = 600.0


class Judge(Protocol):
    """An LLM judge as Claw-Eval-Live graders call it; the result has ``score`` (0-1) and ``reasoning``."""

    def evaluate(self, task_prompt: str, conversation: str, actions_summary: str, rubric: str) -> Any:
        """Score the conversation against ``rubric``."""
        ...


class JudgeError(SandboxError):
    """The judge failed while a grader needed it: an infrastructure failure, retried and never scored."""


def conversation(
    prompt: str, dispatches: Sequence[Mapping[str, Any]], results: Sequence[str], answer: str | None
) -> list[dict[str, Any]]:
    """The messages of an attempt: the prompt, per dispatch a tool call and the result text the agent
    read, then the final answer."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": prompt}]}]
    for dispatch, text in zip(dispatches, results, strict=True):
        call_id = dispatch["tool_use_id"]
        name, arguments = dispatch["tool_name"], dispatch["request_body"]
        use = {"type": "tool_use", "id": call_id, "name": name, "input": arguments}
        result = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": [{"type": "text", "text": text}],
            "is_error": dispatch["response_status"] >= 400,
        }
        messages += [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]
    if answer is not None:
        messages.append({"role": "assistant", "content": [{"type": "text", "text": answer}]})
    return messages


def _write(stream: IO[str], document: Mapping[str, Any]) -> None:
    stream.write(json.dumps(document, ensure_ascii=False, default=str) + "\n")
    stream.flush()


def _ask(judge: Judge | None, question: Mapping[str, Any]) -> dict[str, Any]:
    if judge is None:
        return {"error": "no judge is configured"}
    try:
        verdict = judge.evaluate(**question)
        return {"score": float(verdict.score), "reasoning": str(getattr(verdict, "reasoning", ""))}
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}


def _converse(
    process: subprocess.Popen[str], request: Mapping[str, Any], judge: Judge | None
) -> dict[str, Any] | None:
    """Send the request, then answer judge questions until the final reply (None if there is none)."""
    assert process.stdin is not None and process.stdout is not None
    try:
        _write(process.stdin, {**request, "judge": judge is not None})
        for line in process.stdout:
            message = json.loads(line)
            if "judge" not in message:
                return message
            _write(process.stdin, _ask(judge, message["judge"]))
    except (BrokenPipeError, json.JSONDecodeError):
        return None
    return None


def run_grader(
    request: Mapping[str, Any], *, cwd: Path, judge: Judge | None = None, timeout: float = GRADER_TIMEOUT
) -> dict[str, Any]:
    """Run :mod:`.grader_runner` on ``request``.

    The reply has ``scores``, or ``error`` and ``judge_failure``; the judge answers the grader's questions.
    """
    with tempfile.TemporaryFile() as log:
        process = start_runner(RUNNER, cwd, log)
        watchdog = threading.Timer(timeout, signal_group, (process.pid, signal.SIGKILL))
        watchdog.start()
        try:
            with track(process):
                reply = _converse(process, request, judge)
        finally:
            watchdog.cancel()
            signal_group(process.pid, signal.SIGKILL)
            process.communicate()
        if reply is None and stopping():
            raise Stopped("the harness is stopping")
        if reply is None:
            return {
                "error": f"the grader ended without a result (exit status {process.returncode}, "
                f"time limit {timeout:g} s); its output ends with:\n{output_tail(log)}",
                "judge_failure": False,
            }
        return reply


def grade_from_scores(scores: Mapping[str, Any], threshold: float, evidence: Mapping[str, Any]) -> Grade:
    """The native score is ``completion`` rounded to 4 places and clipped to [0, 1]."""
    score = min(1.0, max(0.0, round(float(scores.get("completion", 0.0)), 4)))
    return Grade(
        score=score, passed=score >= threshold - 1e-9, evidence={"dimensions": dict(scores), **evidence}
    )


def grade_reply(reply: Mapping[str, Any], threshold: float, evidence: Mapping[str, Any]) -> Grade:
    """Turn the runner's reply into a grade: a grader error scores 0; a judge failure raises JudgeError."""
    if reply.get("judge_failure"):
        raise JudgeError(f"the judge failed while grading:\n{reply['error']}")
    if "error" in reply:
        return Grade(score=0.0, passed=False, evidence={"grader_error": reply["error"], **evidence})
    return grade_from_scores(reply["scores"], threshold, evidence)
