"""The change of one environment against its parent: a unified diff per file that differs."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from pathlib import Path

MAX_LINES = 400  # per file shown; longer diffs are cut with a note


@dataclass(frozen=True)
class FileDiff:
    """One file that differs: added, removed or changed, with its unified diff lines (text files)."""

    path: str
    status: str
    lines: tuple[str, ...]


def _files(root: Path | None) -> dict[str, Path]:
    if root is None or not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def _text(path: Path | None) -> list[str] | None:
    """The file's lines (a link's as ``-> target``, never what it points at), or None when it is not
    UTF-8 text."""
    if path is None:
        return []
    if path.is_symlink():
        return [f"-> {os.readlink(path)}"]
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (UnicodeDecodeError, OSError):
        return None


def _content(path: Path) -> bytes:
    """What a file holds, or a link's target as written (links are never followed out of a tree)."""
    return b"link:" + os.fsencode(os.readlink(path)) if path.is_symlink() else path.read_bytes()


def tree_diff(old: Path | None, new: Path) -> list[FileDiff]:
    """Every file that differs between ``old`` (None: nothing) and ``new``, by path."""
    before, after = _files(old), _files(new)
    diffs = []
    for name in sorted(before.keys() | after.keys()):
        a, b = before.get(name), after.get(name)
        if a is not None and b is not None and _content(a) == _content(b):
            continue
        status = "added" if a is None else "removed" if b is None else "changed"
        old_lines, new_lines = _text(a), _text(b)
        if old_lines is None or new_lines is None:
            diffs.append(FileDiff(name, status, ("(binary file)",)))
            continue
        lines = list(difflib.unified_diff(old_lines, new_lines, f"a/{name}", f"b/{name}", lineterm=""))
        if len(lines) > MAX_LINES:
            lines = [*lines[:MAX_LINES], f"... {len(lines) - MAX_LINES} more lines"]
        diffs.append(FileDiff(name, status, tuple(lines)))
    return diffs
