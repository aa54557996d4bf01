"""Generated suites: task drafts produced by seeded code, written once to disk and reused.

A generator yields :class:`ToolTaskDraft` objects. :func:`materialize` writes them under a folder named
by a hash of the generator's source files and its parameters, so changing either regenerates, and the
same configuration always loads the same task directories (which RES can then copy and scale).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from res_repro.env.formats.tool_api import ToolTaskConfig, load_tool_task, write_tool_task
from res_repro.env.task import Task

COMPLETE_MARKER = ".complete"


@dataclass(frozen=True)
class ToolTaskDraft:
    """Everything a tool-API task directory holds, before it is written."""

    config: ToolTaskConfig
    fixtures: Mapping[str, Mapping[str, list[dict[str, Any]]]]
    solution: str
    grader: str


def with_constants(template: Path, **constants: Any) -> str:
    """A program made of ``NAME = value`` lines followed by a template's source.

    Generators use it to give each task its own reference program and grader from one shared body.
    """
    values = "".join(f"{name} = {value!r}\n" for name, value in constants.items())
    header = f"# Task-specific constants.\n{values}"
    lines = template.read_text(encoding="utf-8").splitlines(keepends=True)
    future = [i for i, line in enumerate(lines) if line.startswith("from __future__ import")]
    cut = future[-1] + 1 if future else 0  # __future__ imports must stay first
    return "".join(lines[:cut]) + header + "\n" + "".join(lines[cut:])


def source_hash(paths: Iterable[Path], params: Mapping[str, Any]) -> str:
    """A hash of generator sources (file names and contents, not locations) and parameters."""
    digest = hashlib.sha256(json.dumps(dict(params), sort_keys=True, default=str).encode())
    for path in sorted(paths, key=lambda p: p.name):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def materialize(
    name: str,
    generate: Callable[[], Iterable[ToolTaskDraft]],
    *,
    sources: Iterable[Path],
    params: Mapping[str, Any],
    root: Path,
) -> list[Task]:
    """Write the generated suite once (atomically, by renaming a finished folder) and load it."""
    folder = root / name / source_hash(sources, params)
    if not (folder / COMPLETE_MARKER).is_file():
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=folder.parent))
        try:
            for draft in generate():
                write_tool_task(
                    staging / draft.config.task_id, draft.config, draft.fixtures, draft.solution, draft.grader
                )
            (staging / COMPLETE_MARKER).write_text(json.dumps(dict(params), default=str))
            try:
                os.rename(staging, folder)
            except OSError:  # another process finished first; its copy is identical
                shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return [load_tool_task(path, benchmark=name) for path in sorted(folder.iterdir()) if path.is_dir()]
