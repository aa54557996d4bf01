"""The environment of a tool-API task: in-process services over its fixtures, middleware and the grader."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from res_repro.env.adapters import adapted
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.tool_api.task_file import (
    ADAPTERS_FILE,
    GRADER_FILE,
    SOLUTION_FILE,
    ToolDef,
    ToolTaskConfig,
    load_fixtures,
    read_adapters,
)
from res_repro.env.grade import Grade
from res_repro.env.middleware import make_middleware
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.services import OPERATIONS, FixtureService
from res_repro.env.task import Task
from res_repro.env.task_code import TaskCodeError, run_task_function
from res_repro.env.tools import AuditEntry, Dispatcher, ToolCall, ToolResponse, ToolSpec


class ToolError(RuntimeError):
    """Raised inside a reference program when a tool answers with an error status."""

    def __init__(self, response: ToolResponse) -> None:
        super().__init__(response.text())
        self.response = response


def run_reference_program(
    task_dir: Path,
    dispatch: Callable[[ToolCall], ToolResponse],
    calls_made: Callable[[], int],
    *,
    program: Path | None = None,
    instruction: str | None = None,
) -> AgentOutcome:
    """Run ``program`` (default ``solution/solve.py``) through ``dispatch``, wrapped in the adapters of a
    scaled environment.

    The program's ``solve(call)`` calls ``call(tool, **arguments)``; a ``solve(call, instruction)`` also
    reads the instruction (a task whose documents come inlined in its prompt). The program runs in a child
    interpreter (:func:`~res_repro.env.task_code.run_task_function`); an error response raises
    ``ToolError`` there, and one the program does not handle, like any other exception it raises, a hang
    past the time limit or a crash, ends the run without an answer.
    """

    trace: list[dict[str, Any]] = []

    def call(tool: str, **arguments: Any) -> Any:
        response = dispatch(ToolCall(tool, arguments))
        trace.extend(traced_call(len(trace) // 2, tool, arguments, response))
        if response.is_error:
            raise ToolError(response)
        return response.body

    call = adapted(call, read_adapters(task_dir), task_dir / ADAPTERS_FILE)
    source = program or task_dir / SOLUTION_FILE
    try:
        answer: str | None = str(
            run_task_function(source, "solve", [instruction or ""], call=call, forwarded=(ToolError,))
        )
        messages = [*trace, {"role": "assistant", "content": answer}]
    except TaskCodeError as exc:  # the program broke on a changed environment: it failed, nothing more
        failure = (
            f"unhandled tool error: {exc.detail}" if exc.kind == "ToolError" else f"the program failed: {exc}"
        )
        answer, messages = None, [*trace, {"role": "tool", "content": failure}]
    return AgentOutcome(
        stop_reason=StopReason.ANSWERED, answer=answer, turns=1, tool_calls=calls_made(), messages=messages
    )


TRACED_RESULT_CHARS = 1500  # of each result a reference run's trace keeps


def traced_call(
    index: int, tool: str, arguments: dict[str, Any], response: ToolResponse
) -> list[dict[str, Any]]:
    """One call of a reference program as the neutral conversation records it: the assistant's tool call
    and the tool's result (cut to :data:`TRACED_RESULT_CHARS`), so a reference run's record shows what it
    read and where it failed."""
    call_id = f"ref-{index}"
    text = response.text()
    if len(text) > TRACED_RESULT_CHARS:
        text = f"{text[:TRACED_RESULT_CHARS]} [... {len(text) - TRACED_RESULT_CHARS} more characters]"
    function = {"name": tool, "arguments": json.dumps(arguments, ensure_ascii=False, default=str)}
    return [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": call_id, "type": "function", "function": function}],
        },
        {"role": "tool", "tool_call_id": call_id, "content": text},
    ]


def fixture_route(service: FixtureService, tool: ToolDef) -> Callable[[ToolCall], ToolResponse]:
    """A dispatcher route answering ``tool`` from an in-process fixture service."""
    operation = OPERATIONS[tool.operation]
    return lambda call: operation(service, tool, call)


class ToolEnvironment:
    """A fresh instance of a tool-API task's environment: services, middleware and dispatcher."""

    def __init__(self, task: Task, seed: int = 0) -> None:
        config: ToolTaskConfig = task.config
        self.task = task
        self.services = {
            name: FixtureService(name, load_fixtures(task.path, name)) for name in config.services
        }
        routes = {tool.name: fixture_route(self.services[tool.service], tool) for tool in config.tools}
        layers = [make_middleware(layer.name, layer.params, seed) for layer in config.middleware]
        self.dispatcher = Dispatcher(config.tool_specs(), routes, layers)

    @property
    def tools(self) -> list[ToolSpec]:
        """Every tool the agent may call."""
        return self.dispatcher.specs

    def call(self, call: ToolCall) -> ToolResponse:
        """Dispatch one call through the middleware stack."""
        return self.dispatcher.dispatch(call)

    @property
    def audit(self) -> list[AuditEntry]:
        """Every call dispatched so far."""
        return self.dispatcher.audit

    def state(self) -> dict[str, Any]:
        """A snapshot of every service's collections."""
        return {name: service.snapshot() for name, service in self.services.items()}

    def close(self) -> None:
        """Nothing to release for in-process services."""

    def run_reference(self) -> AgentOutcome:
        """Run solution/solve.py against this environment; a tool error it does not handle ends it."""
        return run_reference_program(self.task.path, self.call, lambda: len(self.audit))

    def grade(self, answer: str | None) -> Grade:
        """Run grader.py on the final answer, the audit log and the services' state; a grader that fails
        (raises, hangs, returns malformed checks) scores 0 with the reason as ``grader_error``."""
        config: ToolTaskConfig = self.task.config
        source = self.task.path / GRADER_FILE
        audit = [entry.to_dict() for entry in self.audit]
        try:
            checks = run_task_function(source, "grade", [answer or "", audit, self.state()])
            return grade_from_checks(checks, config.pass_threshold, source)
        except (TaskCodeError, TaskFormatError) as exc:
            return grader_failure(source, str(exc))


def grader_failure(source: Path, reason: str) -> Grade:
    """The grade of an attempt whose grader failed: 0, with the one-line reason naming the file."""
    return Grade(score=0.0, passed=False, evidence={"grader_error": f"{source}: {reason}"})


def grade_from_checks(checks: Any, threshold: float, source: Path) -> Grade:
    """Turn weighted checks into a native score (weighted share passed) and a verdict at ``threshold``."""
    if not checks:
        raise TaskFormatError(source, "grade", "returned no checks")
    try:
        total = sum(float(c.get("weight", 1.0)) for c in checks)
        earned = sum(float(c.get("weight", 1.0)) for c in checks if c["passed"])
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        expected = f"expected a list of checks, each {{'passed': bool, 'weight': number}} ({exc!r})"
        raise TaskFormatError(source, "grade", expected) from None
    score = earned / total if total > 0 else 0.0
    return Grade(
        score=score, passed=score >= threshold - 1e-9, evidence={"checks": [dict(c) for c in checks]}
    )
