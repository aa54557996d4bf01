"""Editable copies of task directories that RES operators change.

A draft is a task directory being turned into a child environment. :class:`ToolDraft` holds a tool-API
task's config, fixtures and reference adapters in memory until :meth:`ToolDraft.save`;
:class:`HarborDraft` edits a Harbor task's files in place and keeps its reference preludes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from res_repro.env.tool_task import ADAPTERS_FILE, FIXTURES_DIR, TASK_FILE, ToolTaskConfig, read_adapters
from res_repro.yamlio import dump_yaml, load_yaml

PRELUDE_DIR = "solution/prelude.d"
BASE_SOLVE = "solution/base_solve.sh"
SOLVE = "solution/solve.sh"

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


class ToolDraft:
    """A tool-API task directory under edit."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = ToolTaskConfig.model_validate(load_yaml((root / TASK_FILE).read_text(encoding="utf-8")))
        self.fixtures: dict[str, dict[str, list[dict[str, Any]]]] = {
            name: json.loads((root / FIXTURES_DIR / f"{name}.json").read_text(encoding="utf-8"))
            for name in self.config.services
        }
        self.adapters = read_adapters(root)

    def collection(self, service: str, name: str) -> list[dict[str, Any]]:
        """A fixture collection, created empty if missing (a new service is added to the config)."""
        if service not in self.fixtures:
            self.fixtures[service] = {}
            self.config.services.append(service)
        return self.fixtures[service].setdefault(name, [])

    def add_adapter(self, operator: str, params: dict[str, Any]) -> None:
        """Record that the reference program must go through ``operator``'s adapter."""
        self.adapters.append({"operator": operator, "params": params})

    def save(self) -> None:
        """Write the config, fixtures and adapters back to the directory."""
        data = self.config.model_dump(mode="json")
        (self.root / TASK_FILE).write_text(dump_yaml(data), encoding="utf-8")
        for name, collections in self.fixtures.items():
            text = json.dumps(collections, indent=1, ensure_ascii=False)
            (self.root / FIXTURES_DIR / f"{name}.json").write_text(text + "\n", encoding="utf-8")
        (self.root / ADAPTERS_FILE).write_text(json.dumps(self.adapters, indent=1) + "\n", encoding="utf-8")


class HarborDraft:
    """A Harbor task directory under edit: the workspace is changed in place, preludes are added."""

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

    def save(self) -> None:
        """Nothing is buffered: edits are already on disk."""
