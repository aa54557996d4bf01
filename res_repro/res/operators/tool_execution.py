"""Execution-dependency operators: what must be done, and in which order, before a tool answers."""

from __future__ import annotations

import copy
import random
from typing import Any, ClassVar

from res_repro.env.formats.tool_api import ToolDraft, ToolError
from res_repro.env.tools import ToolResponse
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators.base import Call, Family
from res_repro.res.operators.tool_common import (
    ToolOperator,
    add_argument,
    add_outer_layer,
    body_field,
    ensure_get_tool,
    failure,
    free_name,
    has_layer,
    has_tool,
    layer_params,
    layer_tools,
    list_tools,
    nullable,
    original_tools,
    prefixed_nodes,
    record_node,
    stood_in_for,
    strict,
    string_array,
    token,
    tool,
)

VAULT_SERVICE = "vault"
VAULT_TOOL = "vault_get_secret"
MAX_POLLS = 50


def _vault_hint(service: str, record: str) -> str:
    return f"the {service} token is stored in the vault: call {VAULT_TOOL} with id '{record}'"


def _fresh_secret_id(draft: ToolDraft, base: str) -> str:
    """``base``, or ``base-2``, ``base-3``... when the vault already holds a secret with that id."""
    stored = {s["id"] for s in draft.fixtures.get(VAULT_SERVICE, {}).get("secrets", [])}
    candidates = (base if n == 1 else f"{base}-{n}" for n in range(1, len(stored) + 2))
    return next(c for c in candidates if c not in stored)


def service_token(draft: ToolDraft, service: str) -> dict[str, Any] | None:
    """The ``require_token`` change guarding ``service``, if one was applied: its tools, token and vault
    record, read from the vault's secret for the service and the layer asking for that token."""
    for secret in draft.fixtures.get(VAULT_SERVICE, {}).get("secrets", []):
        if secret.get("service") != service:
            continue
        for layer in layer_params(draft, "require_token"):
            if layer.get("token") == secret.get("token"):
                return {"tools": layer["tools"], "token": secret["token"], "record": secret["id"]}
    return None


def _token_guarded(draft: ToolDraft, graph: DependencyGraph) -> dict[str, set[str]]:
    """For each service whose token the graph offers for composition, the tools that token guards."""
    guarded = {}
    for service in prefixed_nodes(graph, "token:"):
        found = service_token(draft, service)
        if found is not None:
            guarded[service] = set(found["tools"])
    return guarded


def _credential(draft: ToolDraft, service: str | None) -> dict[str, Any]:
    """The token params of a change composed on ``service``'s token (nulls when not composed)."""
    found = service_token(draft, service) if service else None
    if found is None:
        return {"token": None, "token_record": None}
    return {"token": found["token"], "token_record": found["record"]}


def _carried_token(arguments: dict[str, Any]) -> str:
    """The token a guarded call carries (added by the token change's adapter, which runs first)."""
    if "token" not in arguments:
        raise failure("a call of a token-guarded tool came without its token")
    return str(arguments["token"])


def _token_layer(params: dict[str, Any], service: str) -> dict[str, Any]:
    """Layer params asking for the composed credential (none when not composed)."""
    if not params["token"]:
        return {}
    return {"token": params["token"], "token_hint": _vault_hint(service, params["token_record"])}


def _first_edge(params: dict[str, Any], service: str, node: str, what: str, observed: str) -> Edge:
    if params["token"]:
        return Edge(f"token:{service}", node, f"composed: {what}")
    return Edge(OBSERVATION, node, observed)


