"""The editable copy of a Harbor task that RES operators change, with the preludes of its reference."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, ClassVar

PRELUDE_DIR = "solution/prelude.d"
BASE_SOLVE = "solution/base_solve.sh"
SOLVE = "solution/solve.sh"
SHOWN_FILES = 200  # workspace files a description lists
INSTRUCTION_CHARS = 2000  # of the instruction a description quotes (it names the task's outputs)

# The reference solution of a scaled Harbor task: every prelude, newest first, then the original.
SOLVE_WRAPPER = """\
#!/bin/bash
# Reference solution of a scaled environment: the preludes undo each change (newest first),
# then the original reference solution runs.
set -euo pipefail
for prelude in $(ls -r /solution/prelude.d/*.sh 2>/dev/null); do
  bash "$prelude"
done
exec bash /solution/base_solve.sh
"""


def _content(path: Path) -> str:
    """``text`` for a UTF-8 file without NUL bytes, else ``binary``."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    return "binary" if b"\0" in data else "text"


class HarborDraft:
    """A Harbor task directory under edit: the workspace is changed in place, preludes are added."""

    kind: ClassVar[str] = "harbor"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.workspace = root / "environment" / "workspace"
        self.workspace.mkdir(parents=True, exist_ok=True)

    def preludes(self) -> list[Path]:
        """The reference preludes added so far, oldest first."""
        folder = self.root / PRELUDE_DIR
        return sorted(folder.glob("*.sh")) if folder.is_dir() else []

    def add_prelude(self, operator: str, script: str) -> None:
        """Add a script that the reference runs (newest first) before the original solution."""
        if not (self.root / BASE_SOLVE).is_file():
            shutil.move(self.root / SOLVE, self.root / BASE_SOLVE)
            (self.root / SOLVE).write_text(SOLVE_WRAPPER, encoding="utf-8")
        folder = self.root / PRELUDE_DIR
        folder.mkdir(parents=True, exist_ok=True)
        index = len(self.preludes())
        (folder / f"{index:02d}_{operator}.sh").write_text(
            "#!/bin/bash\nset -euo pipefail\n" + script, encoding="utf-8"
        )

    def describe(self) -> dict[str, Any]:
        """What the environment offers: the workspace's files under /app (the first ``SHOWN_FILES``, with
        size and whether they hold text) and the start of the instruction, which names the outputs."""
        files = sorted(p for p in self.workspace.rglob("*") if p.is_file())
        instruction = self.root / "instruction.md"
        text = instruction.read_text(encoding="utf-8", errors="replace") if instruction.is_file() else ""
        return {
            "workspace": "/app",
            "workspace_files": {
                p.relative_to(self.workspace).as_posix(): f"{p.stat().st_size} bytes, {_content(p)}"
                for p in files[:SHOWN_FILES]
            },
            "files_not_listed": max(0, len(files) - SHOWN_FILES),
            "instruction": text[:INSTRUCTION_CHARS],
        }

    def save(self) -> None:
        """Nothing is buffered: edits are already on disk."""
