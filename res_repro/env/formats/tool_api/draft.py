"""The editable copy of a tool-API task that RES operators change."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from res_repro.env.formats.files import dump_yaml_cached, read_yaml_mapping
from res_repro.env.formats.tool_api.task_file import (
    FIXTURES_DIR,
    TASK_FILE,
    ToolDef,
    ToolTaskConfig,
    read_adapters,
    write_adapters,
    write_fixtures,
)

SAMPLE_IDS = 5  # record ids shown per collection
VALUE_CHARS = 60  # longest value shown in an example record


def value_kind(value: Any) -> str:
    """The JSON kind of a record value: boolean, number, text, list, object or null."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "list"
    return "object" if isinstance(value, dict) else "null"


def _shown(value: Any) -> Any:
    text = json.dumps(value)
    return value if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 3] + "..."


def describe_tool_api(
    tools: list[ToolDef], fixtures: dict[str, dict[str, list[dict[str, Any]]]], middleware: list[Any]
) -> dict[str, Any]:
    """Tools (operation, service/collection, id field, arguments, listed fields) and record collections
    (count, field kinds, the first record ids by the id field and one example record), which is what
    the operators' parameters name; long values are cut to ``VALUE_CHARS``."""
    id_fields = {(t.service, t.collection): t.id_field for t in tools if t.operation == "get"}
    collections = {}
    for service, named in fixtures.items():
        for name, records in named.items():
            key = id_fields.get((service, name), "id")
            kinds: dict[str, set[str]] = {}
            for record in records:
                for field_name, value in record.items():
                    kinds.setdefault(field_name, set()).add(value_kind(value))
            collections[f"{service}/{name}"] = {
                "records": len(records),
                "id_field": key,
                "ids": [str(r[key]) for r in records[:SAMPLE_IDS] if key in r],
                "fields": {f: "|".join(sorted(k)) for f, k in kinds.items()},
                "example": {f: _shown(v) for f, v in records[0].items()} if records else None,
            }
    return {
        "tools": [
            {
                "name": t.name,
                "operation": t.operation,
                "collection": f"{t.service}/{t.collection}",
                "id_field": t.id_field,
                "arguments": sorted(t.input_schema.get("properties", {})),
                "fields": t.fields,
            }
            for t in tools
        ],
        "collections": collections,
        "middleware": [layer.name for layer in middleware],
    }


class ToolDraft:
    """A tool-API task directory under edit: config, fixtures and reference adapters held in memory until
    :meth:`save`."""

    kind: ClassVar[str] = "tool"

    def __init__(self, root: Path) -> None:
        self.root = root
        raw = read_yaml_mapping(root / TASK_FILE, "a tool-API task needs task.yaml")
        self.config = ToolTaskConfig.model_validate(raw)
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
        """What the environment offers: tools, record collections and middleware layers (see
        :func:`describe_tool_api`)."""
        return describe_tool_api(self.config.tools, self.fixtures, self.config.middleware)

    def save(self) -> None:
        """Write the config, fixtures and adapters back to the directory."""
        data = self.config.model_dump(mode="json")
        (self.root / TASK_FILE).write_text(dump_yaml_cached(data), encoding="utf-8")
        write_fixtures(self.root / FIXTURES_DIR, self.fixtures)
        write_adapters(self.root, self.adapters)
