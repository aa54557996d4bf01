"""The task: an objective (instruction plus grader) and the environment it is posed in."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any


def hash_tree(root: Path) -> str:
    """Return a SHA-256 over every file's relative path, mode bit for execution and bytes, and every
    link's relative path and target as written, in order. Links are never followed: one that points
    out of the task (to a host file) is hashed by its target's name, never by what it points at."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_symlink() or p.is_file()):
        digest.update(os.fsencode(path.relative_to(root).as_posix()))  # names need not be UTF-8
        if path.is_symlink():
            digest.update(b"l" + os.fsencode(os.readlink(path)))
            continue
        digest.update(b"x" if path.stat().st_mode & 0o111 else b"-")
        digest.update(path.read_bytes())
    return digest.hexdigest()


SANDBOX_SIDE = ("environment",)  # folders whose links are for the sandbox (resolved there, never read here)


def escaping_links(root: Path) -> list[str]:
    """``path -> target`` of each link in the task folder ``root`` that leads out of it (to a host file
    such as ``/proc/self/environ``), outside :data:`SANDBOX_SIDE`: the harness reads task files, so a
    task may hold no such link there."""
    base = root.resolve()
    found = []
    for folder, dirs, files in os.walk(root):
        relative = Path(folder).relative_to(root)
        if relative.parts and relative.parts[0] in SANDBOX_SIDE:
            dirs.clear()
            continue
        for name in [*files, *dirs]:
            path = Path(folder) / name
            if not path.is_symlink() or (not relative.parts and name in SANDBOX_SIDE):
                continue
            target = Path(os.path.realpath(path))
            if target != base and base not in target.parents:
                found.append(f"{path.relative_to(root).as_posix()} -> {os.readlink(path)}")
    return sorted(found)


@dataclass(frozen=True, eq=False)
class Task:
    """One benchmark task stored as a directory on disk.

    ``kind`` names the task format, registered in :mod:`res_repro.env.formats` (``harbor``, ``tool``,
    ``claw_eval_live``); ``config`` is the parsed task file of that format. The content hash covers
    every file, so anything that changes the task changes the hash and invalidates caches.
    """

    task_id: str
    benchmark: str
    instruction: str
    path: Path
    config: Any = field(repr=False)
    kind: str
    outside_files: tuple[Path, ...] = field(default=(), repr=False)  # part of the task, kept elsewhere

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the task directory's contents and of any file of the task kept outside it."""
        if not self.outside_files:
            return hash_tree(self.path)
        digest = hashlib.sha256(hash_tree(self.path).encode())
        for path in self.outside_files:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()
