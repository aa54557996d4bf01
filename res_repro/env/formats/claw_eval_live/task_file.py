"""The Claw-Eval-Live task format, loaded into :class:`Task`.

A checkout of the benchmark holds::

    src/liveclaw_500/            the benchmark's own package (graders import it)
    mock_services/<svc>/...      HTTP services the tasks start (commands run from the checkout root)
    tasks/<id>/task.yaml         prompt, tools, tool endpoints, services, limits
    tasks/<id>/grader.py         an AbstractGrader subclass
    tasks/<id>/fixtures/...      service seed data and prompt attachments
    tasks/<id>/solution/solve.py optional: ``def solve(call) -> str``, a reference program (the harness
                                 ships one per task in :data:`REFERENCES_DIR` otherwise)

Only the fields the harness uses are typed; every other key is kept as it is. Every service URL
must name ``localhost`` or ``127.0.0.1`` and a port that one of the task's services declares, since
each episode moves every service to a free port and rewrites those URLs.
"""

from __future__ import annotations

import json
import mimetypes
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.files import pydantic_error, read_yaml_mapping
from res_repro.env.formats.tool_api.task_file import SOLUTION_FILE, MiddlewareDef
from res_repro.env.formats.tool_api.task_file import ToolDef as FixtureToolDef
from res_repro.env.middleware import MIDDLEWARE
from res_repro.env.task import Task
from res_repro.env.tools import ToolSpec
from res_repro.errors import UserInputError

KIND = "claw_eval_live"
TASKS_DIR = "tasks"
TASK_FILE = "task.yaml"
GRADER_FILE = "grader.py"
SCALED_FIXTURES_DIR = "res_fixtures"  # fixtures of the services environment scaling added
PACKAGE_DIR = "src/liveclaw_500"
# The benchmark's own pass rule, as its scoring code computes it (score >= 0.75). Its README says 0.80 and
# its task list 0.76; the code is what decides a pass there. Tables report Pass@1 at metrics.threshold.
DEFAULT_THRESHOLD = 0.75
REFERENCES_DIR = Path(__file__).with_name("references")  # executable references, one folder per task id

LOCAL_URL = re.compile(r"^http://(?:localhost|127\.0\.0\.1):(?P<port>\d+)(?P<rest>[/?#].*)?$")
_TEXT_SUFFIXES = {".md": "text/markdown", ".txt": "text/plain", ".csv": "text/csv"}
_TEXT_TYPES = {"application/json", "application/xml"}


class _Open(BaseModel):
    """A task.yaml mapping: known fields are typed, unknown ones are kept."""

    model_config = ConfigDict(extra="allow")


class Prompt(_Open):
    """``prompt``: the instruction and the documents inlined after it (paths relative to the task)."""

    text: str
    attachments: list[str] = Field(default_factory=list)


class ToolDef(_Open):
    """One entry of ``tools``: what the agent sees."""

    name: str = Field(min_length=1)
    description: str
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    @field_validator("input_schema")
    @classmethod
    def _valid_schema(cls, schema: dict[str, Any]) -> dict[str, Any]:
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        return schema

    def spec(self) -> ToolSpec:
        """The harness's view of the tool."""
        return ToolSpec(self.name, self.description, self.input_schema)


class ToolEndpoint(_Open):
    """One entry of ``tool_endpoints``: where a tool's arguments are sent as a JSON body."""

    tool_name: str
    url: str
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE"] = "POST"

    @field_validator("method", mode="before")
    @classmethod
    def _upper(cls, method: Any) -> Any:
        return method.upper() if isinstance(method, str) else method


class ServiceDef(_Open):
    """One entry of ``services``: a process started from the checkout root for the episode."""

    name: str = Field(min_length=1)
    command: str = Field(min_length=1)
    port: int = Field(gt=0, lt=65536)
    health_check: str
    health_check_method: Literal["GET", "POST"] = "POST"
    ready_timeout: float = Field(default=10, gt=0)
    reset_endpoint: str | None = None
    env: dict[str, str] = Field(default_factory=dict)

    @field_validator("health_check_method", mode="before")
    @classmethod
    def _upper(cls, method: Any) -> Any:
        return method.upper() if isinstance(method, str) else method

    @property
    def audit_endpoint(self) -> str | None:
        """Where the service's audit is read: the reset endpoint with ``/reset`` replaced by ``/audit``."""
        return self.reset_endpoint.replace("/reset", "/audit") if self.reset_endpoint else None


class EnvironmentDef(_Open):
    """``environment``: the agent's limits."""

    timeout_seconds: int = Field(default=300, gt=0)
    max_turns: int = Field(default=20, gt=0)


