"""Python files that ship with a task (reference programs, graders), run in a child interpreter.

Task code comes from whoever wrote the task, so it never runs in the harness: each call starts
:mod:`.task_code_runner` with a minimal environment (no API keys), a time limit, and a kill that
SIGTERM and Ctrl-C of the harness reach (:mod:`.processes`). A reference program's tool calls come
back to the harness, which dispatches them. Whatever goes wrong in the task code (it does not load,
raises, hangs, or dies) is a :class:`TaskCodeError` with one line saying what.
"""

from __future__ import annotations

import json
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from res_repro.env.errors import TaskFormatError
from res_repro.env.processes import Stopped, signal_group, start_runner, stopping, track

RUNNER = Path(__file__).with_name("task_code_runner.py")
TASK_CODE_TIMEOUT_S = 300.0  # a grader or reference program that runs longer is a broken task
MAX_LINE = 64 << 20  # a protocol line longer than this ends the child


class TaskCodeError(Exception):
    """Task code failed; ``kind`` is the exception's type name (``Timeout`` or ``Crash`` when it did
    not answer), ``detail`` one line."""

    def __init__(self, path: Path, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.path = path
        self.kind = kind
        self.detail = detail


def compile_task_file(path: Path) -> None:
    """Compile a task's Python file without running it; a TaskFormatError names a syntax error."""
    try:
        compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
    except (OSError, UnicodeDecodeError) as exc:
        raise TaskFormatError(path, None, f"cannot be read: {exc}") from None
    except (SyntaxError, ValueError) as exc:
        where = f" (line {exc.lineno})" if isinstance(exc, SyntaxError) and exc.lineno else ""
        message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        raise TaskFormatError(path, None, f"is not valid Python: {message}{where}") from None


def _write(stream: IO[str], document: dict[str, Any]) -> None:
    stream.write(json.dumps(document, ensure_ascii=False, default=str) + "\n")
    stream.flush()


def _answer(call: Callable[..., Any], request: dict[str, Any], forwarded: tuple[type[Exception], ...]) -> Any:
    """The harness's answer to one tool call of a program; ``forwarded`` errors go back to it."""
    try:
        return {"body": call(request["tool"], **request["arguments"])}
    except forwarded as exc:
        return {"tool_error": str(exc)}


def _converse(
    process: subprocess.Popen[str],
    request: dict[str, Any],
    call: Callable[..., Any] | None,
    forwarded: tuple[type[Exception], ...],
) -> dict[str, Any] | None:
    """Send the request, answer tool calls until the final reply (None if the child gave none)."""
    assert process.stdin is not None and process.stdout is not None
    try:
        _write(process.stdin, request)
        while line := process.stdout.readline(MAX_LINE):
            message = json.loads(line)
            if not isinstance(message, dict):
                return None
            if "call" not in message:
                return message
            if call is None:
                return None
            _write(process.stdin, _answer(call, message["call"], forwarded))
    except (BrokenPipeError, json.JSONDecodeError, TypeError, KeyError):
        return None
    return None


def run_task_function(
    path: Path,
    name: str,
    args: list[Any],
    *,
    call: Callable[..., Any] | None = None,
    forwarded: tuple[type[Exception], ...] = (),
    timeout: float | None = None,
) -> Any:
    """Run ``name(*args)`` from the task file ``path`` in a child interpreter and return its result.

    With ``call``, the function is a reference program ``solve(call)`` or ``solve(call, instruction)``
    (``args`` is ``[instruction]``) and its tool calls are answered by ``call``: an exception of a
    ``forwarded`` class goes back to the program as its ``ToolError``, any other ends the child and
    propagates. The result is a program's answer as a string, or a grader's JSON value. Raises
    :class:`TaskCodeError` when the code fails, and :class:`~.processes.Stopped` when the harness is
    stopping. ``timeout`` defaults to :data:`TASK_CODE_TIMEOUT_S`.
    """
    if stopping():
        raise Stopped("the harness is stopping")
    limit = TASK_CODE_TIMEOUT_S if timeout is None else timeout
    request = {"path": str(path), "function": name, "args": args, "solve": call is not None}
    with tempfile.TemporaryFile() as log:
        process = start_runner(RUNNER, path.parent, log)
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            signal_group(process.pid, signal.SIGKILL)

        watchdog = threading.Timer(limit, expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            with track(process):
                reply = _converse(process, request, call, forwarded)
        finally:
            watchdog.cancel()
            signal_group(process.pid, signal.SIGKILL)
            process.communicate()
    if reply is None:
        if stopping():
            raise Stopped("the harness is stopping")
        if expired.is_set():
            raise TaskCodeError(path, "Timeout", f"{name}() did not finish within {limit:g} s")
        raise TaskCodeError(
            path, "Crash", f"{name}() ended without a result (exit status {process.returncode})"
        )
    if "error" in reply:
        raise TaskCodeError(path, str(reply.get("kind", "Error")), str(reply["error"]))
    return reply.get("result")
