"""The environment of a Claw-Eval-Live task: its tools, served by the task's HTTP services.

Every call goes through the harness's :class:`Dispatcher` (schema check, middleware, audit log); the
last handler POSTs the arguments as JSON to the tool's endpoint on this episode's port. Each call is
also kept as the benchmark's grader expects to read it (a dispatch with request and response bodies).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from res_repro.env.formats.claw_eval_live.grading import (
    GRADER_TIMEOUT,
    Judge,
    conversation,
    grade_reply,
    run_grader,
)
from res_repro.env.formats.claw_eval_live.services import ServiceManager, lease_services
from res_repro.env.formats.claw_eval_live.task_file import (
    GRADER_FILE,
    TASK_FILE,
    ClawEvalLiveConfig,
    read_scaled_fixtures,
)
from res_repro.env.formats.claw_eval_live.transport import send
from res_repro.env.formats.claw_eval_live.workspace import (
    WORKSPACE,
    WORKSPACE_TOOLS,
    add_python_shim,
    needs_workspace,
    shim_path,
    snapshot,
    stage,
    workspace_call,
    workspace_files,
)
from res_repro.env.formats.tool_api.environment import fixture_route, run_reference_program
from res_repro.env.grade import Grade
from res_repro.env.middleware import make_middleware
from res_repro.env.outcome import AgentOutcome, StopReason
from res_repro.env.services import FixtureService
from res_repro.env.task import Task
from res_repro.env.tools import AuditEntry, Dispatcher, ToolCall, ToolResponse, ToolSpec, error
from res_repro.sandbox import Backend, make_sandbox
from res_repro.sandbox.base import APP_DIR, SANDBOX_PATH, Sandbox, SandboxSpec

CALL_TIMEOUT = 30.0


def http_route(method: str, url: str) -> Callable[[ToolCall], ToolResponse]:
    """A dispatcher route that sends a call's arguments as a JSON body to ``url``.

    The service's status and JSON body become the response; an unreachable service or a body that is
    not JSON gives a 502.
    """

    def route(call: ToolCall) -> ToolResponse:
        try:
            reply = send(method, url, dict(call.arguments), timeout=CALL_TIMEOUT)
        except OSError as exc:
            return error(502, f"service unreachable at {url}: {exc}")
        try:
            return ToolResponse(reply.status, reply.json())
        except ValueError:
            status = reply.status if reply.status >= 400 else 502
            return error(status, f"service answered {reply.status} without JSON: {reply.text[:500]}")

    return route


class ClawEvalLiveEnvironment:
    """One episode of a Claw-Eval-Live task over services that are already running."""

    def __init__(
        self,
        task: Task,
        services: ServiceManager,
        *,
        seed: int = 0,
        judge: Judge | None = None,
        grader_timeout: float = GRADER_TIMEOUT,
        sandbox: Sandbox | None = None,
    ) -> None:
        config: ClawEvalLiveConfig = task.config
        self.task = task
        self.services = services
        self.sandbox = sandbox
        self.judge = judge
        self.grader_timeout = grader_timeout
        self.endpoints = {e.tool_name: services.url(e.url) for e in config.spec.tool_endpoints}
        routes = {e.tool_name: http_route(e.method, services.url(e.url)) for e in config.spec.tool_endpoints}
        added = config.spec.res_repro
        self.scaled_services = {
            name: FixtureService(name, read_scaled_fixtures(task.path, name)) for name in added.services
        }
        for tool in added.tools:
            routes[tool.name] = fixture_route(self.scaled_services[tool.service], tool)
        layers = [make_middleware(layer.name, layer.params, seed) for layer in config.spec.middleware]
        specs = [tool.spec() for tool in config.spec.tools] + [tool.spec() for tool in added.tools]
        if sandbox is not None:
            specs += list(WORKSPACE_TOOLS)
            routes.update({tool.name: partial(workspace_call, sandbox) for tool in WORKSPACE_TOOLS})
        self.dispatcher = Dispatcher(specs, routes, layers)
        self.dispatches: list[dict[str, Any]] = []
        self._results: list[str] = []

    @property
    def tools(self) -> list[ToolSpec]:
        """Every tool the agent may call."""
        return self.dispatcher.specs

    @property
    def audit(self) -> list[AuditEntry]:
        """The dispatcher's audit log of every call so far."""
        return self.dispatcher.audit

    def call(self, call: ToolCall) -> ToolResponse:
        """Dispatch one call and keep it as a grader dispatch."""
        started = time.perf_counter()
        response = self.dispatcher.dispatch(call)
        self.dispatches.append(
            {
                "tool_use_id": f"call_{len(self.dispatches)}",
                "tool_name": call.tool,
                "endpoint_url": self.endpoints.get(call.tool, ""),
                "request_body": dict(call.arguments),
                "response_status": response.status,
                "response_body": response.body,
                "latency_ms": (time.perf_counter() - started) * 1000,
            }
        )
        self._results.append(response.text())
        return response

    def _snapshot(self) -> dict[str, Any]:
        """What the snapshot commands print in the shell sandbox after the episode (empty without one)."""
        if self.sandbox is None:
            return {}
        extra = self.task.config.spec.model_extra or {}
        with tempfile.TemporaryDirectory(prefix="res-grader-files-") as staging:
            return snapshot(self.sandbox, self.task.path, extra, Path(staging))

    def run_reference(self) -> AgentOutcome:
        """Run the task's reference program (:func:`.task_file.reference_program`), or say there is none."""
        config: ClawEvalLiveConfig = self.task.config
        if config.reference is None:
            message = "no reference: the task has no solution/solve.py and the harness ships none for it"
            return AgentOutcome(StopReason.ANSWERED, messages=[{"role": "system", "content": message}])
        return run_reference_program(
            self.task.path,
            self.call,
            lambda: len(self.dispatches),
            program=config.reference,
            instruction=self.task.instruction,
        )

    def grade(self, answer: str | None) -> Grade:
        """Read the services' audits and run the task's grader.py on the attempt.

        The score is the grader's ``completion``; a grader that raises scores 0 (its traceback is kept
        as evidence); a judge that fails raises :class:`JudgeError`; a service that died during the
        episode raises :class:`ServiceError` (the agent's calls to it failed through no fault of its
        own, so there is nothing fair to grade).
        """
        config: ClawEvalLiveConfig = self.task.config
        self.services.check_running()
        audit_data, audit_errors = self.services.audits()
        request = {
            "src": str(config.checkout / "src"),
            "grader": str(self.task.path / GRADER_FILE),
            "task_yaml": str(self.task.path / TASK_FILE),
            "trace_id": self.task.task_id,
            "messages": conversation(self.task.instruction, self.dispatches, self._results, answer),
            "dispatches": self.dispatches,
            "audit_data": audit_data,
            "env_snapshot": self._snapshot(),
        }
        reply = run_grader(request, cwd=config.checkout, judge=self.judge, timeout=self.grader_timeout)
        evidence = {"audit_errors": audit_errors, "judge": self.judge is not None}
        return grade_reply(reply, config.threshold, evidence)


