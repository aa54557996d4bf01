"""Middleware layers for tool environments, looked up by name.

Each layer wraps the dispatcher's handler (see :class:`res_repro.env.tools.Middleware`). Layers are
built per episode from the task file's ``middleware`` list with a seed, so seeded behaviour (which
calls fail) is the same on every rerun.
"""

from __future__ import annotations

import base64
import functools
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode

from res_repro.env.tools import Handler, Middleware, ToolCall, ToolResponse, ToolSpec, error
from res_repro.errors import UserInputError


class TransientFailures:
    """Fails a seeded share of calls to some tools with 429 or 503 and a ``Retry-After`` header.

    Params: ``tools`` (names; empty means every tool), ``rate`` (share of calls that fail),
    ``max_consecutive`` (a retry after this many failures in a row always goes through).
    """

    name = "transient_failures"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params.get("tools", ()))
        self.rate = float(params.get("rate", 0.5))
        self.max_consecutive = int(params.get("max_consecutive", 2))
        self._rng = random.Random(seed)
        self._streak = 0

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Fail the call or forward it."""
        targeted = not self.targets or call.tool in self.targets
        if targeted and self._streak < self.max_consecutive and self._rng.random() < self.rate:
            self._streak += 1
            status = self._rng.choice((429, 503))
            return error(status, "temporarily unavailable; retry later", **{"Retry-After": "1"})
        self._streak = 0
        return forward(call)


class Pagination:
    """Cuts the records of list-like tools (in any envelope, :func:`records_key`) into pages of
    ``page_size`` with an opaque ``next_cursor``.

    Params: ``tools`` (names), ``page_size``. The caller passes ``cursor`` to get the next page.
    """

    name = "pagination"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.page_size = int(params["page_size"])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward without the cursor, then return the requested page."""
        if call.tool not in self.targets:
            return forward(call)
        arguments = dict(call.arguments)
        cursor = arguments.pop("cursor", None)
        response = forward(ToolCall(call.tool, arguments))
        key = records_key(response.body)
        if response.is_error or key is None:
            return response
        try:
            start = int(str(cursor or "p0").removeprefix("p"))
        except ValueError:
            return error(400, f"invalid cursor {cursor!r}; pass the next_cursor of the previous page")
        items = response.body[key]
        page = items[start : start + self.page_size]
        more = start + self.page_size < len(items)
        body = {
            **with_records(response.body, key, page),
            "next_cursor": f"p{start + self.page_size}" if more else None,
        }
        return ToolResponse(response.status, body, response.headers)


class RequireToken:
    """Refuses calls to ``tools`` without the right ``token`` argument, pointing to where it is kept.

    Params: ``tools``, ``token``, ``hint`` (where the credential can be found) and optionally ``next``
    (the call that reveals it, ``{"tool": ..., "arguments": {...}}``).
    """

    name = "require_token"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.token = str(params["token"])
        self.guidance = _guidance(params)

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Check and strip the token, then forward."""
        if call.tool not in self.targets:
            return forward(call)
        arguments = dict(call.arguments)
        given = arguments.pop("token", None)
        if given is None:
            return _refusal(401, "unauthenticated", "authentication required: pass `token`", self.guidance)
        if str(given) != self.token:
            return _refusal(403, "invalid_token", "invalid token", self.guidance)
        return forward(ToolCall(call.tool, arguments))


GUIDED = "guided"  # a layer's ``guidance`` param: errors carry a hint and the next call
REALISTIC = "realistic"  # errors carry a status, a code and a message; recovery is in the tools' docs


def guided(params: Mapping[str, Any]) -> bool:
    """Whether a layer's errors say how to recover (``guidance: guided``, the default of layers written
    before the setting existed) or only what went wrong (``guidance: realistic``)."""
    return params.get("guidance", GUIDED) == GUIDED


def _guidance(params: Mapping[str, Any], hint: str | None = None, following: Any = None) -> dict[str, Any]:
    """What a guided layer's errors add: the ``hint`` (and, when one call removes the obstacle, the
    ``next`` call), from the params or given; nothing for a realistic layer."""
    if not guided(params):
        return {}
    text = hint if hint is not None else params.get("hint")
    guidance: dict[str, Any] = {"hint": str(text)} if text else {}
    if following or params.get("next"):
        guidance["next"] = following or params["next"]
    return guidance


def _refusal(status: int, code: str, message: str, guidance: Mapping[str, Any]) -> ToolResponse:
    """An error as real APIs give one (a status, a machine-readable code, a message), with a guided
    layer's ``guidance`` added."""
    return ToolResponse(status, {"error": message, "code": code, **guidance})


