"""Tool-API tasks (Claw-style): services over JSON fixtures, declared tools, a reference program, a grader.

A task directory holds::

    task.yaml            prompt, services, tools (each routed to a service operation), middleware
    fixtures/<svc>.json  each service's collections: {"<collection>": [records...]}
    solution/solve.py    def solve(call) -> str: the reference program; call(tool, **arguments)
    grader.py            def grade(answer, audit, state) -> list of {"name", "weight", "passed"}

The native score is the weighted share of grader checks passed, in [0, 1].
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from res_repro.agents.outcome import AgentOutcome, StopReason
from res_repro.env.errors import TaskFormatError
from res_repro.env.grade import Grade
from res_repro.env.middleware import make_middleware
from res_repro.env.services import OPERATIONS, FixtureService, FrozenFixtures
from res_repro.env.task import Task
from res_repro.env.tools import AuditEntry, Dispatcher, ToolCall, ToolResponse, ToolSpec
from res_repro.yamlio import dump_yaml, load_yaml

TASK_FILE = "task.yaml"
FIXTURES_DIR = "fixtures"
SOLUTION_FILE = "solution/solve.py"
GRADER_FILE = "grader.py"
ADAPTERS_FILE = "solution/adapters.json"  # scaled environments: operators the reference goes through


class ToolDef(BaseModel):
    """A tool and the service operation behind it."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})
    service: str
    operation: str
    collection: str
    id_field: str = "id"
    filters: list[str] = Field(default_factory=list)
    fields: list[str] | None = None
    search_fields: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _known_operation(self) -> ToolDef:
        if self.operation not in OPERATIONS:
            raise ValueError(f"operation {self.operation!r} is not one of {sorted(OPERATIONS)}")
        return self

    def spec(self) -> ToolSpec:
        """The agent-facing part."""
        return ToolSpec(self.name, self.description, self.input_schema)


class MiddlewareDef(BaseModel):
    """One middleware layer by registry name, with its parameters."""

    model_config = ConfigDict(extra="forbid")

    name: str
    params: dict[str, Any] = Field(default_factory=dict)


class ToolTaskConfig(BaseModel):
    """The whole task.yaml of a tool-API task."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    family: str = ""
    prompt: str
    max_turns: int = Field(default=20, gt=0)
    pass_threshold: float = Field(default=0.80, ge=0, le=1)
    services: list[str]
    tools: list[ToolDef]
    middleware: list[MiddlewareDef] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    _specs: list[ToolSpec] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _tools_use_declared_services(self) -> ToolTaskConfig:
        for index, tool in enumerate(self.tools):
            if tool.service not in self.services:
                raise ValueError(
                    f"tools.{index}.service: {tool.service!r} is not in services {self.services}"
                )
        return self

    def tool_specs(self) -> list[ToolSpec]:
        """The agent-facing specs of :attr:`tools`, built on first use and then shared by every environment
        of the task, so each tool's argument validator is compiled once. A loaded task's config is not
        edited afterwards (RES drafts edit a config of their own and the task is loaded again)."""
        if self._specs is None:
            self._specs = [tool.spec() for tool in self.tools]
        return self._specs

    def __getstate__(self) -> dict[Any, Any]:
        """Pickle without the built specs (their compiled validators do not pickle; a copy rebuilds them)."""
        state = super().__getstate__()
        private = {**(state.get("__pydantic_private__") or {}), "_specs": None}
        return {**state, "__pydantic_private__": private}


def pydantic_error(path: Path, exc: ValidationError) -> TaskFormatError:
    """Pydantic's first complaint about a task file as one line naming the file and the field."""
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    return TaskFormatError(path, field, f"{first['msg']} (got {first.get('input')!r})")


MISSING_FIXTURES = "missing; every declared service needs its fixtures"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(path, None, MISSING_FIXTURES) from None
    except json.JSONDecodeError as exc:
        raise TaskFormatError(path, None, f"not valid JSON: {exc}") from None


@functools.lru_cache(maxsize=1024)
def _frozen_fixtures(path: str, inode: int, size: int, mtime_ns: int) -> FrozenFixtures:
    """The fixtures file at ``path`` parsed and frozen; the other arguments only key the cache."""
    return FrozenFixtures.of(_read_json(Path(path)))


