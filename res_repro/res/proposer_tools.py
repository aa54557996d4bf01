"""What the LLM proposer may call: tools that inspect the candidate (its files and the reference's run on
the parent) and the tool that submits a proposal.

Paths are relative to the candidate's folder and never leave it: a link is shown with its target and
never followed, so no host path and no file outside the task reaches the model. ``read_file`` answers
in JSON pages (``text``, ``offset``, ``size``, ``next_offset``), which a client rebuilds a file from.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from res_repro.env.tools import ToolSpec

PAGE_CHARS = 20_000  # of a file one read_file call returns
TEXT_PROBE_BYTES = 8192  # a file whose first bytes hold a NUL or do not decode as UTF-8 is binary

PROPOSE = ToolSpec(
    "propose_changes",
    "Submit the operator applications that make the child environment, with why they make it harder "
    "while the task stays solvable. Each application names an operator of the catalogue and its params.",
    {
        "type": "object",
        "properties": {
            "rationale": {"type": "string"},
            "applications": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"operator": {"type": "string"}, "params": {"type": "object"}},
                    "required": ["operator", "params"],
                },
            },
        },
        "required": ["rationale", "applications"],
    },
)
LIST_FILES = ToolSpec(
    "list_files",
    "List the candidate environment's files: path, bytes, and whether each is text, binary or a link.",
)
READ_FILE = ToolSpec(
    "read_file",
    f"Read a file of the candidate (a path from list_files) as JSON: text, offset, size, next_offset. "
    f"A page holds up to {PAGE_CHARS} characters; pass next_offset to read on.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}},
        "required": ["path"],
    },
)
READ_TRACE = ToolSpec(
    "read_reference_trace",
    "The reference solution's whole run on the parent environment: every call with its arguments and "
    "result, its answer and its grade.",
)
INSPECTION = (LIST_FILES, READ_FILE, READ_TRACE)


def _is_text(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(TEXT_PROBE_BYTES)
    if b"\0" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:  # a multi-byte character cut at the probe's end is still text
        return exc.start >= len(head) - 3
    return True


def file_listing(root: Path) -> list[dict[str, Any]]:
    """Every file of the candidate ``root``, sorted by path: ``path``, ``bytes`` and ``kind`` (text,
    binary or link, a link with its ``target`` as written)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in [*files, *(d for d in dirs if (Path(folder) / d).is_symlink())]:
            path = Path(folder) / name
            entry: dict[str, Any] = {"path": path.relative_to(root).as_posix()}
            if path.is_symlink():
                entry.update(bytes=0, kind="link", target=os.readlink(path))
            elif path.is_file():
                entry.update(bytes=path.stat().st_size, kind="text" if _is_text(path) else "binary")
            else:
                continue
            found.append(entry)
    return sorted(found, key=lambda entry: entry["path"])


def _inside(root: Path, relative: str) -> Path | None:
    """``root/relative`` when it names a regular file inside ``root`` through no link, else None."""
    parts = Path(relative).parts
    if not parts or Path(relative).is_absolute() or ".." in parts:
        return None
    path = root
    for part in parts:
        path = path / part
        if path.is_symlink():
            return None
    return path if path.is_file() else None


def read_page(root: Path, relative: str, offset: int = 0, limit: int = PAGE_CHARS) -> dict[str, Any]:
    """One page of a text file of ``root`` (see :data:`READ_FILE`), or an ``error`` saying why not."""
    path = _inside(root, relative)
    if path is None:
        return {
            "error": f"no file {relative!r} in the candidate (paths come from list_files; links are not read)"
        }
    if not _is_text(path):
        return {"path": relative, "error": f"a binary file of {path.stat().st_size} bytes: not shown"}
    text = path.read_text(encoding="utf-8", errors="replace")
    offset = max(0, offset)
    end = min(len(text), offset + limit)
    return {
        "path": relative,
        "offset": offset,
        "size": len(text),
        "next_offset": end if end < len(text) else None,
        "text": text[offset:end],
    }


class Inspector:
    """Answers the inspection tools for one candidate folder and the reference's trace on the parent."""

    def __init__(self, root: Callable[[], Path], trace: str) -> None:
        self._root = root
        self.trace = trace

    def answer(self, name: str, arguments: Mapping[str, Any]) -> str:
        """The result text of the call ``name(arguments)``; an unknown tool or bad arguments get an error
        naming what was expected."""
        if name == LIST_FILES.name:
            return json.dumps(file_listing(self._root()), ensure_ascii=False)
        if name == READ_FILE.name:
            problem = READ_FILE.argument_error(arguments)
            if problem:
                return f"error: {problem}"
            page = read_page(self._root(), str(arguments["path"]), int(arguments.get("offset") or 0))
            return json.dumps(page, ensure_ascii=False)
        if name == READ_TRACE.name:
            return self.trace
        known = [tool.name for tool in (*INSPECTION, PROPOSE)]
        return f"error: unknown tool {name!r}; expected one of {known}"
