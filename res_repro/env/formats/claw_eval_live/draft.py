"""The editable copy of a Claw-Eval-Live task, seen by RES as a tool-API draft.

The tool-API operators change an environment through what stands between the agent and the services
(middleware layers over the services' answers, tool arguments and descriptions, tools the harness serves
itself from fixtures of its own, reference adapters); they never touch the benchmark's mock services, the
data those services load, or the grader. So a Claw-Eval-Live task is offered to them as a tool-API draft
whose original tools are the task's HTTP tools, each tied to the records its service loads (the task's
own fixture file, read here but never written: those records are the task's data, and changes act on
them through the layers), and whose additions are kept in the task file's ``res_repro`` section and
``res_fixtures/``. Saving maps every change back into the task's own files.
"""

from __future__ import annotations

import json
import re
from pathlib import Path, PurePosixPath
from typing import Any, ClassVar

from res_repro.env.formats.claw_eval_live.task_file import (
    LOCAL_URL,
    SCALED_FIXTURES_DIR,
    TASK_FILE,
    ClawTaskFile,
    ServiceDef,
    read_scaled_fixtures,
)
from res_repro.env.formats.files import dump_yaml_cached, read_yaml_mapping
from res_repro.env.formats.tool_api.draft import describe_tool_api
from res_repro.env.formats.tool_api.task_file import (
    ToolDef,
    ToolTaskConfig,
    read_adapters,
    write_adapters,
    write_fixtures,
)

# What a tool does, read from the words of its name (the first match wins).
OPERATION_WORDS = (
    ("search", {"search", "find", "query", "lookup"}),
    ("list", {"list", "history", "all"}),
    ("get", {"get", "read", "view", "fetch", "show", "detail", "details", "check", "status"}),
    ("send", {"send", "reply", "forward", "notify", "post", "publish", "share"}),
    ("create", {"create", "add", "new", "schedule", "book", "open", "draft", "submit", "log"}),
)


FIXTURES_VARIABLE = re.compile(r"_FIXTURES$")  # a service's environment variable naming its data file


def operation_of(tool_name: str) -> str:
    """The tool-API operation a Claw-Eval-Live tool's name describes (``update`` when none matches)."""
    words = set(re.split(r"[_\-\s]+", tool_name.lower()))
    return next((operation for operation, cues in OPERATION_WORDS if words & cues), "update")


def service_records(root: Path, service: ServiceDef) -> tuple[str, list[dict[str, Any]]] | None:
    """The records a service loads from the task's own folder: (collection name, records), or None.

    The service's ``*_FIXTURES`` variable names a file under ``tasks/<task>/`` of the checkout, which a
    copy of the task holds at the same place below its own folder. Only a JSON list of objects counts
    (the services that hold records); the collection is named after the file (``inbox``, ``customers``).
    """
    for variable, value in sorted(service.env.items()):
        parts = PurePosixPath(value).parts
        if not FIXTURES_VARIABLE.search(variable) or len(parts) < 3 or parts[0] != "tasks":
            continue
        path = root.joinpath(*parts[2:])
        try:
            records = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(records, list) and records and all(isinstance(r, dict) for r in records):
            return PurePosixPath(value).stem, records
    return None