class RequireToken(ToolOperator):
    """A service's tools demand a token kept in a vault record, which the error message points to."""

    name = "require_token"
    family = Family.EXECUTION_DEPENDENCIES
    description = "The listed tools of a service require a `token`; the token lives in a vault record."
    shown = ("tools", "record")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "tools": string_array(),
            "token": {"type": "string"},
            "record": {"type": "string"},
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a service whose original tools are not protected yet."""
        protected = layer_tools(draft, "require_token")
        open_tools = [
            t for t in original_tools(draft) if t.name not in protected and t.service != VAULT_SERVICE
        ]
        services = sorted({t.service for t in open_tools})
        if not services:
            return None
        service = rng.choice(services)
        return {
            "service": service,
            "tools": sorted(t.name for t in open_tools if t.service == service),
            "token": token(rng, service[:3]),
            "record": _fresh_secret_id(draft, f"cred-{service}"),
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Store the token in the vault, add the vault tool if needed, and guard the tools."""
        service, record_id = params["service"], params["record"]
        draft.collection(VAULT_SERVICE, "secrets").append(
            {
                "id": record_id,
                "service": service,
                "token": params["token"],
                "note": f"API token for {service}",
            }
        )
        ensure_get_tool(
            draft,
            VAULT_TOOL,
            VAULT_SERVICE,
            "secrets",
            "id",
            "Read one secret from the credential vault by id.",
        )
        for name in params["tools"]:
            add_argument(tool(draft, name), "token", {"type": "string"})
        layer = {
            "tools": params["tools"],
            "token": params["token"],
            "hint": _vault_hint(service, record_id),
            "next": {"tool": VAULT_TOOL, "arguments": {"id": record_id}},
        }
        docs = f"Requires `token`: {_vault_hint(service, record_id)}."
        add_outer_layer(draft, "require_token", layer, dict.fromkeys(params["tools"], docs))
        self.record_adapter(draft, params)
        secret = record_node(VAULT_SERVICE, "secrets", record_id, "token")
        return [
            Edge(OBSERVATION, secret, "the 401 error names the vault record"),
            Edge(secret, f"token:{service}", "the record holds the token"),
            Edge(f"token:{service}", GOAL, f"the {service} tools need the token"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The guard layer and the vault record both exist."""
        if not has_layer(draft, "require_token", token=params["token"]):
            return "no require_token layer with this token"
        secrets = draft.fixtures.get(VAULT_SERVICE, {}).get("secrets", [])
        return None if any(s["id"] == params["record"] for s in secrets) else "the vault record is missing"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Fetch the token from the vault once, then add it to every call of a guarded tool."""
        guarded = frozenset(params["tools"])
        cache: dict[str, str] = {}

        def authed(name: str, **arguments: Any) -> Any:
            if name not in guarded:
                return call(name, **arguments)
            if "token" not in cache:
                cache["token"] = str(body_field(call(VAULT_TOOL, id=params["record"]), "token"))
            return call(name, **arguments, token=cache["token"])

        return authed


class OpenSession(ToolOperator):
    """A service's tools need a session opened first; a session expires after a few calls."""

    name = "open_session"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "The service's `tools` need a `session` from `open_tool`, valid for `ttl` calls; then they answer "
        "401 and a new session must be opened. Composes on a token: opening then needs the service token "
        "(and the session guards only tools that token guards)."
    )
    shown = ("tools", "open_tool")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "tools": string_array(),
            "open_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "ttl": {"type": "integer", "minimum": 2},
            "token": nullable({"type": "string"}),
            "token_record": nullable({"type": "string"}),
        }
    )

    def shown_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """The shown params, and ``token`` as whether the call needs the service's token (as its schema
        shows), not the token itself."""
        return {**super().shown_params(params), "token": bool(params["token"])}

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a service, behind its token when an earlier change made one."""
        done = layer_tools(draft, "sessions")
        open_tools = [t for t in original_tools(draft) if t.name not in done and t.service != VAULT_SERVICE]
        services = sorted({t.service for t in open_tools})
        if not services:
            return None
        guarded = _token_guarded(draft, graph)
        composed = [s for s in services if guarded.get(s, set()) & {t.name for t in open_tools}]
        use_token = bool(composed)  # composition wins whenever a token fits
        service = rng.choice(composed if use_token else services)
        open_tool = free_name(draft, f"{service}_open_session", f"open_{service}_session")
        if open_tool is None:
            return None
        tools = {t.name for t in open_tools if t.service == service}
        return {
            "service": service,
            "tools": sorted(tools & guarded[service] if use_token else tools),
            "open_tool": open_tool,
            "ttl": rng.choice((3, 4, 5, 6)),
            **_credential(draft, service if use_token else None),
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the ``session`` argument and the session layer."""
        for name in params["tools"]:
            add_argument(tool(draft, name), "session", {"type": "string"})
        layer = {"tools": params["tools"], "open_tool": params["open_tool"], "ttl": params["ttl"]}
        docs = f"Requires `session` from {params['open_tool']}; a session lasts {params['ttl']} calls."
        add_outer_layer(
            draft,
            "sessions",
            {**layer, **_token_layer(params, params["service"])},
            dict.fromkeys(params["tools"], docs),
        )
        self.record_adapter(draft, params)
        service = params["service"]
        session = f"session:{params['open_tool']}"
        return [
            _first_edge(
                params, service, session, "opening a session needs the token", "the 401 names the tool"
            ),
            Edge(session, GOAL, f"the {service} tools need a live session"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The session layer is in the stack."""
        ok = has_layer(draft, "sessions", open_tool=params["open_tool"], tools=params["tools"])
        return None if ok else f"no sessions layer with {params['open_tool']}"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Open a session when needed and reopen it once a call finds it expired."""
        guarded = frozenset(params["tools"])
        state: dict[str, str] = {}

        def open_session(arguments: dict[str, Any]) -> str:
            extra = {"token": _carried_token(arguments)} if params["token"] else {}
            state["session"] = str(body_field(call(params["open_tool"], **extra), "session"))
            return state["session"]

        def sessioned(name: str, **arguments: Any) -> Any:
            if name not in guarded:
                return call(name, **arguments)
            try:
                return call(name, **arguments, session=state.get("session") or open_session(arguments))
            except ToolError as exc:
                if exc.response.status != 401 or "session" not in str(exc.response.body):
                    raise
            return call(name, **arguments, session=open_session(arguments))

        return sessioned


class CallQuota(ToolOperator):
    """A get tool answers only a few calls; a bulk tool fetches many records in one call."""

    name = "call_quota"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "A get tool answers `limit` calls per episode, then 429 naming `bulk_tool`, which takes a list of "
        "ids. Composes on tools earlier changes added (e.g. an attachment or alias tool)."
    )
    shown = ("tool", "argument", "bulk_tool")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "tool": {"type": "string"},
            "argument": {"type": "string"},
            "limit": {"type": "integer", "minimum": 0},
            "bulk_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "composed": nullable({"type": "string", "pattern": "^tool:"}),
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick an original get tool, or a get tool an earlier change added."""
        replaced = stood_in_for(draft)
        composed = [
            name
            for name in prefixed_nodes(graph, "tool:")
            if has_tool(draft, name) and tool(draft, name).operation == "get" and name not in replaced
        ]
        original = sorted(
            t.name
            for t in original_tools(draft)
            if t.operation == "get" and t.id_field in t.input_schema.get("properties", {})
        )
        if composed:  # composition wins whenever an earlier artifact fits
            name = rng.choice(composed)
            node: str | None = f"tool:{name}"
        elif original:
            name, node = rng.choice(original), None
        else:
            return None
        bulk_tool = free_name(draft, f"{name}_bulk", f"bulk_{name}")
        if bulk_tool is None:
            return None
        return {
            "tool": name,
            "argument": tool(draft, name).id_field,
            "limit": 0 if node else rng.choice((1, 2)),
            "bulk_tool": bulk_tool,
            "composed": node,
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the quota layer with its bulk tool."""
        schema = copy.deepcopy(tool(draft, params["tool"]).input_schema)
        layer = {k: params[k] for k in ("tool", "argument", "limit", "bulk_tool")}
        docs = (
            f"Limited to {params['limit']} calls per session (then 429); fetch several records at once "
            f"with {params['bulk_tool']}, whose ids are {params['argument']} values."
        )
        add_outer_layer(draft, "quota", {**layer, "input_schema": schema}, {params["tool"]: docs})
        self.record_adapter(draft, params)
        bulk = f"bulk:{params['bulk_tool']}"
        if params["composed"]:
            first = Edge(params["composed"], bulk, "composed: the added tool is rationed")
        else:
            first = Edge(OBSERVATION, bulk, "the 429 error names the bulk tool")
        return [first, Edge(bulk, GOAL, f"the records {params['tool']} no longer gives one by one")]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The quota layer is in the stack, rationing by an id argument the tool really takes (the bulk
        tool's ``ids`` stand for that argument's values: any other name would leave the advertised bulk
        call unable to name a record)."""
        if not has_layer(draft, "quota", tool=params["tool"], bulk_tool=params["bulk_tool"]):
            return f"no quota layer on {params['tool']}"
        schema = tool(draft, params["tool"]).input_schema
        if params["argument"] not in schema.get("properties", {}):
            return (
                f"{params['tool']} takes no argument {params['argument']!r} "
                f"(its arguments: {sorted(schema.get('properties', {}))})"
            )
        return None

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Fetch each record through the bulk tool; surface the get tool's own error when there is one."""

        def bulk(name: str, **arguments: Any) -> Any:
            if name != params["tool"]:
                return call(name, **arguments)
            rest = {k: v for k, v in arguments.items() if k != params["argument"]}
            body = call(params["bulk_tool"], **rest, ids=[str(arguments.get(params["argument"]))])
            items = body_field(body, "items")
            if body.get("errors") or len(items) != 1:
                errors = body.get("errors") or [{"status": 500, "error": body}]
                raise ToolError(ToolResponse(int(errors[0].get("status", 500)), errors[0].get("error")))
            return items[0]

        return bulk


class AsyncExport(ToolOperator):
    """A list tool becomes an asynchronous export: start a job, poll it until done, fetch the result."""

    name = "async_export"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "A list tool answers 409: its records come from an export job (`start_tool` with the same "
        "arguments, `status_tool` polled until done after `polls` pending answers, then `result_tool`). "
        "Composes on listings earlier changes added."
    )
    shown = ("tool", "start_tool", "status_tool", "result_tool")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "tool": {"type": "string"},
            "start_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "status_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "result_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "polls": {"type": "integer", "minimum": 0, "maximum": 10},
            "composed": nullable({"type": "string", "pattern": "^tool:"}),
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick an original list tool, or a listing an earlier change added."""
        replaced = stood_in_for(draft)
        listing = {t.name for t in list_tools(draft)}
        composed = [n for n in prefixed_nodes(graph, "tool:") if n in listing and n not in replaced]
        original = sorted(t.name for t in original_tools(draft) if t.name in listing)
        if composed:  # composition wins whenever an earlier artifact fits
            name = rng.choice(composed)
            node: str | None = f"tool:{name}"
        elif original:
            name, node = rng.choice(original), None
        else:
            return None
        names = [free_name(draft, f"{name}_export{suffix}") for suffix in ("", "_status", "_result")]
        if None in names:
            return None
        return {
            "tool": name,
            "start_tool": names[0],
            "status_tool": names[1],
            "result_tool": names[2],
            "polls": rng.randint(1, 3),
            "composed": node,
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the export layer (its start tool takes the list tool's arguments)."""
        schema = copy.deepcopy(tool(draft, params["tool"]).input_schema)
        layer = {k: v for k, v in params.items() if k != "composed"}
        docs = (
            f"Runs as an export job: start it with {params['start_tool']} (same arguments), poll "
            f"{params['status_tool']} until its state is done, then read {params['result_tool']}."
        )
        add_outer_layer(draft, "export_jobs", {**layer, "input_schema": schema}, {params["tool"]: docs})
        self.record_adapter(draft, params)
        job, done = f"job:{params['start_tool']}", f"export:{params['result_tool']}"
        if params["composed"]:
            first = Edge(params["composed"], job, "composed: the added listing runs as an export")
        else:
            first = Edge(OBSERVATION, job, "the 409 error names the export tool")
        return [
            first,
            Edge(job, done, "polling the job until it is done"),
            Edge(done, GOAL, f"the records of {params['tool']}"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The export layer is in the stack."""
        ok = has_layer(draft, "export_jobs", tool=params["tool"], start_tool=params["start_tool"])
        return None if ok else f"no export layer on {params['tool']}"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Start the export, poll it until done, and return its result."""

        def exported(name: str, **arguments: Any) -> Any:
            if name != params["tool"]:
                return call(name, **arguments)
            job = body_field(call(params["start_tool"], **arguments), "job_id")
            for _ in range(MAX_POLLS):
                if body_field(call(params["status_tool"], job_id=job), "state") == "done":
                    return call(params["result_tool"], job_id=job)
            raise failure(f"export {job} never finished")

        return exported


LAYER_TOOLS = {"quota": ("bulk_tool", "bulk", "tool"), "sessions": ("open_tool", "session", "tools")}
"""Layers whose tool a later repair can break: layer -> (its tool's param, graph node prefix, the param
naming the tool(s) it stands in front of)."""


def _layer_tools(draft: ToolDraft, graph: DependencyGraph) -> dict[str, tuple[str, str]]:
    """Tools that earlier quota and session changes added and the graph names: name -> (node, service)."""
    found = {}
    for layer, (param, prefix, _) in LAYER_TOOLS.items():
        for params in layer_params(draft, layer):
            node = f"{prefix}:{params[param]}"
            if node in graph.nodes:
                found[params[param]] = (node, _service_of(draft, params[param]))
    return found


def _service_of(draft: ToolDraft, name: str) -> str:
    """The service of a declared tool, or of the tool(s) an added bulk tool or session opener fronts."""
    if has_tool(draft, name):
        return tool(draft, name).service
    for layer, (param, _, fronted) in LAYER_TOOLS.items():
        for params in layer_params(draft, layer):
            if params[param] == name:
                front = params[fronted]
                return tool(draft, front if isinstance(front, str) else front[0]).service
    raise KeyError(name)


class RepairFirst(ToolOperator):
    """A tool is misconfigured (503, which retrying does not cure) until a repair call resets it."""

    name = "repair_first"
    family = Family.EXECUTION_DEPENDENCIES
    description = (
        "`tool` answers 503 'misconfigured' until `repair_tool` is called with the reset code the error "
        "names. Composes on a token (the repair then also needs the token that guards `tool`) or on the "
        "bulk tool or session opener an earlier change added (`composed`: its node; it is the broken tool)."
    )
    shown = ("tool", "repair_tool", "code")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "tool": {"type": "string"},
            "repair_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "code": {"type": "string"},
            "token": nullable({"type": "string"}),
            "token_record": nullable({"type": "string"}),
            "composed": nullable({"type": "string", "pattern": "^(bulk|session):"}),
        }
    )

    def shown_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """The shown params, and ``token`` as whether the call needs the service's token (as its schema
        shows), not the token itself."""
        return {**super().shown_params(params), "token": bool(params["token"])}

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a tool to break: one guarded by an earlier token, or a bulk tool or session opener an
        earlier change added, when there is one; else an original tool."""
        broken = {params["tool"] for params in layer_params(draft, "broken_tool")}
        candidates = [t for t in original_tools(draft) if t.name not in broken and t.service != VAULT_SERVICE]
        guarded = set().union(*_token_guarded(draft, graph).values())
        added = {name: found for name, found in _layer_tools(draft, graph).items() if name not in broken}
        options = [(t.name, t.service, True) for t in candidates if t.name in guarded]
        options += [(name, service, False) for name, (_, service) in added.items()]
        if not options:  # composition wins whenever a token or an added tool fits
            options = [(t.name, t.service, False) for t in candidates]
        if not options:
            return None
        name, service, use_token = rng.choice(sorted(options))
        repair_tool = free_name(draft, f"repair_{name}", f"{service}_repair_{name}")
        if repair_tool is None:
            return None
        return {
            "tool": name,
            "repair_tool": repair_tool,
            "code": token(rng, "RC"),
            **_credential(draft, service if use_token else None),
            "composed": added[name][0] if name in added else None,
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the broken-tool layer with its repair tool."""
        service = _service_of(draft, params["tool"])
        layer = {"tool": params["tool"], "repair_tool": params["repair_tool"], "code": params["code"]}
        docs = (
            f"When it reports a misconfiguration (503), reset it with {params['repair_tool']} using "
            f"reset_code '{params['code']}'"
            + (
                f"; the repair needs the token ({_vault_hint(service, params['token_record'])})."
                if params["token"]
                else "."
            )
        )
        add_outer_layer(
            draft, "broken_tool", {**layer, **_token_layer(params, service)}, {params["tool"]: docs}
        )
        self.record_adapter(draft, params)
        repaired = f"repaired:{params['tool']}"
        if params.get("composed"):
            first = Edge(params["composed"], repaired, "composed: the added tool is broken until repaired")
        else:
            first = _first_edge(
                params, service, repaired, "the repair needs the token", "the 503 names the repair"
            )
        return [first, Edge(repaired, GOAL, f"{params['tool']} answers again")]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The broken-tool layer is in the stack."""
        ok = has_layer(draft, "broken_tool", tool=params["tool"], code=params["code"])
        return None if ok else f"{params['tool']} is not broken"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Repair the tool before its first call."""
        state = {"repaired": False}

        def repaired(name: str, **arguments: Any) -> Any:
            if name == params["tool"] and not state["repaired"]:
                extra = {"token": _carried_token(arguments)} if params["token"] else {}
                call(params["repair_tool"], reset_code=params["code"], **extra)
                state["repaired"] = True
            return call(name, **arguments)

        return repaired