def _call_spec(name: str, description: str, properties: dict[str, Any], required: list[str]) -> ToolSpec:
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    return ToolSpec(name, description, schema)


def _argument(call: ToolCall, name: str) -> str | None:
    value = call.arguments.get(name)
    return None if value is None else str(value)


def _rewritten(response: ToolResponse, change: Callable[[dict[str, Any]], dict[str, Any]]) -> ToolResponse:
    return ToolResponse(response.status, map_records(response.body, change), response.headers)


def records_key(body: Any) -> str | None:
    """The key of a list body's records, whatever envelope the service answers with.

    ``items`` (the bundled services'), else the one top-level list of objects (``{"messages": [...],
    "total": 3}``, ``{"customers": [...]}``); None for a body that is one record or holds no such list.
    """
    if not isinstance(body, dict):
        return None
    if isinstance(body.get("items"), list):
        return "items"
    lists = [
        key
        for key, value in body.items()
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value)
    ]
    return lists[0] if len(lists) == 1 else None


def with_records(body: dict[str, Any], key: str, records: list[Any]) -> dict[str, Any]:
    """``body`` with its records under ``key`` replaced, and a ``count`` of them kept right."""
    updated = {**body, key: records}
    if "count" in body or key == "items":
        updated["count"] = len(records)
    return updated