@contextmanager
def open_claw_eval_live(
    task: Task, backend: Backend, seed: int, *, judge: Judge | None = None
) -> Iterator[ClawEvalLiveEnvironment]:
    """Start the task's services on free ports (within :func:`.services.reusing_services`, take them
    from its pool, reset) and, for a task that works in the shell sandbox, a sandbox of ``backend``
    holding its files; yield its environment, and always stop them (or give the services back).

    Bind ``judge`` with :func:`functools.partial` for graders that ask an LLM judge.
    """
    config: ClawEvalLiveConfig = task.config
    extra = config.spec.model_extra or {}
    with lease_services(config.spec.services, config.checkout) as services, ExitStack() as stack:
        sandbox = None
        if needs_workspace(extra):
            staging = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="res-workspace-")))
            fixtures = list((config.spec.environment.model_extra or {}).get("fixtures") or [])
            workspace = stage(task.path, workspace_files(extra, fixtures), staging / "files")
            env = {"PATH": shim_path(SANDBOX_PATH)}
            spec = SandboxSpec(workspace=workspace, aliases=((WORKSPACE, APP_DIR),), env=env)
            sandbox = stack.enter_context(make_sandbox(backend, spec))
            add_python_shim(sandbox)
        yield ClawEvalLiveEnvironment(task, services, seed=seed, judge=judge, sandbox=sandbox)
