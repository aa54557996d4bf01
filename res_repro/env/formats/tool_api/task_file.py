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
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.files import (
    dump_json_cached,
    dump_yaml_cached,
    has_top_level_key,
    pydantic_error,
    read_yaml_mapping,
)
from res_repro.env.services import OPERATIONS, FrozenFixtures
from res_repro.env.task import Task
from res_repro.env.tools import ToolSpec

TASK_FILE = "task.yaml"
FIXTURES_DIR = "fixtures"
SOLUTION_FILE = "solution/solve.py"
GRADER_FILE = "grader.py"
HTTP_ENDPOINTS_KEY = "tool_endpoints"
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


MISSING_FIXTURES = "missing; every declared service needs its fixtures"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TaskFormatError(path, None, MISSING_FIXTURES) from None
    except ValueError as exc:  # not JSON, or not UTF-8 text
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
    """True when ``path`` holds a tool-API task: task.yaml and grader.py, tools routed to fixture services
    (a task.yaml with ``tool_endpoints`` routes them over HTTP: a Claw-Eval-Live task)."""
    task_file = path / TASK_FILE
    return (
        task_file.is_file()
        and (path / GRADER_FILE).is_file()
        and not has_top_level_key(task_file, HTTP_ENDPOINTS_KEY)
    )


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


def write_fixtures(folder: Path, fixtures: Mapping[str, Mapping[str, list[dict[str, Any]]]]) -> None:
    """Write each service's collections to ``folder/<service>.json`` (the folder is created)."""
    folder.mkdir(parents=True, exist_ok=True)
    for service, collections in fixtures.items():
        text = dump_json_cached(collections, ensure_ascii=False)
        (folder / f"{service}.json").write_text(text + "\n", encoding="utf-8")


def write_adapters(task_dir: Path, adapters: list[dict[str, Any]]) -> None:
    """Write the reference adapters of a scaled task (see :func:`read_adapters`)."""
    (task_dir / ADAPTERS_FILE).parent.mkdir(exist_ok=True)
    text = dump_json_cached(adapters, ensure_ascii=True)
    (task_dir / ADAPTERS_FILE).write_text(text + "\n", encoding="utf-8")


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
    (dest / TASK_FILE).write_text(dump_yaml_cached(data), encoding="utf-8")
    write_fixtures(dest / FIXTURES_DIR, fixtures)
    (dest / "solution").mkdir(exist_ok=True)
    (dest / SOLUTION_FILE).write_text(solution, encoding="utf-8")
    (dest / GRADER_FILE).write_text(grader, encoding="utf-8")
    return dest


def read_adapters(task_dir: Path) -> list[dict[str, Any]]:
    """The reference adapters of a scaled tool-API task, oldest first (empty for an original task)."""
    path = task_dir / ADAPTERS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
