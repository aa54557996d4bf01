"""The editable copy of a tool-API task that RES operators change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from res_repro.env.formats.tool_api.task_file import (
    FIXTURES_DIR,
    TASK_FILE,
    ToolTaskConfig,
    read_adapters,
    write_adapters,
    write_fixtures,
)
from res_repro.yamlio import dump_yaml, load_yaml


class ToolDraft:
    """A tool-API task directory under edit: config, fixtures and reference adapters held in memory until
    :meth:`save`."""

    kind: ClassVar[str] = "tool"

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

    def describe(self) -> dict[str, Any]:
        """What the environment offers, in brief: tools, collections and middleware layers."""
        tools = [f"{t.name} ({t.operation} {t.service}/{t.collection})" for t in self.config.tools]
        collections = {f"{s}/{c}": len(r) for s, cs in self.fixtures.items() for c, r in cs.items()}
        layers = [layer.name for layer in self.config.middleware]
        return {"tools": tools, "collections": collections, "middleware": layers}

    def save(self) -> None:
        """Write the config, fixtures and adapters back to the directory."""
        data = self.config.model_dump(mode="json")
        (self.root / TASK_FILE).write_text(dump_yaml(data), encoding="utf-8")
        write_fixtures(self.root / FIXTURES_DIR, self.fixtures)
        write_adapters(self.root, self.adapters)
