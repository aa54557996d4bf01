"""The task: an objective (instruction plus grader) and the environment it is posed in."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any


def hash_tree(root: Path) -> str:
    """Return a SHA-256 over every file's relative path, mode bit for execution and bytes, in order."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"x" if path.stat().st_mode & 0o111 else b"-")
        digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class Task:
    """One benchmark task stored as a directory on disk.

    ``kind`` names the task format (see :mod:`res_repro.env.kinds`): ``harbor`` (a sandboxed terminal
    task with a verifier) or ``tool`` (tool-API services with a grader). ``config`` is the parsed task
    file of that format. The content hash covers every file, so anything that changes the task changes
    the hash and invalidates caches.
    """

    task_id: str
    benchmark: str
    instruction: str
    path: Path
    config: Any = field(repr=False)
    kind: str = "harbor"

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the task directory's contents."""
        return hash_tree(self.path)

    @property
    def workspace_dir(self) -> Path | None:
        """The folder copied to /app at the start of an episode, if the task has one."""
        workspace = self.path / "environment" / "workspace"
        return workspace if workspace.is_dir() else None

    @property
    def environment_dir(self) -> Path:
        """The task's environment/ folder."""
        return self.path / "environment"

    @property
    def solution_dir(self) -> Path:
        """The task's solution/ folder (the reference solution)."""
        return self.path / "solution"

    @property
    def tests_dir(self) -> Path:
        """The task's tests/ folder (the verifier)."""
        return self.path / "tests"