def load_fixtures(task_dir: Path, service: str) -> FrozenFixtures:
    """A service's fixtures, parsed once per process and version of the file (its inode, size and
    modification time key the cache, so a rewritten file is read again)."""
    path = os.path.join(task_dir, FIXTURES_DIR, f"{service}.json")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise TaskFormatError(Path(path), None, MISSING_FIXTURES) from None
    return _frozen_fixtures(path, info.st_ino, info.st_size, info.st_mtime_ns)


def is_tool_task_dir(path: Path) -> bool:
    """True when ``path`` holds a tool-API task (a task.yaml with a ``tools`` list)."""
    return (path / TASK_FILE).is_file() and (path / GRADER_FILE).is_file()


def read_yaml_mapping(path: Path, needed_by: str) -> dict[str, Any]:
    """A YAML file whose top level is a mapping; a missing or malformed file is a :class:`TaskFormatError`."""
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(path, None, f"missing; {needed_by}") from None
    except yaml.YAMLError as exc:
        raise TaskFormatError(path, None, f"not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise TaskFormatError(path, None, "expected a mapping at the top level")
    return raw


def load_tool_task(task_dir: Path | str, benchmark: str = "tool") -> Task:
    """Load and validate a tool-API task directory."""
    root = Path(task_dir).resolve()
    path = root / TASK_FILE
    raw = read_yaml_mapping(path, "a tool-API task needs task.yaml")
    try:
        config = ToolTaskConfig.model_validate(raw)
    except ValidationError as exc:
        raise pydantic_error(path, exc) from None
    for service in config.services:
        fixtures = _read_json(root / FIXTURES_DIR / f"{service}.json")
        if not isinstance(fixtures, dict) or not all(isinstance(v, list) for v in fixtures.values()):
            raise TaskFormatError(
                root / FIXTURES_DIR / f"{service}.json", None, "expected {collection: [records]}"
            )
    if not (root / GRADER_FILE).is_file():
        raise TaskFormatError(root / GRADER_FILE, None, "missing; a tool-API task needs its grader")
    return Task(
        task_id=config.task_id,
        benchmark=benchmark,
        instruction=config.prompt,
        path=root,
        config=config,
        kind="tool",
    )


def write_tool_task(
    dest: Path,
    config: ToolTaskConfig,
    fixtures: Mapping[str, Mapping[str, list[dict[str, Any]]]],
    solution: str,
    grader: str,
) -> Path:
    """Write a tool-API task directory from its parts (used by generators and RES)."""
    dest.mkdir(parents=True, exist_ok=True)
    data = config.model_dump(mode="json", exclude_defaults=False)
    (dest / TASK_FILE).write_text(dump_yaml(data), encoding="utf-8")
    (dest / FIXTURES_DIR).mkdir(exist_ok=True)
    for service, collections in fixtures.items():
        text = json.dumps(collections, indent=1, ensure_ascii=False)
        (dest / FIXTURES_DIR / f"{service}.json").write_text(text + "\n", encoding="utf-8")
    (dest / "solution").mkdir(exist_ok=True)
    (dest / SOLUTION_FILE).write_text(solution, encoding="utf-8")
    (dest / GRADER_FILE).write_text(grader, encoding="utf-8")
    return dest


def copy_tool_task(task: Task, dest: Path) -> Path:
    """Copy a tool-API task directory (RES edits the copy, never the original)."""
    shutil.copytree(task.path, dest)
    return dest


def read_adapters(task_dir: Path) -> list[dict[str, Any]]:
    """The reference adapters of a scaled tool-API task, oldest first (empty for an original task)."""
    path = task_dir / ADAPTERS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


@functools.lru_cache(maxsize=256)
def _compiled_source(source: str) -> CodeType:
    return compile(source, "<task file>", "exec")


def _renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` with every nested code object reporting ``filename`` (for tracebacks)."""
    consts = tuple(_renamed(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _compiled(source: str, filename: str) -> CodeType:
    """Bytecode of a task file, compiled once per distinct source: every environment of a lineage
    carries the same grader, so only the first of them pays for compiling it."""
    return _renamed(_compiled_source(source), filename)


def _load_module(path: Path, name: str) -> ModuleType:
    """Execute a task's Python file as a fresh module, writing no bytecode into the task directory."""
    try:
        code = _compiled(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError) as exc:
        raise TaskFormatError(path, None, f"cannot be loaded as Python: {exc}") from None
    module = ModuleType(name)
    module.__file__ = str(path)
    exec(code, module.__dict__)
    return module


def load_function(path: Path, name: str) -> Callable[..., Any]:
    """The function ``name`` defined in the task file ``path``."""
    module = _load_module(path, f"res_task_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}_{path.stem}")
    function = getattr(module, name, None)
    if not callable(function):
        raise TaskFormatError(path, name, f"expected a function {name}(...)")
    return function


class ToolError(RuntimeError):
    """Raised inside a reference program when a tool answers with an error status."""

    def __init__(self, response: ToolResponse) -> None:
        super().__init__(response.text())
        self.response = response


def run_reference_program(
    task_dir: Path, dispatch: Callable[[ToolCall], ToolResponse], calls_made: Callable[[], int]
) -> AgentOutcome:
    """Run ``solution/solve.py`` through ``dispatch``, wrapped in the adapters of a scaled environment.

    The program calls ``call(tool, **arguments)``; an error response raises :class:`ToolError`, and one
    the program does not handle, like any other exception it raises, ends the run without an answer.
    """

    def call(tool: str, **arguments: Any) -> Any:
        response = dispatch(ToolCall(tool, arguments))
        if response.is_error:
            raise ToolError(response)
        return response.body

    adapters = read_adapters(task_dir)
    if adapters:
        from res_repro.res.operators import OPERATORS

        for adapter in reversed(adapters):  # the oldest change ends up nearest the program
            call = OPERATORS[adapter["operator"]].adapt(call, adapter["params"])
    solve = load_function(task_dir / SOLUTION_FILE, "solve")
    try:
        answer: str | None = str(solve(call))
        messages = [{"role": "assistant", "content": answer}]
    except ToolError as exc:
        answer, messages = None, [{"role": "tool", "content": f"unhandled tool error: {exc}"}]
    except Exception as exc:  # the program broke on a changed environment: it failed, nothing more
        answer, messages = (
            None,
            [{"role": "tool", "content": f"the program failed: {type(exc).__name__}: {exc}"}],
        )
    return AgentOutcome(
        stop_reason=StopReason.ANSWERED, answer=answer, turns=1, tool_calls=calls_made(), messages=messages
    )


class ToolEnvironment:
    """A fresh instance of a tool-API task's environment: services, middleware and dispatcher."""

    def __init__(self, task: Task, seed: int = 0) -> None:
        config: ToolTaskConfig = task.config
        self.task = task
        self.services = {
            name: FixtureService(name, load_fixtures(task.path, name)) for name in config.services
        }
        routes = {tool.name: self._route(tool) for tool in config.tools}
        layers = [make_middleware(layer.name, layer.params, seed) for layer in config.middleware]
        self.dispatcher = Dispatcher(config.tool_specs(), routes, layers)

    def _route(self, tool: ToolDef) -> Callable[[ToolCall], ToolResponse]:
        service, operation = self.services[tool.service], OPERATIONS[tool.operation]
        return lambda call: operation(service, tool, call)

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
        """Run grader.py on the final answer, the audit log and the services' state."""
        config: ToolTaskConfig = self.task.config
        grade_fn = load_function(self.task.path / GRADER_FILE, "grade")
        audit = [entry.to_dict() for entry in self.audit]
        checks = grade_fn(answer or "", audit, self.state())
        return grade_from_checks(checks, config.pass_threshold, self.task.path / GRADER_FILE)


def grade_from_checks(checks: Sequence[Mapping[str, Any]], threshold: float, source: Path) -> Grade:
    """Turn weighted checks into a native score (weighted share passed) and a verdict at ``threshold``."""
    if not checks:
        raise TaskFormatError(source, "grade", "returned no checks")
    total = sum(float(c.get("weight", 1.0)) for c in checks)
    earned = sum(float(c.get("weight", 1.0)) for c in checks if c["passed"])
    score = earned / total if total > 0 else 0.0
    return Grade(
        score=score, passed=score >= threshold - 1e-9, evidence={"checks": [dict(c) for c in checks]}
    )