class ClawEvalLiveDraft:
    """A copied Claw-Eval-Live task under edit, offered to the tool-API operators (``kind = "tool"``)."""

    kind: ClassVar[str] = "tool"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.spec = ClawTaskFile.model_validate(
            read_yaml_mapping(root / TASK_FILE, "a Claw-Eval-Live task needs task.yaml")
        )
        self.http_tools = [tool.name for tool in self.spec.tools]
        self.task_records: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for service in self.spec.services:
            found = service_records(root, service)
            if found is not None:
                self.task_records[service.name] = {found[0]: found[1]}
        added = self.spec.res_repro
        self.config = ToolTaskConfig(
            task_id=self.spec.task_id,
            prompt=self.spec.prompt.text,
            services=list(dict.fromkeys([s.name for s in self.spec.services] + list(added.services))),
            tools=[self._as_tool_def(tool.name) for tool in self.spec.tools] + list(added.tools),
            middleware=list(self.spec.middleware),
            metadata=dict(added.metadata),
        )
        self.fixtures: dict[str, dict[str, list[dict[str, Any]]]] = {
            name: dict(collections) for name, collections in self.task_records.items()
        }
        for name in added.services:
            self.fixtures.setdefault(name, {}).update(read_scaled_fixtures(root, name))
        self.adapters = read_adapters(root)

    def _as_tool_def(self, name: str) -> ToolDef:
        """A task tool as a tool-API definition: its schema, the service that serves it, its operation."""
        tool = next(t for t in self.spec.tools if t.name == name)
        endpoint = next(e for e in self.spec.tool_endpoints if e.tool_name == name)
        match = LOCAL_URL.match(endpoint.url)
        port = int(match["port"]) if match else -1
        service = next((s.name for s in self.spec.services if s.port == port), "http")
        operation = operation_of(name)
        collection, records = next(iter(self.task_records.get(service, {}).items()), (name, []))
        return ToolDef(
            name=name,
            description=tool.description,
            input_schema=tool.input_schema,
            service=service,
            operation=operation,
            collection=collection,
            id_field=_id_argument(tool.input_schema, records) if operation == "get" and records else "id",
        )

    def collection(self, service: str, name: str) -> list[dict[str, Any]]:
        """A collection of a service the harness serves, created empty if missing (with the service)."""
        if service not in self.fixtures:
            self.fixtures[service] = {}
            if service not in self.config.services:
                self.config.services.append(service)
        return self.fixtures[service].setdefault(name, [])

    def add_adapter(self, operator: str, params: dict[str, Any]) -> None:
        """Record that the reference program must go through ``operator``'s adapter."""
        self.adapters.append({"operator": operator, "params": params})

    def harness_fixtures(self) -> dict[str, dict[str, list[dict[str, Any]]]]:
        """The collections the harness serves (those changes added), without the task's own data."""
        kept = {
            service: {
                name: records
                for name, records in collections.items()
                if name not in self.task_records.get(service, {})
            }
            for service, collections in self.fixtures.items()
        }
        return {service: collections for service, collections in kept.items() if collections}

    def describe(self) -> dict[str, Any]:
        """What the environment offers: its tools and the records of the services the harness serves
        (the benchmark's own services show no records), and middleware layers."""
        return {
            **describe_tool_api(self.config.tools, self.fixtures, self.config.middleware),
            "services": list(self.config.services),
        }

    def save(self) -> None:
        """Map the edits back: schemas of the task's tools, layers, added tools, services and fixtures."""
        by_name = {tool.name: tool for tool in self.config.tools}
        for tool in self.spec.tools:
            tool.input_schema = by_name[tool.name].input_schema
            tool.description = by_name[tool.name].description
        served = self.harness_fixtures()
        added_services = {t.service for t in self.config.tools if t.name not in self.http_tools}
        self.spec.middleware = list(self.config.middleware)
        self.spec.res_repro.services = [s for s in self.config.services if s in served or s in added_services]
        self.spec.res_repro.tools = [t for t in self.config.tools if t.name not in self.http_tools]
        self.spec.res_repro.metadata = dict(self.config.metadata)
        data = self.spec.model_dump(mode="json", exclude_unset=True)
        data["middleware"] = [layer.model_dump(mode="json") for layer in self.spec.middleware]
        data["res_repro"] = self.spec.res_repro.model_dump(mode="json")
        data["tools"] = [tool.model_dump(mode="json", exclude_unset=True) for tool in self.spec.tools]
        (self.root / TASK_FILE).write_text(dump_yaml_cached(data), encoding="utf-8")
        served = {s: served.get(s, {}) for s in self.spec.res_repro.services}
        if served:
            write_fixtures(self.root / SCALED_FIXTURES_DIR, served)
        write_adapters(self.root, self.adapters)


def _id_argument(schema: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """The argument of a get tool that names a record: a required one every record holds uniquely."""
    for name in [*schema.get("required", []), *schema.get("properties", {})]:
        values = [str(r[name]) for r in records if name in r]
        if len(values) == len(records) == len(set(values)):
            return str(name)
    return "id"
