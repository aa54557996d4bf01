"""The tool-API task format (Claw-style): in-process services over JSON fixtures, declared tools, a grader.

:mod:`.task_file` reads and writes the directory, :mod:`.environment` serves an episode and grades it,
and :mod:`.draft` is the copy RES operators edit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from res_repro.env.formats.base import DirectoryFormat
from res_repro.env.formats.tool_api.draft import ToolDraft
from res_repro.env.formats.tool_api.environment import (
    ToolEnvironment,
    ToolError,
    grade_from_checks,
    run_reference_program,
)
from res_repro.env.formats.tool_api.task_file import (
    FIXTURES_DIR,
    SOLUTION_FILE,
    TASK_FILE,
    MiddlewareDef,
    ToolDef,
    ToolTaskConfig,
    is_tool_task_dir,
    load_tool_task,
    write_tool_task,
)
from res_repro.env.task import Task
from res_repro.sandbox import Backend


class ToolApiFormat(DirectoryFormat):
    """Tool-API task directories: task.yaml, fixtures/, solution/solve.py, grader.py."""

    name = "tool"
    interface = "tools"
    reference_dir = "solution"
    original_plans = (SOLUTION_FILE,)

    def detect(self, path: Path) -> bool:
        """A directory with task.yaml and grader.py whose task.yaml routes tools to fixture services."""
        return is_tool_task_dir(path)

    def load(self, path: Path, benchmark: str, context: Mapping[str, Any]) -> Task:
        """Read and validate the directory (a tool-API task needs no context)."""
        return load_tool_task(path, benchmark)

    @contextmanager
    def open(self, task: Task, backend: Backend, seed: int) -> Iterator[ToolEnvironment]:
        """Fresh in-process services over the task's fixtures (no sandbox is needed)."""
        environment = ToolEnvironment(task, seed=seed)
        try:
            yield environment
        finally:
            environment.close()

    def draft(self, path: Path) -> ToolDraft:
        """The copy's config, fixtures and reference adapters, saved on :meth:`ToolDraft.save`."""
        return ToolDraft(path)

    def has_reference(self, task: Task) -> bool:
        """True when the reference program is there."""
        return (task.path / SOLUTION_FILE).is_file()

    def objective_files(self, task: Task) -> list[Path]:
        """The grader and its data: every file but task.yaml, the fixtures and the reference solution (the
        environment RES scales)."""
        environment = {TASK_FILE, FIXTURES_DIR, self.reference_dir}
        return [
            path
            for path in task.path.rglob("*")
            if path.is_file() and path.relative_to(task.path).parts[0] not in environment
        ]

    def objective_settings(self, task: Task) -> dict[str, Any]:
        """task.yaml's pass threshold."""
        config: ToolTaskConfig = task.config
        return {"pass_threshold": config.pass_threshold}


TOOL_API = ToolApiFormat()


__all__ = [
    "TOOL_API",
    "MiddlewareDef",
    "ToolDef",
    "ToolDraft",
    "ToolEnvironment",
    "ToolError",
    "ToolTaskConfig",
    "grade_from_checks",
    "load_tool_task",
    "run_reference_program",
    "write_tool_task",
]