class ScaledParts(BaseModel):
    """``res_repro`` in a scaled task's task.yaml: what environment scaling added beside the benchmark's
    services. ``tools`` are served in the harness from ``res_fixtures/<service>.json`` (a credential
    vault, say); ``metadata`` is the scaling record the changes keep."""

    model_config = ConfigDict(extra="forbid")

    services: list[str] = Field(default_factory=list)
    tools: list[FixtureToolDef] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)


class ClawTaskFile(_Open):
    """A whole task.yaml. ``middleware`` and ``res_repro`` are harness extensions (environment scaling)."""

    task_id: str = Field(min_length=1)
    prompt: Prompt
    tools: list[ToolDef] = Field(default_factory=list)
    tool_endpoints: list[ToolEndpoint] = Field(default_factory=list)
    services: list[ServiceDef] = Field(default_factory=list)
    environment: EnvironmentDef = Field(default_factory=EnvironmentDef)
    middleware: list[MiddlewareDef] = Field(default_factory=list)
    res_repro: ScaledParts = Field(default_factory=ScaledParts)


@dataclass(frozen=True)
class ClawEvalLiveConfig:
    """A loaded task's config: its task.yaml, the checkout it belongs to, the pass threshold, and the
    executable reference program (None when there is none)."""

    spec: ClawTaskFile
    checkout: Path
    threshold: float = DEFAULT_THRESHOLD
    reference: Path | None = None

    @property
    def max_turns(self) -> int:
        """The agent's turn limit."""
        return self.spec.environment.max_turns

    @property
    def timeout_seconds(self) -> int:
        """The agent's wall-clock limit."""
        return self.spec.environment.timeout_seconds


def _unique(path: Path, field: str, key: str, values: list[Any]) -> None:
    seen: set[Any] = set()
    for index, value in enumerate(values):
        if value in seen:
            raise TaskFormatError(path, f"{field}.{index}.{key}", f"{value!r} appears twice")
        seen.add(value)


def _check_url(path: Path, field: str, url: str, ports: set[int]) -> None:
    match = LOCAL_URL.match(url)
    if match is None:
        raise TaskFormatError(path, field, f"expected http://localhost:<port>/... (got {url!r})")
    if int(match["port"]) not in ports:
        raise TaskFormatError(
            path, field, f"port {match['port']} is not declared by any service in 'services'"
        )


def _check_consistency(path: Path, spec: ClawTaskFile) -> None:
    """Cross-field rules: unique names and ports, one endpoint per tool, URLs on declared ports."""
    _unique(path, "tools", "name", [tool.name for tool in spec.tools])
    _unique(path, "services", "name", [service.name for service in spec.services])
    _unique(path, "services", "port", [service.port for service in spec.services])
    _unique(path, "tool_endpoints", "tool_name", [endpoint.tool_name for endpoint in spec.tool_endpoints])
    tools = {tool.name for tool in spec.tools}
    routed = {endpoint.tool_name for endpoint in spec.tool_endpoints}
    ports = {service.port for service in spec.services}
    for index, endpoint in enumerate(spec.tool_endpoints):
        if endpoint.tool_name not in tools:
            raise TaskFormatError(
                path, f"tool_endpoints.{index}.tool_name", f"{endpoint.tool_name!r} is not in 'tools'"
            )
        _check_url(path, f"tool_endpoints.{index}.url", endpoint.url, ports)
    for index, tool in enumerate(spec.tools):
        if tool.name not in routed:
            raise TaskFormatError(path, f"tools.{index}.name", f"{tool.name!r} has no tool_endpoints entry")
    for index, service in enumerate(spec.services):
        _check_url(path, f"services.{index}.health_check", service.health_check, ports)
        if service.reset_endpoint is not None:
            _check_url(path, f"services.{index}.reset_endpoint", service.reset_endpoint, ports)
    for index, added in enumerate(spec.res_repro.tools):
        if added.service not in spec.res_repro.services:
            raise TaskFormatError(
                path, f"res_repro.tools.{index}.service", f"{added.service!r} is not in res_repro.services"
            )
    for index, layer in enumerate(spec.middleware):
        if layer.name not in MIDDLEWARE:
            raise TaskFormatError(
                path,
                f"middleware.{index}.name",
                f"unknown layer {layer.name!r}; expected one of {sorted(MIDDLEWARE)}",
            )


def _is_text(path: Path) -> bool:
    mime = _TEXT_SUFFIXES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0] or ""
    return mime.startswith("text/") or mime in _TEXT_TYPES


def _attachment(task_dir: Path, yaml_path: Path, index: int, relpath: str) -> str:
    """One attachment as inlined after the prompt: ``[attached document: <name>]`` and its text."""
    field = f"prompt.attachments.{index}"
    path = task_dir / relpath
    if not path.is_file():
        raise TaskFormatError(yaml_path, field, f"{relpath!r} not found in the task directory")
    if not _is_text(path):
        raise TaskFormatError(yaml_path, field, f"{relpath!r}: only text documents can be inlined")
    text = path.read_bytes().decode("utf-8", errors="replace").strip()
    if not text:
        raise TaskFormatError(yaml_path, field, f"{relpath!r} is empty")
    return f"[attached document: {path.name}]\n{text}"


