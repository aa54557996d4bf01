"""What a task format gives the harness: the one interface behind which every format-specific choice lives.

A format reads and validates a task directory into a :class:`Task`, recognises its directories, opens the
environment an episode runs in, hands RES an editable draft of a copy, and says what its objective and
reference solution are. Everything outside :mod:`res_repro.env.formats` asks the task's format instead
of branching on its name.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar, Literal, Protocol

from res_repro.env.environment import Environment
from res_repro.env.task import Task
from res_repro.sandbox import Backend

# How an agent acts on the environment: a shell in a sandbox, or calls to declared tools.
Interface = Literal["shell", "tools"]


class Draft(Protocol):
    """A task directory under edit by RES operators; ``kind`` says which operators can edit it."""

    kind: ClassVar[str]
    root: Path

    def describe(self) -> dict[str, Any]:
        """What the environment offers, in brief (shown to an LLM proposer)."""
        ...

    def save(self) -> None:
        """Write every buffered edit back to :attr:`root`."""
        ...


class TaskFormat(Protocol):
    """One on-disk task format (Harbor, tool-API, Claw-Eval-Live)."""

    name: str  # the value of Task.kind
    interface: Interface
    reference_dir: str  # the folder holding the reference solution, relative to the task directory
    original_plans: tuple[str, ...]  # where the seed's reference program is, in the order a copy keeps them

    def detect(self, path: Path) -> bool:
        """True when ``path`` is a task directory of this format."""
        ...

    def load(self, path: Path, benchmark: str, context: Mapping[str, Any]) -> Task:
        """Read and validate the task directory ``path``; raise :class:`TaskFormatError` naming the problem.

        ``context`` carries what the directory alone does not say (see :meth:`context`).
        """
        ...

    def context(self, task: Task) -> dict[str, Any]:
        """What a copy of ``task`` needs, beside its files, to load the same way (JSON-serialisable)."""
        ...

    def copy(self, task: Task, dest: Path) -> None:
        """Write a self-contained copy of ``task``'s directory to ``dest`` (a lineage's first node)."""
        ...

    def open(self, task: Task, backend: Backend, seed: int) -> AbstractContextManager[Environment]:
        """A fresh environment for one episode of ``task`` (``backend`` names the sandbox backend)."""
        ...

    def draft(self, path: Path) -> Draft:
        """An editable view of the copied task directory ``path`` for RES operators."""
        ...

    def refusal(self, task: Task, backend: str) -> str | None:
        """Why ``task`` cannot run on the sandbox backend named ``backend`` (None when it can)."""
        ...

    def has_reference(self, task: Task) -> bool:
        """True when the task ships an executable reference solution."""
        ...

    def original_plan(self, task: Task) -> Path | None:
        """The seed task's original reference program (what scripted explorers follow), if any."""
        ...

    def objective_files(self, task: Task) -> list[Path]:
        """The files that, with the instruction, make up the objective RES must never change."""
        ...

    def objective_settings(self, task: Task) -> dict[str, Any]:
        """The task-file settings that decide success beside the objective files (a pass threshold, how
        the verifier runs), JSON-serialisable; RES must never change them either."""
        ...


def objective_fingerprint(task: Task, files: list[Path], settings: Mapping[str, Any]) -> str:
    """A hash of the instruction, the objective files (their names relative to the task, and bytes) and
    the objective settings."""
    digest = hashlib.sha256(task.instruction.encode())
    for path in sorted(files):
        if path.is_file():
            digest.update(os.fsencode(path.relative_to(task.path).as_posix()) + b"\0" + path.read_bytes())
    digest.update(b"\0" + json.dumps(settings, sort_keys=True).encode())
    return digest.hexdigest()


class DirectoryFormat:
    """Defaults for a format whose task is its directory alone: no load context, a copy is a plain copy,
    and every sandbox backend can run it. Formats inherit it and override what differs."""

    def context(self, task: Task) -> dict[str, Any]:
        """Nothing beyond the directory."""
        return {}

    def copy(self, task: Task, dest: Path) -> None:
        """The directory, as it is."""
        shutil.copytree(task.path, dest, symlinks=True)

    def refusal(self, task: Task, backend: str) -> str | None:
        """None: any backend runs it."""
        return None

    def objective_settings(self, task: Task) -> dict[str, Any]:
        """Nothing: the objective files alone decide success."""
        return {}

    def original_plan(self, task: Task) -> Path | None:
        """The first of the format's ``original_plans`` that the task has."""
        plans: tuple[str, ...] = getattr(self, "original_plans", ())
        return next((task.path / name for name in plans if (task.path / name).is_file()), None)
