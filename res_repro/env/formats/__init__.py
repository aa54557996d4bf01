"""The task-format registry: every on-disk task format the harness reads, by name.

Each format (:class:`TaskFormat`) loads and validates its directories, recognises them, opens the
environment of an episode, gives RES an editable draft, and names its objective and reference. Code
outside this package asks :func:`format_of` for a task's format instead of branching on its name; a new
format is one module and one :func:`register_format` call (``docs/extending.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from res_repro.env.environment import Environment
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats.base import Draft, Interface, TaskFormat, objective_fingerprint
from res_repro.env.formats.claw_eval_live import CLAW_EVAL_LIVE
from res_repro.env.formats.harbor import HARBOR
from res_repro.env.formats.tool_api import TOOL_API
from res_repro.env.task import Task, escaping_links
from res_repro.env.task_code import compile_task_file
from res_repro.sandbox import Backend

# Every format recognises only its own directories, so the order of detection does not matter.
FORMATS: dict[str, TaskFormat] = {}


def register_format(task_format: TaskFormat) -> None:
    """Add a format to the registry."""
    FORMATS[task_format.name] = task_format


for _builtin in (CLAW_EVAL_LIVE, TOOL_API, HARBOR):
    register_format(_builtin)


def get_format(name: str) -> TaskFormat:
    """The format registered as ``name``; an unknown name is a clear error."""
    try:
        return FORMATS[name]
    except KeyError:
        raise TaskFormatError(name, None, f"unknown task format; expected one of {sorted(FORMATS)}") from None


def format_of(task: Task) -> TaskFormat:
    """The format ``task`` was loaded with."""
    return get_format(task.kind)


def detect_format(path: Path) -> TaskFormat | None:
    """The format of the task directory ``path``, or None when it is not one."""
    return next((f for f in FORMATS.values() if f.detect(path)), None)


def load_task_dir(
    path: Path | str,
    benchmark: str = "local",
    *,
    kind: str | None = None,
    context: Mapping[str, Any] | None = None,
) -> Task:
    """Load one task directory with the format ``kind`` (detected when None) and its load ``context``."""
    root = Path(path).resolve()
    task_format = get_format(kind) if kind is not None else detect_format(root)
    if task_format is None:
        raise TaskFormatError(root, None, f"not a task directory of any known format ({_expected()})")
    links = escaping_links(root)
    if links:
        raise TaskFormatError(
            root / links[0].split(" -> ")[0],
            None,
            f"a link out of the task ({'; '.join(links[:3])}); the harness reads task files only inside "
            "the task folder, so copy the file in (links under environment/ are for the sandbox)",
        )
    return task_format.load(root, benchmark, dict(context or {}))


def load_copy(task: Task, path: Path | str) -> Task:
    """A copy of ``task``'s directory at ``path`` (possibly changed since), loaded with the same format
    and load context (a lineage node, a candidate child, the parent's reference on a child)."""
    task_format = format_of(task)
    return load_task_dir(path, task.benchmark, kind=task_format.name, context=task_format.context(task))


def task_dirs(path: Path | str) -> list[Path]:
    """``path`` itself when it is a task directory, else the task directories directly inside it, by name."""
    root = Path(path).resolve()
    if detect_format(root) is not None:
        return [root]
    if not root.is_dir():
        raise TaskFormatError(root, None, "not found; expected a task directory or a folder of them")
    children = [child for child in sorted(root.iterdir()) if detect_format(child) is not None]
    if not children:
        raise TaskFormatError(root, None, f"holds no task directory ({_expected()})")
    return children


def compile_task_code(task: Task) -> Task:
    """``task`` once its Python graders and reference programs compile (nothing is run); else the
    :class:`TaskFormatError` of the first that does not, naming the file and the line."""
    task_format = format_of(task)
    plans = [task.path / plan for plan in task_format.original_plans]
    for path in [*task_format.objective_files(task), *plans]:
        if path.suffix == ".py" and path.is_file():
            compile_task_file(path)
    return task


def scan_path(
    path: Path | str, benchmark: str = "local", context: Mapping[str, Any] | None = None
) -> list[Task | TaskFormatError]:
    """Every task under ``path`` (see :func:`task_dirs`), each loaded (with the load ``context``, such as
    a Claw-Eval-Live checkout, for tasks outside one) or the error that stopped it."""
    found: list[Task | TaskFormatError] = []
    for directory in task_dirs(path):
        try:
            found.append(compile_task_code(load_task_dir(directory, benchmark, context=context)))
        except TaskFormatError as exc:
            found.append(exc)
    return found


def load_path(path: Path | str, benchmark: str = "local") -> list[Task]:
    """Load a task directory, or every task directory directly inside a folder, sorted by name; the first
    malformed one (a grader or reference that does not compile included) raises its
    :class:`TaskFormatError`."""
    return [compile_task_code(load_task_dir(directory, benchmark)) for directory in task_dirs(path)]


def _expected() -> str:
    return "expected */task.toml (Harbor) or */task.yaml with grader.py (tool-API, Claw-Eval-Live)"


def open_environment(task: Task, *, backend: Backend, seed: int = 0) -> AbstractContextManager[Environment]:
    """A fresh environment for one episode of ``task`` (``backend``: the sandbox, where one is used)."""
    return format_of(task).open(task, backend, seed)


def task_objective(task: Task) -> str:
    """A fingerprint of what RES must never change in ``task``: its instruction, objective files and
    objective settings."""
    fmt = format_of(task)
    return objective_fingerprint(task, fmt.objective_files(task), fmt.objective_settings(task))


__all__ = [
    "FORMATS",
    "Draft",
    "Interface",
    "TaskFormat",
    "detect_format",
    "format_of",
    "get_format",
    "load_copy",
    "load_path",
    "load_task_dir",
    "open_environment",
    "register_format",
    "scan_path",
    "task_dirs",
    "task_objective",
]