def render_prompt(task_dir: Path, spec: ClawTaskFile) -> str:
    """The first user message: ``prompt.text``, then each attachment, separated by blank lines."""
    yaml_path = task_dir / TASK_FILE
    parts = [spec.prompt.text]
    parts += [_attachment(task_dir, yaml_path, i, rel) for i, rel in enumerate(spec.prompt.attachments)]
    return "\n\n".join(parts)


def pass_threshold(threshold: float | None) -> float:
    """``threshold`` (a setting's value; None for the benchmark's own rule), checked to lie in [0, 1]."""
    value = DEFAULT_THRESHOLD if threshold is None else float(threshold)
    if not 0.0 <= value <= 1.0:
        raise UserInputError(f"threshold must be within [0, 1], got {value}")
    return value


def reference_program(task_dir: Path, task_id: str) -> Path | None:
    """The task's own ``solution/solve.py``, else the one this harness ships for ``task_id``, else None.

    The benchmark ships prose reference solutions only; :data:`REFERENCES_DIR` holds executable ones,
    written from each task's prompt, fixtures and grader, that act only through the task's tools.
    """
    for path in (task_dir / SOLUTION_FILE, REFERENCES_DIR / task_id / "solve.py"):
        if path.is_file():
            return path
    return None


def load_claw_task(
    task_dir: Path, checkout: Path, *, threshold: float | None = None, benchmark: str = KIND
) -> Task:
    """Load and validate one task directory of a checkout."""
    root = task_dir.resolve()
    path = root / TASK_FILE
    raw = read_yaml_mapping(path, "a Claw-Eval-Live task needs task.yaml")
    try:
        spec = ClawTaskFile.model_validate(raw)
    except ValidationError as exc:
        raise pydantic_error(path, exc) from None
    _check_consistency(path, spec)
    if not (root / GRADER_FILE).is_file():
        raise TaskFormatError(root / GRADER_FILE, None, "missing; a Claw-Eval-Live task needs its grader")
    reference = reference_program(root, spec.task_id)
    outside = () if reference is None or root in reference.parents else (reference,)
    return Task(
        task_id=spec.task_id,
        benchmark=benchmark,
        instruction=render_prompt(root, spec),
        path=root,
        config=ClawEvalLiveConfig(spec, checkout.resolve(), pass_threshold(threshold), reference),
        kind=KIND,
        outside_files=outside,
    )


def _task_dirs(tasks_dir: Path, task_filter: str | None) -> list[Path]:
    if not tasks_dir.is_dir():
        raise TaskFormatError(
            tasks_dir, None, "not found; expected a Claw-Eval-Live checkout with tasks/<id>/"
        )
    dirs = [d for d in sorted(tasks_dir.iterdir()) if (d / TASK_FILE).is_file()]
    if task_filter:
        dirs = [d for d in dirs if task_filter in d.name]
    if not dirs:
        matching = f" matching {task_filter!r}" if task_filter else ""
        raise TaskFormatError(tasks_dir, None, f"holds no task directory{matching} (no */task.yaml)")
    return dirs


def load_claw_eval_live(
    checkout: Path,
    *,
    task_filter: str | None = None,
    threshold: float | None = None,
    benchmark: str = KIND,
) -> list[Task]:
    """Load every task of a checkout, sorted by directory name.

    ``task_filter`` keeps the task directories whose name contains it; ``threshold`` is the score a
    passing attempt needs (the grader's ``completion``, in [0, 1]; None: the benchmark's own rule).
    """
    threshold = pass_threshold(threshold)
    root = Path(checkout).expanduser().resolve()
    if not (root / PACKAGE_DIR).is_dir():
        raise TaskFormatError(
            root / PACKAGE_DIR, None, "not found; graders import the checkout's own package"
        )
    tasks = [
        load_claw_task(d, root, threshold=threshold, benchmark=benchmark)
        for d in _task_dirs(root / TASKS_DIR, task_filter)
    ]
    owners: dict[str, Path] = {}
    for task in tasks:
        if task.task_id in owners:
            raise TaskFormatError(
                task.path / TASK_FILE,
                "task_id",
                f"{task.task_id!r} is also the task_id of {owners[task.task_id]}",
            )
        owners[task.task_id] = task.path
    return tasks


def read_scaled_fixtures(task_dir: Path, service: str) -> dict[str, Any]:
    """The fixtures of a service that environment scaling added (``res_fixtures/<service>.json``)."""
    path = task_dir / SCALED_FIXTURES_DIR / f"{service}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TaskFormatError(path, None, f"cannot be read as the fixtures of {service!r}: {exc}") from None