def map_records(body: Any, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """``body`` with ``change`` applied to each of its records (see :func:`records_key`), or to the body
    as one record.

    ``change`` must return new dicts: the records in a body may be the services' own.
    """
    if not isinstance(body, dict):
        return body
    key = records_key(body)
    if key is not None:
        return {**body, key: [change(r) if isinstance(r, dict) else r for r in body[key]]}
    return change(body)


def _scaled(record: Mapping[str, Any], factor: float, keep: str) -> dict[str, Any]:
    """A copy of ``record`` with every number but ``keep`` multiplied by ``factor`` (ints stay ints)."""
    altered = dict(record)
    for name, value in record.items():
        if name == keep or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        altered[name] = int(value * factor) if isinstance(value, int) else round(value * factor, 2)
    return altered


def _altered(
    record: Mapping[str, Any], factor: float, keep: str, overrides: Mapping[str, Any]
) -> dict[str, Any]:
    """``record`` with its numbers scaled and the overridden fields it shows replaced."""
    altered = _scaled(record, factor, keep)
    altered.update({name: value for name, value in overrides.items() if name in record})
    return altered


class RetiredTools:
    """Answers calls to retired ``tools`` with 410 and guidance to their replacement.

    Params: ``tools``, ``hint`` and optionally ``next``.
    """

    name = "retired_tools"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.guidance = _guidance(params)

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Refuse a retired tool, forward the rest."""
        if call.tool in self.targets:
            return _refusal(410, "gone", f"{call.tool} has been retired", self.guidance)
        return forward(call)


class Attachments:
    """Serves one field of some tools' records as an attachment id; another tool returns the content.

    Params: ``tools``, ``field``, ``key`` (the records' key field), ``attachments`` ({key: attachment id})
    and ``tool`` (the attachment tool). Records get an ``attached_fields`` note naming the tool.
    """

    name = "attachments"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.field, self.key, self.tool = str(params["field"]), str(params["key"]), str(params["tool"])
        self.attachments: dict[str, str] = dict(params["attachments"])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward, then detach the field from every record that has an attachment."""
        response = forward(call)
        if call.tool not in self.targets or response.is_error:
            return response
        return _rewritten(response, self._detach)

    def _detach(self, record: dict[str, Any]) -> dict[str, Any]:
        attachment = self.attachments.get(str(record.get(self.key)))
        if attachment is None or self.field not in record:
            return record
        note = f"stored as attachment '{attachment}': call {self.tool} with attachment_id '{attachment}'"
        notes = {**record.get("attached_fields", {}), self.field: note}
        return {**record, self.field: attachment, "attached_fields": notes}


ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "nopqrstuvwxyzabcdefghijklmNOPQRSTUVWXYZABCDEFGHIJKLM",
)


@functools.cache
def _caesar_table(shift: int) -> dict[int, int]:
    """The translation turning each ASCII letter and digit ``shift`` places within its alphabet."""
    return {
        ord(first) + offset: ord(first) + (offset + shift) % size
        for first, size in (("a", 26), ("A", 26), ("0", 10))
        for offset in range(size)
    }


def _caesar(text: str, shift: int) -> str:
    return text.translate(_caesar_table(shift))


def _encode_text(scheme: str, shift: int, text: str) -> str:
    if scheme == "base64":
        return base64.b64encode(text.encode()).decode()
    if scheme == "rot13":
        return text.translate(ROT13)
    return _caesar(text, shift)


def _decode_text(scheme: str, shift: int, text: str) -> str:
    if scheme == "base64":
        return base64.b64decode(text.encode()).decode()
    if scheme == "rot13":
        return text.translate(ROT13)
    return _caesar(text, -shift)


TEXT_SCHEMES = ("base64", "rot13", "caesar")
NUMBER_SCHEMES = ("scale",)


def encode_value(scheme: str, shift: int, value: Any) -> Any:
    """``value`` under ``scheme`` (text schemes: strings and lists of strings; ``scale``: numbers).

    None when the scheme does not fit the value's type.
    """
    if scheme in NUMBER_SCHEMES:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return value * shift if isinstance(value, int) else round(value * shift, 6)
    if isinstance(value, str):
        return _encode_text(scheme, shift, value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [_encode_text(scheme, shift, v) for v in value]
    return None


def decode_value(scheme: str, shift: int, value: Any) -> Any:
    """The inverse of :func:`encode_value`."""
    if scheme in NUMBER_SCHEMES:
        if isinstance(value, int) and value % shift == 0:
            return value // shift
        return round(value / shift, 6)
    if isinstance(value, list):
        return [_decode_text(scheme, shift, v) for v in value]
    return _decode_text(scheme, shift, value)


class EncodedFields:
    """Serves one field of some tools' records encoded; a codec record says how to decode it.

    Params: ``tools``, ``field``, ``scheme`` (base64, rot13, caesar or scale), ``shift`` (the caesar shift or
    the scale factor), ``codec`` (the codec record's id), ``codec_tool``, ``key`` (the records' key field)
    and ``only`` (keys of the records to encode; null for all). Records get an ``encoded_fields`` note.
    """

    name = "encoded_fields"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.field, self.scheme, self.shift = (
            str(params["field"]),
            str(params["scheme"]),
            int(params["shift"]),
        )
        self.codec, self.codec_tool, self.key = str(params["codec"]), str(params["codec_tool"]), params["key"]
        self.only = None if params.get("only") is None else frozenset(params["only"])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward, then encode the field in every record it applies to."""
        response = forward(call)
        if call.tool not in self.targets or response.is_error:
            return response
        return _rewritten(response, self._encode)

    def _encode(self, record: dict[str, Any]) -> dict[str, Any]:
        if self.field not in record or (self.only is not None and str(record.get(self.key)) not in self.only):
            return record
        value = encode_value(self.scheme, self.shift, record[self.field])
        if value is None:
            return record
        note = f"encoded with codec '{self.codec}': read it with {self.codec_tool}"
        notes = {**record.get("encoded_fields", {}), self.field: note}
        return {**record, self.field: value, "encoded_fields": notes}


class AliasIds:
    """Some tools address records by alias ids only; a real id gets 404 and the way to its alias.

    Params: ``tools``, ``argument`` (the id argument), ``aliases`` ({alias: real id}) and ``resolve_tool``
    (which maps a real id, argument ``ref``, to its alias).
    """

    name = "alias_ids"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.params = params
        self.argument, self.resolve_tool = str(params["argument"]), str(params["resolve_tool"])
        self.aliases: dict[str, str] = dict(params["aliases"])
        self.reals = frozenset(self.aliases.values())

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Translate an alias to the real id; refuse a real id with guidance."""
        value = _argument(call, self.argument)
        if call.tool not in self.targets or value is None:
            return forward(call)
        if value in self.aliases:
            return forward(ToolCall(call.tool, {**call.arguments, self.argument: self.aliases[value]}))
        if value in self.reals:
            return _refusal(
                404,
                "not_found",
                f"{call.tool} addresses records by alias id; '{value}' is not an alias",
                _guidance(
                    self.params,
                    f"look up the alias of '{value}' with {self.resolve_tool}",
                    {"tool": self.resolve_tool, "arguments": {"ref": value}},
                ),
            )
        return forward(call)


class Decoys:
    """Adds superseded near-copies of some records to list results (and serves them by key).

    Params: ``tools`` (list tools), ``key`` (the records' key field), ``copies`` ({key: copy key}),
    ``factor`` (numbers in a copy are scaled by it), ``overrides`` ({key: {field: value}}, other values of
    a copy), and optionally ``get_tool`` with ``argument``. A copy is listed just before its original and
    carries ``record_state: superseded`` and ``superseded_by``.
    """

    name = "decoys"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.key, self.factor = str(params["key"]), float(params["factor"])
        self.copies: dict[str, str] = dict(params["copies"])
        self.overrides: dict[str, dict[str, Any]] = dict(params.get("overrides", {}))
        self.originals = {copy: original for original, copy in self.copies.items()}
        self.get_tool, self.argument = params.get("get_tool"), params.get("argument")

    def _copy(self, record: dict[str, Any], original: str) -> dict[str, Any]:
        copy = _altered(record, self.factor, self.key, self.overrides.get(original, {}))
        copy.update(
            {self.key: self.copies[original], "record_state": "superseded", "superseded_by": original}
        )
        return copy

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Serve a copy by its key, or add copies after their originals in a list."""
        asked = _argument(call, self.argument) if self.argument else None
        if call.tool == self.get_tool and asked in self.originals:
            original = self.originals[asked]
            response = forward(ToolCall(call.tool, {**call.arguments, self.argument: original}))
            return response if response.is_error else ToolResponse(200, self._copy(response.body, original))
        response = forward(call)
        if call.tool not in self.targets or response.is_error or not isinstance(response.body, dict):
            return response
        key = records_key(response.body)
        if key is None:
            return response
        listed: list[Any] = []
        for item in response.body[key]:
            original = str(item.get(self.key)) if isinstance(item, dict) else None
            if original in self.copies:
                listed.append(self._copy(item, original))
            listed.append(item)
        return ToolResponse(response.status, with_records(response.body, key, listed))


class Revisions:
    """List results show an older revision of some records next to the current one.

    Params: ``tools`` (list tools), ``key``, ``ids`` (records with a stale revision), ``factor`` (numbers
    in a stale revision are scaled by it) and ``overrides`` ({key: {field: value}}, its other stale
    values). Every listed record carries its ``revision``.
    """

    name = "revisions"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.key, self.factor = str(params["key"]), float(params["factor"])
        self.ids = frozenset(params["ids"])
        self.overrides: dict[str, dict[str, Any]] = dict(params.get("overrides", {}))

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward, then list each stale revision just before the current one."""
        response = forward(call)
        if call.tool not in self.targets or response.is_error or not isinstance(response.body, dict):
            return response
        records = records_key(response.body)
        if records is None:
            return response
        listed: list[Any] = []
        for item in response.body[records]:
            if not isinstance(item, dict):
                listed.append(item)
                continue
            key = str(item.get(self.key))
            stale = key in self.ids
            if stale:
                listed.append(
                    {**_altered(item, self.factor, self.key, self.overrides.get(key, {})), "revision": 1}
                )
            listed.append({**item, "revision": 2 if stale else 1})
        return ToolResponse(response.status, with_records(response.body, records, listed))


class Archive:
    """Some records are no longer served by ``tool``: they moved to an archive that another tool reads.

    Params: ``tool`` (a get tool), ``argument`` (its id argument), ``moved`` (the archived ids),
    ``archive_tool`` (answered by this layer) and ``input_schema`` (the get tool's, which the archive tool
    shares).
    """

    name = "archive"

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.tool, self.argument = str(params["tool"]), str(params["argument"])
        self.params = params
        self.moved = frozenset(params["moved"])
        self.archive_tool = str(params["archive_tool"])
        self.tools = (
            ToolSpec(
                self.archive_tool,
                f"Read one archived record (records that {self.tool} no longer serves).",
                params["input_schema"],
            ),
        )

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Serve archived records from the archive tool only."""
        value = _argument(call, self.argument)
        if call.tool == self.archive_tool:
            if value not in self.moved:
                return error(404, f"no archived record with {self.argument}={value!r}")
            return forward(ToolCall(self.tool, call.arguments))
        if call.tool == self.tool and value in self.moved:
            return _refusal(
                404,
                "archived",
                f"{self.argument}={value!r} is no longer served by {self.tool}: it was archived",
                _guidance(
                    self.params,
                    f"read archived records with {self.archive_tool}",
                    {"tool": self.archive_tool, "arguments": {self.argument: value}},
                ),
            )
        return forward(call)


class Sessions:
    """Calls to ``tools`` need a ``session`` from ``open_tool``; a session expires after ``ttl`` calls.

    Params: ``tools``, ``open_tool``, ``ttl``, and optionally ``token`` with ``token_hint`` (opening a
    session then needs that credential).
    """

    name = "sessions"

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.params = params
        self.open_tool, self.ttl = str(params["open_tool"]), int(params["ttl"])
        self.token, self.token_hint = params.get("token"), params.get("token_hint")
        self._rng = random.Random(seed)
        self._session: str | None = None
        self._left = 0
        properties = {"token": {"type": "string"}} if self.token else {}
        self.tools = (
            _call_spec(
                self.open_tool,
                f"Open a session for these tools: {', '.join(sorted(self.targets))}.",
                properties,
                sorted(properties),
            ),
        )

    def _open(self, call: ToolCall) -> ToolResponse:
        if self.token and str(call.arguments.get("token")) != self.token:
            guidance = _guidance(self.params, self.token_hint)
            return _refusal(401, "unauthenticated", "opening a session needs a valid `token`", guidance)
        self._session = f"ses-{self._rng.getrandbits(40):010x}"
        self._left = self.ttl
        return ToolResponse(200, {"session": self._session, "expires_after_calls": self.ttl})

    def _refusal(self, problem: str) -> ToolResponse:
        following = None if self.token else {"tool": self.open_tool, "arguments": {}}
        guidance = _guidance(self.params, f"open a session with {self.open_tool}", following)
        return _refusal(401, "session_required", problem, guidance)

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Open sessions, and check and count the session of every guarded call."""
        if call.tool == self.open_tool:
            return self._open(call)
        if call.tool not in self.targets:
            return forward(call)
        arguments = dict(call.arguments)
        given = arguments.pop("session", None)
        if given is None:
            return self._refusal("a session is required: pass `session`")
        if given != self._session or self._left <= 0:
            return self._refusal(
                f"session {given!r} has expired or is unknown (sessions last {self.ttl} calls)"
            )
        self._left -= 1
        return forward(ToolCall(call.tool, arguments))


class Quota:
    """``tool`` answers ``limit`` calls per episode; ``bulk_tool`` fetches many records in one call.

    Params: ``tool`` (a get tool), ``argument`` (its id argument), ``limit``, ``bulk_tool`` and
    ``input_schema`` (the get tool's: the bulk tool takes its other arguments, and ``ids``).
    """

    name = "quota"

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.tool, self.argument = str(params["tool"]), str(params["argument"])
        self.params = params
        self.limit, self.bulk_tool = int(params["limit"]), str(params["bulk_tool"])
        self._used = 0
        schema = dict(params["input_schema"])
        properties = {k: v for k, v in schema.get("properties", {}).items() if k != self.argument}
        required = [k for k in schema.get("required", []) if k != self.argument]
        properties["ids"] = {"type": "array", "items": {"type": "string"}, "minItems": 1}
        self.tools = (
            ToolSpec(
                self.bulk_tool,
                f"Fetch several records at once, each as {self.tool} returns it (ids: {self.argument}s).",
                {**schema, "properties": properties, "required": [*required, "ids"]},
            ),
        )

    def _bulk(self, call: ToolCall, forward: Handler) -> ToolResponse:
        found, errors = [], []
        rest = {k: v for k, v in call.arguments.items() if k != "ids"}
        for value in call.arguments["ids"]:
            response = forward(ToolCall(self.tool, {**rest, self.argument: value}))
            if response.is_error:
                errors.append({"id": value, "status": response.status, "error": response.body})
            else:
                found.append(response.body)
        return ToolResponse(200, {"items": found, "count": len(found), "errors": errors})

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Serve the bulk tool; count calls to the limited tool and refuse those over the quota."""
        if call.tool == self.bulk_tool:
            return self._bulk(call, forward)
        if call.tool != self.tool:
            return forward(call)
        self._used += 1
        if self._used > self.limit:
            value = _argument(call, self.argument)
            return _refusal(
                429,
                "quota_exceeded",
                f"the quota of {self.limit} calls to {self.tool} is used up",
                _guidance(
                    self.params,
                    f"fetch records with {self.bulk_tool}, which takes a list of ids",
                    {"tool": self.bulk_tool, "arguments": {"ids": [value]}},
                ),
            )
        return forward(call)


class ExportJobs:
    """A list tool runs as an asynchronous export: start a job, poll it until done, fetch the result.

    Params: ``tool``, ``input_schema`` (the list tool's), ``start_tool``, ``status_tool``, ``result_tool``
    and ``polls`` (how many status polls answer "pending" before the job is done).
    """

    name = "export_jobs"

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.tool, self.polls = str(params["tool"]), int(params["polls"])
        self.params = params
        self.start_tool, self.status_tool = str(params["start_tool"]), str(params["status_tool"])
        self.result_tool = str(params["result_tool"])
        self._jobs: dict[str, list[Any]] = {}  # job id -> [polls left, result body]
        job = {"job_id": {"type": "string"}}
        self.tools = (
            ToolSpec(
                self.start_tool,
                f"Start an export of {self.tool} (same arguments); returns a job_id.",
                params["input_schema"],
            ),
            _call_spec(self.status_tool, "The state of an export job: pending or done.", job, ["job_id"]),
            _call_spec(self.result_tool, "The result of a finished export job.", job, ["job_id"]),
        )

    def _start(self, call: ToolCall, forward: Handler) -> ToolResponse:
        response = forward(ToolCall(self.tool, call.arguments))
        if response.is_error:
            return response
        job_id = f"job-{len(self._jobs) + 1}"
        self._jobs[job_id] = [self.polls, response.body]
        return ToolResponse(200, {"job_id": job_id, "state": "pending"})

    def _status(self, job_id: str) -> ToolResponse:
        job = self._jobs[job_id]
        if job[0] > 0:
            job[0] -= 1
            return ToolResponse(
                200, {"job_id": job_id, "state": "pending", **_guidance(self.params, "poll again")}
            )
        return ToolResponse(200, {"job_id": job_id, "state": "done"})

    def _result(self, job_id: str) -> ToolResponse:
        if self._jobs[job_id][0] > 0:
            return _refusal(
                409,
                "job_not_finished",
                f"export {job_id} has not finished",
                _guidance(
                    self.params,
                    f"poll {self.status_tool} until its state is done",
                    {"tool": self.status_tool, "arguments": {"job_id": job_id}},
                ),
            )
        return ToolResponse(200, self._jobs[job_id][1])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Refuse the list tool with guidance; run the job tools."""
        if call.tool == self.start_tool:
            return self._start(call, forward)
        if call.tool in (self.status_tool, self.result_tool):
            job_id = str(call.arguments.get("job_id"))
            if job_id not in self._jobs:
                return error(404, f"no export job {job_id!r}")
            return self._status(job_id) if call.tool == self.status_tool else self._result(job_id)
        if call.tool == self.tool:
            hint = (
                f"start it with {self.start_tool} (same arguments), poll {self.status_tool} "
                f"until the state is done, then read {self.result_tool}"
            )
            following = {"tool": self.start_tool, "arguments": dict(call.arguments)}
            guidance = _guidance(self.params, hint, following)
            return _refusal(409, "export_required", f"{self.tool} now runs as an export job", guidance)
        return forward(call)


class BrokenTool:
    """``tool`` is misconfigured (503) until ``repair_tool`` resets it with the right code.

    Params: ``tool``, ``repair_tool``, ``code``, and optionally ``token`` with ``token_hint`` (the repair
    then needs that credential too).
    """

    name = "broken_tool"

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.tool, self.repair_tool, self.code = (
            str(params["tool"]),
            str(params["repair_tool"]),
            params["code"],
        )
        self.token, self.token_hint = params.get("token"), params.get("token_hint")
        self.params = params
        self._repaired = False
        properties: dict[str, Any] = {"reset_code": {"type": "string"}}
        if self.token:
            properties["token"] = {"type": "string"}
        self.tools = (
            _call_spec(
                self.repair_tool, f"Reset the configuration of {self.tool}.", properties, sorted(properties)
            ),
        )

    def _repair(self, call: ToolCall) -> ToolResponse:
        if self.token and str(call.arguments.get("token")) != self.token:
            guidance = _guidance(self.params, self.token_hint)
            return _refusal(401, "unauthenticated", "the repair needs a valid `token`", guidance)
        if call.arguments.get("reset_code") != self.code:
            return error(400, "wrong reset_code")
        self._repaired = True
        return ToolResponse(200, {"status": "repaired", "tool": self.tool})

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Run the repair tool; refuse the broken tool until it is repaired."""
        if call.tool == self.repair_tool:
            return self._repair(call)
        if call.tool != self.tool or self._repaired:
            return forward(call)
        hint = f"reset it with {self.repair_tool} using reset_code '{self.code}'"
        if self.token:
            hint += f"; the repair also needs a token ({self.token_hint})"
        following = None if self.token else {"tool": self.repair_tool, "arguments": {"reset_code": self.code}}
        guidance = _guidance(self.params, hint, following)
        return _refusal(
            503, "misconfigured", f"{self.tool} is misconfigured and cannot serve requests", guidance
        )


LINKS = "links"  # a record's links to the calls that read related resources ({relation: link})
SELF = "self"  # the relation of a record's link to its own full representation


def link(tool: str, arguments: Mapping[str, Any]) -> str:
    """A link to the call that reads a resource, written the way an API writes a URL: ``tool?arg=value``."""
    return f"{tool}?{urlencode({k: str(v) for k, v in arguments.items()})}"


def parse_link(text: Any) -> tuple[str, dict[str, str]] | None:
    """The tool and arguments of a :func:`link`, or None for anything else."""
    if not isinstance(text, str) or "?" not in text:
        return None
    tool, _, query = text.partition("?")
    arguments = dict(parse_qsl(query, keep_blank_values=True))
    return (tool, arguments) if tool and arguments else None


def _linked(record: Mapping[str, Any], relation: str, target: str) -> dict[str, Any]:
    links = record.get(LINKS)
    return {**record, LINKS: {**(links if isinstance(links, dict) else {}), relation: target}}


class Summaries:
    """List tools return record summaries (the key and a few fields) with a ``self`` link to the get
    call that returns the whole record, as list endpoints of real APIs do (ids and titles only).

    Params: ``tools`` (list tools), ``key`` (the records' key field), ``keep`` (the other fields a
    summary shows), ``get_tool`` and ``argument`` (its id argument).
    """

    name = "summaries"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.key, self.keep = str(params["key"]), (str(params["key"]), *params["keep"], LINKS)
        self.get_tool, self.argument = str(params["get_tool"]), str(params["argument"])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward, then cut each listed record down to its summary."""
        response = forward(call)
        if call.tool not in self.targets or response.is_error or records_key(response.body) is None:
            return response
        return _rewritten(response, self._summary)

    def _summary(self, record: dict[str, Any]) -> dict[str, Any]:
        if self.key not in record:
            return record
        summary = {name: record[name] for name in self.keep if name in record}
        return _linked(summary, SELF, link(self.get_tool, {self.argument: record[self.key]}))


class References:
    """A field naming a party (a sender, an owner, a vendor) holds the id of a directory entry instead,
    with a link to the call that reads the entry, as APIs that return ``user: "U123"`` do.

    Params: ``tools`` (every tool that returns the records), ``field``, ``refs`` ({value: entry id}),
    ``tool`` (the directory's get tool) and ``argument`` (its id argument).
    """

    name = "references"
    tools: Sequence[ToolSpec] = ()

    def __init__(self, params: Mapping[str, Any], seed: int) -> None:
        self.targets = frozenset(params["tools"])
        self.field, self.refs = str(params["field"]), dict(params["refs"])
        self.tool, self.argument = str(params["tool"]), str(params["argument"])

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Forward, then replace the field's values by their entries' ids."""
        response = forward(call)
        if call.tool not in self.targets or response.is_error:
            return response
        return _rewritten(response, self._referenced)

    def _referenced(self, record: dict[str, Any]) -> dict[str, Any]:
        value = record.get(self.field)
        if not isinstance(value, str) or value not in self.refs:
            return record
        entry = self.refs[value]
        return _linked({**record, self.field: entry}, self.field, link(self.tool, {self.argument: entry}))


MiddlewareFactory = Callable[[Mapping[str, Any], int], Middleware]

MIDDLEWARE: dict[str, MiddlewareFactory] = {
    layer.name: layer
    for layer in (
        TransientFailures,
        Pagination,
        RequireToken,
        RetiredTools,
        Attachments,
        EncodedFields,
        AliasIds,
        Decoys,
        Revisions,
        Archive,
        Sessions,
        Quota,
        ExportJobs,
        BrokenTool,
        Summaries,
        References,
    )
}


def make_middleware(name: str, params: Mapping[str, Any], seed: int) -> Middleware:
    """Build a registered middleware layer; unknown names get an error listing the known ones."""
    try:
        factory = MIDDLEWARE[name]
    except KeyError:
        raise UserInputError(f"unknown middleware {name!r}; expected one of {sorted(MIDDLEWARE)}") from None
    layer = factory(params, seed)
    layer.docs = dict(params.get("docs") or {})  # type: ignore[attr-defined]
    return layer
