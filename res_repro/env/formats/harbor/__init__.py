"""The Harbor task format (Terminal-Bench 2.x): a sandboxed terminal task graded by its verifier.

:mod:`.task_file` reads and writes the directory, :mod:`.environment` runs an episode in a sandbox,
:mod:`.verifier` grades it, and :mod:`.draft` is the copy RES operators edit.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from res_repro.env.formats.base import DirectoryFormat
from res_repro.env.formats.harbor.draft import BASE_SOLVE, PRELUDE_DIR, SOLVE, HarborDraft
from res_repro.env.formats.harbor.environment import (
    TerminalEnvironment,
    local_refusal,
    network_refusal,
    sandbox_spec_for,
)
from res_repro.env.formats.harbor.task_file import (
    TEST_SCRIPT,
    is_task_dir,
    load_task,
    save_task,
    workspace_dir,
)
from res_repro.env.formats.harbor.verifier import parse_rubric, run_verifier
from res_repro.env.task import Task
from res_repro.sandbox import Backend, make_sandbox

LOCAL_BACKEND = "local"


class HarborFormat(DirectoryFormat):
    """Harbor task directories: instruction.md, task.toml, environment/, solution/solve.sh, tests/."""

    name = "harbor"
    interface = "shell"
    reference_dir = "solution"
    original_plans = (BASE_SOLVE, SOLVE)  # scaling moves the original solve.sh to base_solve.sh

    def detect(self, path: Path) -> bool:
        """A directory with a task.toml."""
        return is_task_dir(path)

    def load(self, path: Path, benchmark: str, context: Mapping[str, Any]) -> Task:
        """Read and validate the directory (a Harbor task needs no context)."""
        return load_task(path, benchmark)

    @contextmanager
    def open(self, task: Task, backend: Backend, seed: int) -> Iterator[TerminalEnvironment]:
        """A sandbox of ``backend`` built from the task's environment, with the terminal tools."""
        with make_sandbox(backend, sandbox_spec_for(task)) as sandbox:
            yield TerminalEnvironment(task, sandbox, open_sandbox=partial(make_sandbox, backend))

    def draft(self, path: Path) -> HarborDraft:
        """The copy's workspace and reference preludes, edited in place."""
        return HarborDraft(path)

    def refusal(self, task: Task, backend: str) -> str | None:
        """An allowlist network (no backend enforces one), or (:func:`local_refusal`) a task the local
        backend cannot give its Docker environment."""
        return network_refusal(task) or (local_refusal(task) if backend == LOCAL_BACKEND else None)

    def has_reference(self, task: Task) -> bool:
        """True when the reference program is there."""
        return (task.path / SOLVE).is_file()

    def objective_files(self, task: Task) -> list[Path]:
        """Every file of the verifier (tests/)."""
        return [p for p in (task.path / TEST_SCRIPT).parent.rglob("*") if p.is_file()]

    def objective_settings(self, task: Task) -> dict[str, Any]:
        """task.toml's [verifier]: how long the verifier may run, its environment and where it runs."""
        return {"verifier": task.config.verifier.model_dump(mode="json")}


HARBOR = HarborFormat()


__all__ = [
    "BASE_SOLVE",
    "HARBOR",
    "PRELUDE_DIR",
    "SOLVE",
    "HarborDraft",
    "TerminalEnvironment",
    "load_task",
    "parse_rubric",
    "run_verifier",
    "save_task",
    "workspace_dir",
]
