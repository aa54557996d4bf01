"""The editable copy of a Claw-Eval-Live task: its task.yaml, whose middleware list RES may extend."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from res_repro.env.formats.claw_eval_live.task_file import TASK_FILE, ClawTaskFile
from res_repro.env.formats.files import read_yaml_mapping
from res_repro.yamlio import dump_yaml


class ClawEvalLiveDraft:
    """A copied Claw-Eval-Live task directory under edit; the task file is written back on :meth:`save`.

    Unknown keys of the task file are kept as they were, so the copy stays a task the benchmark's own
    tools read.
    """

    kind: ClassVar[str] = "claw_eval_live"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.spec = ClawTaskFile.model_validate(
            read_yaml_mapping(root / TASK_FILE, "a Claw-Eval-Live task needs task.yaml")
        )

    def describe(self) -> dict[str, Any]:
        """What the environment offers, in brief: tools, services and middleware layers."""
        return {
            "tools": [tool.name for tool in self.spec.tools],
            "services": [service.name for service in self.spec.services],
            "middleware": [layer.name for layer in self.spec.middleware],
        }

    def save(self) -> None:
        """Write the task file back."""
        data = self.spec.model_dump(mode="json", exclude_unset=True)
        if self.spec.middleware:
            data["middleware"] = [layer.model_dump(mode="json") for layer in self.spec.middleware]
        (self.root / TASK_FILE).write_text(dump_yaml(data), encoding="utf-8")
