"""The benchmark registry: every suite the harness can load, by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from res_repro.benchmarks.agentce import load_agentce
from res_repro.benchmarks.claw import load_claw_bundled
from res_repro.benchmarks.claw_eval_live import load_claw_eval_live_benchmark
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import load_path, scan_path
from res_repro.env.task import Task
from res_repro.errors import UserInputError

BUNDLED_DIR = Path(__file__).resolve().parent / "bundled"

# A loader gets the benchmark's config (name, limit and its own fields) and a folder for generated files.
Loader = Callable[[Mapping[str, Any], Path], list[Task]]


@dataclass(frozen=True)
class BenchmarkSpec:
    """A named benchmark: what it is and how to load its tasks."""

    name: str
    description: str
    loader: Loader


def _bundled(folder: str, name: str) -> Loader:
    return lambda params, generated_dir: load_path(BUNDLED_DIR / folder, benchmark=name)


BENCHMARKS: dict[str, BenchmarkSpec] = {}


def register(spec: BenchmarkSpec) -> None:
    """Add a benchmark to the registry."""
    BENCHMARKS[spec.name] = spec


register(
    BenchmarkSpec(
        "terminal_bundled",
        "offline terminal tasks in the Harbor format (shell, Python, data, git, build, logs)",
        _bundled("terminal", "terminal_bundled"),
    )
)
register(
    BenchmarkSpec(
        "workspace_bundled",
        "offline Workspace-style tasks over interdependent files, graded by rubric items",
        _bundled("workspace", "workspace_bundled"),
    )
)


register(
    BenchmarkSpec(
        "claw_bundled",
        "offline Claw-style workflows over in-process mail, CRM, finance, calendar, helpdesk, HR and "
        "inventory services, scored by a native score in [0, 1]",
        load_claw_bundled,
    )
)
register(
    BenchmarkSpec(
        "agentce",
        "AgentCE-style grid scheduling: H hidden slots, B decoys, tools answered from static JSON",
        load_agentce,
    )
)


def _task_folder(params: Mapping[str, Any], generated_dir: Path) -> list[Task]:
    path = params.get("path")
    if not path:
        raise UserInputError(
            "harbor_dataset needs the folder of its tasks: set benchmark.path=/path/to/dataset"
        )
    return load_path(Path(str(path)).expanduser(), benchmark="harbor_dataset")


register(
    BenchmarkSpec(
        "harbor_dataset",
        "a folder of task directories you have (a Harbor dataset, Terminal-Bench 2.x): benchmark.path=DIR",
        _task_folder,
    )
)
register(
    BenchmarkSpec(
        "claw_eval_live",
        "Claw-Eval-Live tasks from a local checkout (benchmark.checkout=...): mock HTTP services on free "
        "ports, graded by each task's own grader",
        load_claw_eval_live_benchmark,
    )
)


def load_benchmark(
    name: str, params: Mapping[str, Any] | None = None, *, generated_dir: Path | None = None
) -> list[Task]:
    """Load a registered benchmark's tasks; ``params`` is its config (``limit`` keeps the first N)."""
    from res_repro.config import project_root

    try:
        spec = BENCHMARKS[name]
    except KeyError:
        raise UserInputError(f"unknown benchmark {name!r}; expected one of {sorted(BENCHMARKS)}") from None
    params = dict(params or {})
    tasks = spec.loader(params, generated_dir or Path(project_root()) / ".cache" / "generated")
    limit = params.get("limit")
    return tasks[:limit] if limit is not None else tasks


def resolve_target(
    target: str, params: Mapping[str, Any] | None = None, generated_dir: Path | None = None
) -> list[Task | TaskFormatError]:
    """The tasks of a path (a task directory or a folder of them: each loaded, or the error that stopped
    it) or of a registered benchmark name (``params`` is its config, e.g. ``checkout``)."""
    if Path(target).exists():
        return list(scan_path(target, context=params))
    if target in BENCHMARKS:
        return list(load_benchmark(target, params, generated_dir=generated_dir))
    raise UserInputError(
        f"{target!r} is neither a path nor a benchmark name; expected a task directory, "
        f"a folder of task directories, or one of {sorted(BENCHMARKS)}"
    )
