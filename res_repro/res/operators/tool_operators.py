"""Operators that change tool-API environments through middleware, tools and fixtures."""

from __future__ import annotations

import copy
import random
from typing import Any, ClassVar

from res_repro.env.tool_task import ToolDef
from res_repro.res.drafts import ToolDraft
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators.base import Call, Family, Operator
from res_repro.res.operators.tool_common import (
    add_argument,
    add_outer_layer,
    has_layer,
    list_tools,
    token,
    tool,
)

VAULT_SERVICE = "vault"


def _string_array(minimum: int = 1) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "minItems": minimum}


class Paginate(Operator):
    """List results come a page at a time; the rest hides behind ``next_cursor``."""

    name = "paginate"
    family = Family.INFORMATION_ACCESS
    kind = "tool"
    description = "A list or search tool returns pages of `page_size` items with a `next_cursor`."
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"tool": {"type": "string"}, "page_size": {"type": "integer", "minimum": 1}},
        "required": ["tool", "page_size"],
        "additionalProperties": False,
    }

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a list tool not paginated yet."""
        free = [t.name for t in list_tools(draft) if not has_layer(draft, self.name, tools=[t.name])]
        if not free:
            return None
        return {"tool": rng.choice(sorted(free)), "page_size": rng.choice((1, 2))}

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the pagination layer and the ``cursor`` argument."""
        add_outer_layer(draft, "pagination", {"tools": [params["tool"]], "page_size": params["page_size"]})
        add_argument(tool(draft, params["tool"]), "cursor", {"type": "string"})
        draft.add_adapter(self.name, params)
        pages = f"pages:{params['tool']}"
        return [
            Edge(OBSERVATION, pages, "the first page returns next_cursor"),
            Edge(pages, GOAL, "all items"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer is in the stack."""
        ok = has_layer(draft, "pagination", tools=[params["tool"]])
        return None if ok else f"no pagination layer on {params['tool']}"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Follow cursors and return every page's items together."""

        def paged(name: str, **arguments: Any) -> Any:
            body = call(name, **arguments)
            if name != params["tool"]:
                return body
            items = list(body["items"])
            while body.get("next_cursor"):
                body = call(name, **arguments, cursor=body["next_cursor"])
                items.extend(body["items"])
            return {**body, "items": items, "count": len(items), "next_cursor": None}

        return paged


class RequireToken(Operator):
    """A service's tools demand a token kept in a vault record, which the error message points to."""

    name = "require_token"
    family = Family.EXECUTION_DEPENDENCIES
    kind = "tool"
    description = "The listed tools of a service require a `token`; the token lives in a vault record."
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "service": {"type": "string"},
            "tools": _string_array(),
            "token": {"type": "string"},
            "record": {"type": "string"},
        },
        "required": ["service", "tools", "token", "record"],
        "additionalProperties": False,
    }

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a service whose tools are not protected yet."""
        protected = {
            name
            for layer in draft.config.middleware
            if layer.name == "require_token"
            for name in layer.params["tools"]
        }
        open_tools = [t for t in draft.config.tools if t.name not in protected and t.service != VAULT_SERVICE]
        services = sorted({t.service for t in open_tools})
        if not services:
            return None
        service = rng.choice(services)
        return {
            "service": service,
            "tools": sorted(t.name for t in open_tools if t.service == service),
            "token": token(rng, service[:3]),
            "record": f"cred-{service}",
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
        if not any(t.name == "vault_get_secret" for t in draft.config.tools):
            draft.config.tools.append(
                ToolDef(
                    name="vault_get_secret",
                    description="Read one secret from the credential vault by id.",
                    input_schema={
                        "type": "object",
                        "properties": {"id": {"type": "string"}},
                        "required": ["id"],
                        "additionalProperties": False,
                    },
                    service=VAULT_SERVICE,
                    operation="get",
                    collection="secrets",
                )
            )
        for name in params["tools"]:
            add_argument(tool(draft, name), "token", {"type": "string"})
        hint = f"the {service} token is stored in the vault: call vault_get_secret with id '{record_id}'"
        add_outer_layer(
            draft, "require_token", {"tools": params["tools"], "token": params["token"], "hint": hint}
        )
        draft.add_adapter(self.name, params)
        secret = f"record:{VAULT_SERVICE}/secrets/{record_id}"
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
                cache["token"] = call("vault_get_secret", id=params["record"])["token"]
            return call(name, **arguments, token=cache["token"])

        return authed


class SupersededCopies(Operator):
    """Near-copies of records that a stated rule says to ignore: they look valid but are not."""

    name = "superseded_copies"
    family = Family.RESOURCE_RELATIONS
    kind = "tool"
    description = "Adds altered copies of records marked `status: superseded`; a policy says to ignore them."
    params_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "ids": _string_array(),
            "factor": {"type": "number"},
        },
        "required": ["service", "collection", "ids", "factor"],
        "additionalProperties": False,
    }

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a listed collection and a few of its records."""
        pairs = sorted({(t.service, t.collection) for t in list_tools(draft) if t.service != VAULT_SERVICE})
        rng.shuffle(pairs)
        for service, collection in pairs:
            records = [
                r
                for r in draft.fixtures[service].get(collection, [])
                if "id" in r and r.get("status") != "superseded"
            ]
            if records:
                chosen = rng.sample(records, k=min(len(records), rng.choice((1, 2, 3))))
                return {
                    "service": service,
                    "collection": collection,
                    "ids": [str(r["id"]) for r in chosen],
                    "factor": rng.choice((1.5, 2.0, 0.5)),
                }
        return None

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Insert the copies next to their originals and publish the rule as a policy record."""
        records = draft.fixtures[params["service"]][params["collection"]]
        for original_id in params["ids"]:
            index = next(i for i, r in enumerate(records) if str(r.get("id")) == original_id)
            copy_record = _altered(records[index], params["factor"])
            copy_record.update(
                {"id": f"{original_id}-S", "status": "superseded", "superseded_by": original_id}
            )
            records.insert(index + 1, copy_record)
        where = f"{params['service']}/{params['collection']}"
        policy = f"Records with status 'superseded' in {where} are obsolete drafts: ignore them."
        draft.collection(params["service"], "policies").append(
            {"id": f"policy-{params['collection']}", "text": policy}
        )
        _ensure_policy_tool(draft, params["service"])
        draft.add_adapter(self.name, params)
        rule = f"rule:{params['service']}/{params['collection']}/superseded"
        return [
            Edge(OBSERVATION, rule, "the policy tool states the rule"),
            Edge(rule, GOAL, "the rule decides which records count"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """Every copy is present."""
        ids = {str(r.get("id")) for r in draft.fixtures[params["service"]][params["collection"]]}
        missing = [i for i in params["ids"] if f"{i}-S" not in ids]
        return f"copies missing for {missing}" if missing else None

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Drop superseded records from list results of the collection."""

        def filtered(name: str, **arguments: Any) -> Any:
            body = call(name, **arguments)
            if isinstance(body, dict) and isinstance(body.get("items"), list):
                kept = [
                    r
                    for r in body["items"]
                    if not (
                        isinstance(r, dict)
                        and str(r.get("id", "")).endswith("-S")
                        and r.get("status", "superseded") == "superseded"
                    )
                ]
                return {**body, "items": kept, "count": len(kept)}
            return body

        return filtered


def _superseded(record: Any) -> bool:
    return isinstance(record, dict) and record.get("status") == "superseded" and "superseded_by" in record


def _altered(record: dict[str, Any], factor: float) -> dict[str, Any]:
    """A copy with every numeric field scaled (so counting it changes totals)."""
    altered = copy.deepcopy(record)
    for key, value in record.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "id":
            altered[key] = round(value * factor, 2)
    return altered


def _ensure_policy_tool(draft: ToolDraft, service: str) -> None:
    name = f"{service}_list_policies"
    if any(t.name == name for t in draft.config.tools):
        return
    draft.config.tools.append(
        ToolDef(
            name=name,
            description=f"List the data policies of the {service} service.",
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
            service=service,
            operation="list",
            collection="policies",
        )
    )


TOOL_OPERATORS: tuple[Operator, ...] = (Paginate(), RequireToken(), SupersededCopies())
