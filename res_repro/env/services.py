"""In-process services backed by JSON fixtures: fast, portless, and reset by reloading the fixtures.

A service holds named collections of records. Tools reach it through generic operations (list, get,
search, create, update, send), each configured by the tool's definition in the task file, so a task
declares its tools as data and needs no service code of its own.
"""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from res_repro.env.tools import ToolCall, ToolResponse, error, ok
from res_repro.sandbox.base import SandboxError

Record = dict[str, Any]
Collections = dict[str, list[Record]]


class ServiceError(SandboxError):
    """A service behind a task's tools failed (did not start, died, could not reset): infrastructure.

    One found at grading (a service that died during the episode) ends the episode with stop reason
    ``service_error``; one raised while the environment opens ends it with ``sandbox_error``. Both are
    retried, never scored.
    """


@dataclass(frozen=True)
class FrozenFixtures:
    """A service's fixtures held as one pickle: each environment's private copy is then a single C-level
    :func:`pickle.loads` instead of a Python deep copy, and one parse can serve every environment."""

    data: bytes

    @classmethod
    def of(cls, fixtures: Mapping[str, list[Record]]) -> FrozenFixtures:
        """Freeze the collections as they are now (later changes to ``fixtures`` do not show)."""
        return cls(pickle.dumps(dict(fixtures), protocol=pickle.HIGHEST_PROTOCOL))

    def thaw(self) -> Collections:
        """A fresh, private copy of the collections."""
        collections: Collections = pickle.loads(self.data)
        return collections


class FixtureService:
    """One service's state: collections of records, restored from the fixtures on :meth:`reset`."""

    def __init__(self, name: str, fixtures: Mapping[str, list[Record]] | FrozenFixtures) -> None:
        self.name = name
        self._fixtures = fixtures if isinstance(fixtures, FrozenFixtures) else FrozenFixtures.of(fixtures)
        self.collections: Collections = {}
        self._ids = itertools.count(1)
        self.reset()

    def reset(self) -> None:
        """Restore every collection to its fixture contents."""
        self.collections = self._fixtures.thaw()
        self._ids = itertools.count(1)

    def collection(self, name: str) -> list[Record]:
        """The records of a collection (created empty on first use, e.g. an outbox)."""
        return self.collections.setdefault(name, [])

    def new_id(self, prefix: str) -> str:
        """A fresh identifier such as ``SENT-3``."""
        return f"{prefix}-{next(self._ids)}"

    def snapshot(self) -> Collections:
        """A deep copy of the current state, for graders (through pickle, as the fixtures are frozen:
        records of plain values copy several times faster than with ``copy.deepcopy``)."""
        collections: Collections = pickle.loads(
            pickle.dumps(self.collections, protocol=pickle.HIGHEST_PROTOCOL)
        )
        return collections


def _matches(record: Record, criteria: Mapping[str, Any]) -> bool:
    return all(str(record.get(key, "")).lower() == str(value).lower() for key, value in criteria.items())


def _project(record: Record, fields: list[str] | None) -> Record:
    return {key: record[key] for key in fields if key in record} if fields else record


def _find(records: list[Record], id_field: str, value: Any) -> Record | None:
    return next((r for r in records if str(r.get(id_field)) == str(value)), None)


def op_list(service: FixtureService, tool: Any, call: ToolCall) -> ToolResponse:
    """Records whose ``filters`` fields equal the arguments (case-insensitive), projected to ``fields``."""
    criteria = {key: call.arguments[key] for key in tool.filters if call.arguments.get(key) is not None}
    items = [_project(r, tool.fields) for r in service.collection(tool.collection) if _matches(r, criteria)]
    return ok({"items": items, "count": len(items)})


def op_get(service: FixtureService, tool: Any, call: ToolCall) -> ToolResponse:
    """The record whose ``id_field`` equals the argument of the same name; 404 when there is none."""
    value = call.arguments.get(tool.id_field)
    record = _find(service.collection(tool.collection), tool.id_field, value)
    if record is None:
        return error(404, f"no {tool.collection} record with {tool.id_field}={value!r}")
    return ok(record)


def op_search(service: FixtureService, tool: Any, call: ToolCall) -> ToolResponse:
    """Records with the ``query`` argument in any of ``search_fields`` (case-insensitive substring)."""
    query = str(call.arguments.get("query", "")).lower()
    hits = [
        _project(r, tool.fields)
        for r in service.collection(tool.collection)
        if any(query in str(r.get(f, "")).lower() for f in tool.search_fields)
    ]
    return ok({"items": hits, "count": len(hits)})


def op_create(service: FixtureService, tool: Any, call: ToolCall) -> ToolResponse:
    """Append the arguments as a new record with a fresh id; return it."""
    record = {tool.id_field: service.new_id(tool.collection.upper()), **call.arguments}
    service.collection(tool.collection).append(record)
    return ok(record)


def op_update(service: FixtureService, tool: Any, call: ToolCall) -> ToolResponse:
    """Patch the record named by ``id_field`` with the other arguments; 404 when there is none."""
    value = call.arguments.get(tool.id_field)
    record = _find(service.collection(tool.collection), tool.id_field, value)
    if record is None:
        return error(404, f"no {tool.collection} record with {tool.id_field}={value!r}")
    record.update({k: v for k, v in call.arguments.items() if k != tool.id_field})
    return ok(record)


def op_send(service: FixtureService, tool: Any, call: ToolCall) -> ToolResponse:
    """Append the arguments to an outbox-like collection and confirm."""
    record = {tool.id_field: service.new_id("SENT"), **call.arguments}
    service.collection(tool.collection).append(record)
    return ok({"status": "sent", tool.id_field: record[tool.id_field]})


Operation = Callable[[FixtureService, Any, ToolCall], ToolResponse]

OPERATIONS: dict[str, Operation] = {
    "list": op_list,
    "get": op_get,
    "search": op_search,
    "create": op_create,
    "update": op_update,
    "send": op_send,
}
