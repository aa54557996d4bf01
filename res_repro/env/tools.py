"""Tools, the middleware stack, and the dispatcher that routes every tool call and audits it.

An agent sees only :class:`ToolSpec` (a name, a description and a JSON schema for the arguments) and
gets a :class:`ToolResponse` for each :class:`ToolCall`. Between the two sits a stack of middleware:
each layer may answer a call itself (a login tool, a rate limit), change it, or pass it on; the last
handler routes the call to a service. RES operators change an environment by adding layers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from jsonschema import Draft202012Validator

MAX_VERDICTS = 16384  # argument verdicts kept (a schema's key and a call's arguments each)
_VERDICTS: dict[tuple[str, str], str | None] = {}


def _exact_json(arguments: Mapping[str, Any]) -> str | None:
    """The JSON encoding of ``arguments`` in their order, when it decodes back to equal arguments (no
    tuples, non-string keys or other values JSON would change); else None."""
    try:
        encoded = json.dumps(arguments, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return encoded if json.loads(encoded) == arguments else None


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the agent sees it: ``input_schema`` is a JSON Schema object for the arguments."""

    name: str
    description: str
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})

    @cached_property
    def validator(self) -> Draft202012Validator:
        """A compiled validator for the arguments."""
        return Draft202012Validator(self.input_schema)

    @cached_property
    def _schema_key(self) -> str:
        return json.dumps(self.input_schema, sort_keys=True, default=str)

    def argument_error(self, arguments: Mapping[str, Any]) -> str | None:
        """The first schema violation of ``arguments`` as one line, or None when they are valid.

        The verdict depends on the schema and the arguments alone, so it is kept by their JSON
        encodings (arguments JSON carries exactly: a scaled environment's reference program makes the
        same calls at every depth, and every fresh environment builds its tools anew)."""
        encoded = _exact_json(arguments)
        if encoded is None:
            return self._first_violation(arguments)
        key = (self._schema_key, encoded)
        if key not in _VERDICTS:
            if len(_VERDICTS) >= MAX_VERDICTS:
                del _VERDICTS[next(iter(_VERDICTS))]  # the oldest entry
            _VERDICTS[key] = self._first_violation(arguments)
        return _VERDICTS[key]

    def _first_violation(self, arguments: Mapping[str, Any]) -> str | None:
        if self.validator.is_valid(arguments):
            return None
        error = next(iter(self.validator.iter_errors(arguments)))
        where = "/".join(str(part) for part in error.absolute_path) or "arguments"
        return f"{where}: {error.message}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form stored with a task."""
        return {"name": self.name, "description": self.description, "input_schema": dict(self.input_schema)}


@dataclass(frozen=True)
class ToolCall:
    """One call of one tool with its arguments."""

    tool: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResponse:
    """A tool's answer with an HTTP-like status: 2xx success, 4xx the caller's error, 5xx the service's."""

    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        """True for any status of 400 or more."""
        return self.status >= 400

    def text(self) -> str:
        """The body as the agent reads it: JSON, with the status prefixed on errors and headers appended."""
        body = self.body if isinstance(self.body, str) else json.dumps(self.body, ensure_ascii=False)
        if self.headers:
            body += "\n" + "\n".join(f"{key}: {value}" for key, value in self.headers.items())
        return f"error {self.status}: {body}" if self.is_error else body


def ok(body: Any) -> ToolResponse:
    """A 200 response."""
    return ToolResponse(200, body)


def error(status: int, message: str, **headers: str) -> ToolResponse:
    """An error response whose body is ``{"error": message}``."""
    return ToolResponse(status, {"error": message}, headers)


Handler = Callable[[ToolCall], ToolResponse]


class Middleware(Protocol):
    """One layer of the stack. ``tools`` are extra tools the layer itself answers (may be empty). A layer
    may also have ``docs`` ({tool: sentence}): what it documents about tools, added to their descriptions
    (how to recover from its errors, for a layer whose errors do not say)."""

    name: str

    @property
    def tools(self) -> Sequence[ToolSpec]:
        """Tools this layer adds to the environment."""
        ...

    def __call__(self, call: ToolCall, forward: Handler) -> ToolResponse:
        """Answer ``call`` or pass it (possibly changed) to ``forward``."""
        ...


@dataclass(frozen=True)
class AuditEntry:
    """One dispatched call, as graders and checks read it."""

    seq: int
    tool: str
    arguments: Mapping[str, Any]
    status: int
    response_bytes: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "seq": self.seq,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "status": self.status,
            "response_bytes": self.response_bytes,
            "seconds": self.seconds,
        }


def _layer(middleware: Middleware, forward: Handler) -> Handler:
    return lambda call: middleware(call, forward)


class Dispatcher:
    """Routes calls through the middleware stack to the services, validating and auditing each one.

    ``routes`` maps a service tool's name to its handler; ``middleware`` is listed outermost first.
    Calls to unknown tools get a 404 and calls with arguments that break the tool's schema a 400, both
    recorded in the audit log like any other call.
    """

    def __init__(
        self, specs: Sequence[ToolSpec], routes: Mapping[str, Handler], middleware: Sequence[Middleware] = ()
    ) -> None:
        self.audit: list[AuditEntry] = []
        self._specs = {spec.name: spec for spec in specs}
        for layer in middleware:
            self._specs.update((spec.name, spec) for spec in layer.tools)
        for layer in reversed(middleware):  # the oldest layer's documentation first
            for name, text in getattr(layer, "docs", {}).items():
                if name in self._specs:
                    spec = self._specs[name]
                    described = f"{spec.description.rstrip()} {text}".strip()
                    self._specs[name] = ToolSpec(spec.name, described, spec.input_schema)
        self._routes = dict(routes)
        handler: Handler = self._route
        for layer in reversed(middleware):
            handler = _layer(layer, handler)
        self._handler = handler

    @property
    def specs(self) -> list[ToolSpec]:
        """Every tool the agent can call: the services' and the middleware's."""
        return list(self._specs.values())

    def _route(self, call: ToolCall) -> ToolResponse:
        route = self._routes.get(call.tool)
        if route is None:
            return error(404, f"unknown tool {call.tool!r}")
        return route(call)

    def dispatch(self, call: ToolCall) -> ToolResponse:
        """Validate, run through the stack, record in the audit log, and return the response."""
        started = time.perf_counter()
        spec = self._specs.get(call.tool)
        if spec is None:
            response = error(404, f"unknown tool {call.tool!r}; available: {sorted(self._specs)}")
        else:
            problem = spec.argument_error(call.arguments)
            response = error(400, f"invalid arguments: {problem}") if problem else self._handler(call)
        size = len(json.dumps(response.body, ensure_ascii=False, default=str))
        self.audit.append(
            AuditEntry(
                seq=len(self.audit),
                tool=call.tool,
                arguments=dict(call.arguments),
                status=response.status,
                response_bytes=size,
                seconds=time.perf_counter() - started,
            )
        )
        return response
