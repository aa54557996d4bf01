"""Runs one function of a task's Python file (a grader, a reference program) in its own interpreter.

Started as ``python -I -B task_code_runner.py`` with a minimal environment; it imports nothing from
the harness. Protocol, one JSON document per line: the harness writes the request on stdin
(``path``, ``function``, ``args``, and ``solve``: true when the function is a reference program's
``solve(call[, instruction])``). While a program runs, each ``call(tool, **arguments)`` is written on
stdout as ``{"call": {"tool", "arguments"}}`` and answered on stdin with ``{"body": ...}`` or
``{"tool_error": text}`` (raised in the program as :class:`ToolError`). The last line on stdout is
``{"result": ...}`` or ``{"error": one line, "kind": the exception's type name}``. Anything the task
code prints goes to stderr.
"""

from __future__ import annotations

import inspect
import json
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import IO, Any

MODULE_NAME = "res_task_code"


class ToolError(RuntimeError):
    """A tool answered with an error status."""


def write(stream: IO[str], document: dict[str, Any]) -> None:
    """Write one protocol line."""
    stream.write(json.dumps(document, ensure_ascii=False, default=str) + "\n")
    stream.flush()


class CallProxy:
    """``call(tool, **arguments)`` for a reference program, answered by the harness."""

    def __init__(self, requests: IO[str], answers: IO[str]) -> None:
        self.requests = requests
        self.answers = answers

    def __call__(self, tool: str, /, **arguments: Any) -> Any:
        """Ask the harness to dispatch one tool call; an error response raises :class:`ToolError`."""
        write(self.requests, {"call": {"tool": tool, "arguments": arguments}})
        answer = json.loads(self.answers.readline() or '{"tool_error": "no answer from the harness"}')
        if "tool_error" in answer:
            raise ToolError(answer["tool_error"])
        return answer["body"]


def load(path: Path, name: str) -> Any:
    """The function ``name`` of the task file ``path``, executed as a fresh module."""
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
    module = ModuleType(MODULE_NAME)
    module.__file__ = str(path)
    sys.modules[MODULE_NAME] = module  # dataclasses and typing resolve names through the module's entry
    exec(code, module.__dict__)
    function = getattr(module, name, None)
    if not callable(function):
        raise LookupError(f"expected a function {name}(...) in {path.name}")
    return function


def describe(exc: BaseException, path: Path) -> str:
    """One line: the exception's message and the last line of the task file it went through."""
    message = (str(exc).strip().splitlines() or [""])[0]
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        return f"{exc.msg} ({path.name} line {exc.lineno})"
    return f"{message} ({path.name} line {frames[-1].lineno})" if frames else message


def main() -> None:
    """Serve one request."""
    protocol_out = sys.stdout
    sys.stdout = sys.stderr
    request = json.loads(sys.stdin.readline())
    path = Path(request["path"])
    try:
        function = load(path, request["function"])
        args = request["args"]
        if request.get("solve"):
            call = CallProxy(protocol_out, sys.stdin)
            takes_instruction = len(inspect.signature(function).parameters) >= 2
            result: Any = str(function(call, *args[:1]) if takes_instruction else function(call))
        else:
            result = function(*args)
        reply = {"result": result}
    except Exception as exc:
        reply = {"error": describe(exc, path), "kind": type(exc).__name__}
    write(protocol_out, reply)


if __name__ == "__main__":
    main()
