"""The benchmark registry: every suite the harness can load, by name."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from res_repro.env.harbor import load_tasks
from res_repro.env.task import Task

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"


@dataclass(frozen=True)
class BenchmarkSpec:
    """A named benchmark: what it is and how to load its tasks."""

    name: str
    description: str
    loader: Callable[[], list[Task]]


def _bundled_harbor(folder: str, name: str) -> Callable[[], list[Task]]:
    return lambda: load_tasks(BUNDLED_DIR / folder, benchmark=name)


BENCHMARKS: dict[str, BenchmarkSpec] = {
    spec.name: spec
    for spec in (
        BenchmarkSpec(
            name="terminal_bundled",
            description="offline terminal tasks in the Harbor format (shell, Python, data, git, build, logs)",
            loader=_bundled_harbor("terminal", "terminal_bundled"),
        ),
        BenchmarkSpec(
            name="workspace_bundled",
            description="offline Workspace-style tasks over interdependent files, graded by rubric items",
            loader=_bundled_harbor("workspace", "workspace_bundled"),
        ),
    )
}


def load_benchmark(name: str, limit: int | None = None) -> list[Task]:
    """Load a registered benchmark's tasks, the first ``limit`` of them when given."""
    try:
        spec = BENCHMARKS[name]
    except KeyError:
        raise ValueError(f"unknown benchmark {name!r}; expected one of {sorted(BENCHMARKS)}") from None
    tasks = spec.loader()
    return tasks[:limit] if limit is not None else tasks


def resolve_target(target: str) -> list[Task]:
    """Load tasks from a path (a task directory or a folder of them) or a registered benchmark name."""
    if Path(target).exists():
        return load_tasks(target)
    if target in BENCHMARKS:
        return load_benchmark(target)
    raise ValueError(
        f"{target!r} is neither a path nor a benchmark name; expected a task directory, "
        f"a folder of task directories, or one of {sorted(BENCHMARKS)}"
    )
