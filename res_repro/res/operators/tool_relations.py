"""Resource-relation operators: how records refer to each other, which copy counts, and where they live."""

from __future__ import annotations

import copy
import random
import re
from typing import Any, ClassVar

from res_repro.env.formats.tool_api import ToolDef, ToolDraft, ToolError
from res_repro.env.middleware import LINKS, SELF, records_key, with_records
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators.base import Call, Family
from res_repro.res.operators.tool_common import (
    DATE_LIKE,
    NOTE_FIELDS,
    ToolOperator,
    add_outer_layer,
    add_policy,
    body_field,
    ensure_get_tool,
    free_name,
    has_layer,
    has_policy,
    has_tool,
    key_field,
    layer_params,
    layer_tools,
    listed_collections,
    lookalike,
    nullable,
    original_tools,
    other_values,
    pick_share,
    record_getter,
    record_keys,
    record_node,
    record_nodes,
    record_tools,
    reference_words,
    released_tools,
    resolve_links,
    rewritten_fields,
    stood_in_for,
    strict,
    string_array,
    string_map,
    tool,
    unique_ids,
    written_fields,
)

MARKER = "record_state"
MOVED_NODES = 5  # moved records an archive change offers later changes to build on
OVERRIDES = {"type": "object", "additionalProperties": {"type": "object"}}  # {key: {field: value}}


def _rewritten_in(draft: ToolDraft, tools: list[str]) -> set[str]:
    """The fields an earlier change rewrites in what ``tools`` return."""
    return {field for name, field in rewritten_fields(draft) if name in tools}


class SupersededCopies(ToolOperator):
    """Near-copies of records that a stated rule says to ignore: they look valid but are not."""

    name = "superseded_copies"
    family = Family.RESOURCE_RELATIONS
    description = (
        "List tools also show, just before some records, altered copies (fresh look-alike keys, numbers "
        "scaled by `factor`, id and address fields from `overrides`) marked `record_state: superseded`; "
        "a policy says to ignore them. The get tool serves the copies too."
    )
    shown = ("tools",)
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "key": {"type": "string"},
            "tools": string_array(),
            "get_tool": {"type": "string"},
            "copies": string_map(),
            "factor": {"type": "number", "exclusiveMinimum": 0},
            "overrides": OVERRIDES,
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a listed collection and about half of its records."""
        candidates = listed_collections(draft, "decoys")
        if not candidates:
            return None
        service, collection, key, tools, getter = rng.choice(candidates)
        keys = record_keys(draft, service, collection, key)
        taken = set(keys)
        copies = {}
        for original in pick_share(rng, keys):
            copies[original] = lookalike(rng, original, taken)
            taken.add(copies[original])
        records = draft.fixtures[service][collection]
        return {
            "service": service,
            "collection": collection,
            "key": key,
            "tools": tools,
            "get_tool": getter.name,
            "copies": copies,
            "factor": rng.choice((1.5, 2.0, 0.5)),
            "overrides": other_values(rng, records, key, list(copies), _rewritten_in(draft, tools)),
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the layer serving the copies and publish the rule as a policy record."""
        layer = {k: params[k] for k in ("tools", "key", "copies", "factor", "overrides", "get_tool")}
        add_outer_layer(draft, "decoys", {**layer, "argument": params["key"]})
        where = f"{params['service']}/{params['collection']}"
        policy = (
            f"Records with {MARKER} 'superseded' in {where} are obsolete copies of the record named by "
            "superseded_by: ignore them."
        )
        add_policy(draft, params["service"], f"policy-superseded-{params['collection']}", policy)
        self.record_adapter(draft, params)
        rule = f"rule:{where}/superseded"
        return [
            Edge(OBSERVATION, rule, "the policy tool states the rule"),
            Edge(rule, GOAL, "the rule decides which records count"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer and the policy are there."""
        if not has_layer(draft, "decoys", tools=params["tools"], copies=params["copies"]):
            return "no decoys layer with these copies"
        policy = f"policy-superseded-{params['collection']}"
        return None if has_policy(draft, params["service"], policy) else "the policy record is missing"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Drop the records the listing marks superseded (the published policy's rule)."""

        def filtered(name: str, **arguments: Any) -> Any:
            body = call(name, **arguments)
            records = records_key(body)
            if name not in params["tools"] or records is None:
                return body
            kept = [r for r in body[records] if not (isinstance(r, dict) and r.get(MARKER) == "superseded")]
            return with_records(body, records, kept)

        return filtered


class StaleRevisions(ToolOperator):
    """List tools show an older revision of some records next to the current one; the highest counts."""

    name = "stale_revisions"
    family = Family.RESOURCE_RELATIONS
    description = (
        "List tools show each record with a `revision`; some records appear twice, an older revision "
        "(numbers scaled by `factor`, id and address fields from `overrides`) before the current one. "
        "A policy says the highest revision wins."
    )
    shown = ("tools", "key")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "key": {"type": "string"},
            "tools": string_array(),
            "ids": string_array(),
            "factor": {"type": "number", "exclusiveMinimum": 0},
            "overrides": OVERRIDES,
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a listed collection and about half of its records."""
        candidates = listed_collections(draft, "revisions")
        if not candidates:
            return None
        service, collection, key, tools, _ = rng.choice(candidates)
        ids = pick_share(rng, record_keys(draft, service, collection, key))
        return {
            "service": service,
            "collection": collection,
            "key": key,
            "tools": tools,
            "ids": ids,
            "factor": rng.choice((1.25, 0.8, 2.0)),
            "overrides": other_values(
                rng, draft.fixtures[service][collection], key, ids, _rewritten_in(draft, tools)
            ),
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the layer listing the stale revisions and publish the precedence rule."""
        layer = {k: params[k] for k in ("tools", "key", "ids", "factor", "overrides")}
        add_outer_layer(draft, "revisions", layer)
        where = f"{params['service']}/{params['collection']}"
        policy = (
            f"Listings of {where} may show one record (same {params['key']}) in several revisions: only the "
            "highest revision is current; older revisions are obsolete."
        )
        add_policy(draft, params["service"], f"policy-revisions-{params['collection']}", policy)
        self.record_adapter(draft, params)
        rule = f"rule:{where}/latest-revision"
        return [
            Edge(OBSERVATION, rule, "the policy tool states the precedence rule"),
            Edge(rule, GOAL, "the rule decides which revision counts"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer and the policy are there."""
        if not has_layer(draft, "revisions", tools=params["tools"], ids=params["ids"]):
            return "no revisions layer for these records"
        policy = f"policy-revisions-{params['collection']}"
        return None if has_policy(draft, params["service"], policy) else "the policy record is missing"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Keep only the highest revision of each record, without the revision field."""
        key = params["key"]

        def latest(name: str, **arguments: Any) -> Any:
            body = call(name, **arguments)
            records = records_key(body)
            if name not in params["tools"] or records is None:
                return body
            best: dict[str, int] = {}
            for record in body[records]:
                if isinstance(record, dict):
                    best[str(record.get(key))] = max(
                        best.get(str(record.get(key)), 0), record.get("revision", 0)
                    )
            kept = [
                {k: v for k, v in r.items() if k != "revision"}
                for r in body[records]
                if isinstance(r, dict) and r.get("revision", 0) == best[str(r.get(key))]
            ]
            return with_records(body, records, kept)

        return latest


class AliasIds(ToolOperator):
    """Records are addressed by alias ids: a real id gets 404, and a mapping tool gives the alias."""

    name = "alias_ids"
    family = Family.RESOURCE_RELATIONS
    description = (
        "The `tools` that address a collection's records by `argument` accept only alias ids; "
        "`resolve_tool` maps a real id (argument `ref`) to its alias. Composes on earlier records "
        "(e.g. the vault record of a token)."
    )
    shown = ("tools", "argument", "resolve_tool")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "argument": {"type": "string"},
            "tools": string_array(),
            "aliases": string_map(),
            "resolve_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "composed": nullable({"type": "string", "pattern": "^record:"}),
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a get tool of an original collection, or the getter of a record an earlier change added."""
        composed = self._composed(draft, graph)
        original = [t for t in original_tools(draft) if t.operation == "get" and self._fits(draft, t)]
        if composed:  # composition wins whenever an earlier artifact fits
            getter, node = rng.choice(composed)
        elif original:
            getter, node = rng.choice(sorted(original, key=lambda t: t.name)), None
        else:
            return None
        resolve_tool = free_name(
            draft, f"resolve_{getter.collection}_alias", f"{getter.service}_resolve_{getter.collection}_alias"
        )
        if resolve_tool is None:
            return None
        keys = record_keys(draft, getter.service, getter.collection, getter.id_field)
        addressing = sorted(
            t.name
            for t in draft.config.tools
            if (t.service, t.collection, t.id_field) == (getter.service, getter.collection, getter.id_field)
            and t.operation in ("get", "update")
        )
        return {
            "service": getter.service,
            "collection": getter.collection,
            "argument": getter.id_field,
            "tools": addressing,
            "aliases": dict(zip(keys, unique_ids(rng, "AL", len(keys)), strict=True)),
            "resolve_tool": resolve_tool,
            "composed": node,
        }

    @staticmethod
    def _fits(draft: ToolDraft, getter: ToolDef) -> bool:
        """The getter is reached directly, its records all have a key, and no alias layer covers it yet."""
        if (
            getter.name in stood_in_for(draft)
            or key_field(draft, getter.service, getter.collection) != getter.id_field
        ):
            return False
        return getter.name not in layer_tools(draft, "alias_ids")

    def _composed(self, draft: ToolDraft, graph: DependencyGraph) -> list[tuple[ToolDef, str]]:
        found = []
        for target in record_nodes(graph):
            getter = record_getter(draft, target.service, target.collection, target.key)
            if getter is not None and self._fits(draft, getter):
                found.append((getter, target.node))
        return found

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Store the alias map, add the resolve tool and the layer that refuses real ids."""
        service, collection = params["service"], params["collection"]
        mapping = f"{collection}_aliases"
        store = draft.collection(service, mapping)
        store.extend({"ref": real, "alias": alias} for real, alias in params["aliases"].items())
        ensure_get_tool(
            draft,
            params["resolve_tool"],
            service,
            mapping,
            "ref",
            f"The alias id of a {collection} record, by its real id (ref).",
        )
        layer = {
            "tools": params["tools"],
            "argument": params["argument"],
            "aliases": {alias: real for real, alias in params["aliases"].items()},
            "resolve_tool": params["resolve_tool"],
        }
        docs = f"Addresses records by alias id; look up the alias of an id with {params['resolve_tool']}."
        add_outer_layer(draft, "alias_ids", layer, dict.fromkeys(params["tools"], docs))
        self.record_adapter(draft, params)
        resolver, aliases = f"tool:{params['resolve_tool']}", f"alias:{service}/{collection}"
        edges = [
            Edge(OBSERVATION, resolver, "the 404 error names the resolve tool"),
            Edge(resolver, aliases, "the tool maps real ids to aliases"),
        ]
        if params["composed"]:
            key = params["composed"].partition("#")[0].rsplit("/", 1)[1]
            alias_record = record_node(service, mapping, key, "alias")
            return [
                *edges,
                Edge(aliases, alias_record, "the alias of the record"),
                Edge(alias_record, params["composed"], "composed: the record is served by its alias only"),
            ]
        return [*edges, Edge(aliases, GOAL, f"the {collection} records, by alias")]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer, the resolve tool and the alias map are there."""
        if not has_layer(draft, "alias_ids", tools=params["tools"], resolve_tool=params["resolve_tool"]):
            return "no alias layer"
        if not has_tool(draft, params["resolve_tool"]):
            return f"no tool {params['resolve_tool']}"
        stored = draft.fixtures[params["service"]].get(f"{params['collection']}_aliases", [])
        return None if len(stored) >= len(params["aliases"]) else "the alias map is incomplete"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Resolve each real id to its alias (once) before calling a tool that needs aliases."""
        tools, argument = frozenset(params["tools"]), params["argument"]
        aliases: dict[str, str] = {}

        def alias_of(real: str) -> str:
            if real not in aliases:
                try:
                    aliases[real] = str(body_field(call(params["resolve_tool"], ref=real), "alias"))
                except ToolError as exc:
                    if exc.response.status != 404:
                        raise
                    aliases[real] = real  # not an aliased record (e.g. one created since)
            return aliases[real]

        def aliased(name: str, **arguments: Any) -> Any:
            if name in tools and arguments.get(argument) is not None:
                arguments[argument] = alias_of(str(arguments[argument]))
            return call(name, **arguments)

        return aliased


class ArchiveRecords(ToolOperator):
    """Records split across two services: some are no longer served by their get tool but by an archive."""

    name = "archive_records"
    family = Family.RESOURCE_RELATIONS
    description = (
        "About half of a get tool's records (`moved`) answer 404 there; they are served by `archive_tool` "
        "(same id argument), which the error names."
    )
    shown = ("tool", "archive_tool")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "tool": {"type": "string"},
            "argument": {"type": "string"},
            "moved": string_array(),
            "archive_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick an original get tool and about half of its records."""
        aliased = layer_tools(draft, "alias_ids")
        getters = sorted(
            (
                t
                for t in original_tools(draft)
                if t.operation == "get"
                and t.name not in aliased
                and key_field(draft, t.service, t.collection) == t.id_field
            ),
            key=lambda t: t.name,
        )
        if not getters:
            return None
        getter = rng.choice(getters)
        archive_tool = free_name(draft, f"archive_{getter.name}", f"{getter.service}_archive_{getter.name}")
        if archive_tool is None:
            return None
        keys = record_keys(draft, getter.service, getter.collection, getter.id_field)
        return {
            "tool": getter.name,
            "argument": getter.id_field,
            "moved": pick_share(rng, keys),
            "archive_tool": archive_tool,
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the archive layer (its archive tool takes the get tool's arguments)."""
        schema = copy.deepcopy(tool(draft, params["tool"]).input_schema)
        docs = f"Archived records are no longer served here (404): read them with {params['archive_tool']}."
        add_outer_layer(draft, "archive", {**params, "input_schema": schema}, {params["tool"]: docs})
        self.record_adapter(draft, params)
        archive, getter = f"archive:{params['tool']}", tool(draft, params["tool"])
        edges = [Edge(OBSERVATION, archive, "the 404 error names the archive tool")]
        for key in params["moved"][
            :MOVED_NODES
        ]:  # the task's records that moved: later changes build on them
            moved = record_node(getter.service, getter.collection, key)
            edges += [
                Edge(archive, moved, "the archive serves the record"),
                Edge(moved, GOAL, "an archived record"),
            ]
        return edges

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer is in the stack."""
        ok = has_layer(draft, "archive", tool=params["tool"], archive_tool=params["archive_tool"])
        return None if ok else f"no archive layer on {params['tool']}"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Read a record the get tool no longer serves (404) from the archive tool its documentation
        names, with the same arguments."""

        def archived(name: str, **arguments: Any) -> Any:
            try:
                return call(name, **arguments)
            except ToolError as exc:
                if name != params["tool"] or exc.response.status != 404:
                    raise
            return call(params["archive_tool"], **arguments)

        return archived


DIRECTORIES = ("directory", "party_directory", "res_directory")  # names for the service keeping parties


def _directory(draft: ToolDraft) -> str | None:
    """The service that keeps the parties: the one an earlier change made, else the first name of
    :data:`DIRECTORIES` that is not one of the task's own services."""
    made = {
        tool(draft, p["tool"]).service
        for p in layer_params(draft, "references")
        if has_tool(draft, p["tool"])
    }
    if made:
        return min(made)
    own = {t.service for t in released_tools(draft)} | set(draft.fixtures)
    return next((name for name in DIRECTORIES if name not in own), None)


PARTY_CHARS = 80  # longer texts (bodies, notes) are content, not a party
PARTY_WORDS = frozenset(
    {
        "author",
        "assignee",
        "assigned",
        "owner",
        "contact",
        "person",
        "company",
        "from",
        "to",
        "sender",
        "recipient",
        "organizer",
        "reporter",
        "requester",
        "approved",
        "approver",
        "customer",
        "employee",
        "vendor",
        "supplier",
        "merchant",
        "manager",
        "department",
        "team",
        "account",
        "client",
        "payee",
        "counterparty",
    }
)
BARE_ID = re.compile(r"^[A-Za-z]+[-_]?\d+$")  # values that are already ids


def _party_fields(draft: ToolDraft, service: str, collection: str, key: str) -> list[str]:
    """Fields of a collection naming a party (a person, team or organisation, by the field's name:
    ``from``, ``assignee``, ``vendor``, ``contact_email``): short texts, not dates or ids, that no tool
    writes."""
    records = draft.fixtures[service][collection]
    skip = {key} | written_fields(draft, service, collection) | NOTE_FIELDS
    found = []
    for name in sorted(records[0]):
        values = [r.get(name) for r in records]
        if name in skip or not PARTY_WORDS.intersection(name.lower().split("_")):
            continue
        if not all(isinstance(v, str) and v.strip() and len(v) <= PARTY_CHARS for v in values):
            continue
        if not any(DATE_LIKE.match(v) or BARE_ID.match(v) for v in values):
            found.append(name)
    return found


class PartyReferences(ToolOperator):
    """A field naming a party (sender, owner, vendor, assignee) holds a directory entry's id instead."""

    name = "party_references"
    family = Family.RESOURCE_RELATIONS
    alters = ("tools",)  # ``tool`` is the directory's new tool
    description = (
        "Records returned by `tools` name a party in `field` by the id of an entry kept by a directory "
        "service (`directory`, one entry per distinct party, `refs`), with a `links` entry to the call "
        "reading it (`tool`, argument `argument`). Later changes compose on the entries."
    )
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "field": {"type": "string"},
            "tools": string_array(),
            "refs": string_map(),
            "tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "argument": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "directory": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a party field of an original collection that no change rewrites yet."""
        rewritten, directory = rewritten_fields(draft), _directory(draft)
        if directory is None:
            return None
        candidates = []
        for service, collection in sorted({(t.service, t.collection) for t in released_tools(draft)}):
            key = key_field(draft, service, collection)
            tools = record_tools(draft, service, collection)
            if key is None or not tools or service == directory:
                continue
            for field in _party_fields(draft, service, collection, key):
                if not any((name, field) in rewritten for name in tools):
                    candidates.append((service, collection, field, tools))
        read = reference_words(draft)
        candidates = [c for c in candidates if c[2] in read] or candidates  # what the reference relies on
        if not candidates:
            return None
        service, collection, field, tools = rng.choice(candidates)
        slug = re.sub(r"[^a-z0-9]+", "_", field.lower()).strip("_") or "party"
        tool_name = free_name(draft, f"{directory}_get_{slug}", f"{directory}_get_{collection}_{slug}")
        if tool_name is None:
            return None
        parties = sorted({str(r[field]) for r in draft.fixtures[service][collection]})
        prefix = (re.sub(r"[^A-Z]", "", slug.upper()) or "P")[:2]
        return {
            "service": service,
            "collection": collection,
            "directory": directory,
            "field": field,
            "tools": tools,
            "refs": dict(zip(parties, unique_ids(rng, prefix, len(parties)), strict=True)),
            "tool": tool_name,
            "argument": f"{slug}_id",
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Store the directory entries, add the directory's get tool and the layer that refers to them."""
        field, argument, entries = params["field"], params["argument"], self._entries(params)
        draft.collection(params["directory"], entries).extend(
            {argument: ref, field: value} for value, ref in params["refs"].items()
        )
        ensure_get_tool(
            draft,
            params["tool"],
            params["directory"],
            entries,
            argument,
            f"Read one directory entry ({field}) by {argument}.",
        )
        layer = {k: params[k] for k in ("tools", "field", "refs", "tool", "argument")}
        docs = f"`{field}` is a directory id: read the entry with {params['tool']} ({LINKS}.{field})."
        add_outer_layer(draft, "references", layer, dict.fromkeys(params["tools"], docs))
        self.record_adapter(draft, params)
        reader = f"tool:{params['tool']}"
        edges = [Edge(OBSERVATION, reader, f"the records link {field} to the directory")]
        for ref in sorted(params["refs"].values()):
            entry = record_node(params["directory"], entries, ref, field)
            edges += [
                Edge(reader, entry, "the tool reads the entry"),
                Edge(entry, GOAL, f"a {field} of the records"),
            ]
        return edges

    @staticmethod
    def _entries(params: dict[str, Any]) -> str:
        return f"{params['collection']}_{params['argument'].removesuffix('_id')}"

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer, the directory tool and every entry are there."""
        if not has_layer(draft, "references", tools=params["tools"], field=params["field"]):
            return f"no references layer on {params['field']}"
        if not has_tool(draft, params["tool"]):
            return f"no tool {params['tool']}"
        stored = {
            str(e.get(params["argument"]))
            for e in draft.fixtures.get(params["directory"], {}).get(self._entries(params), [])
        }
        missing = sorted(set(params["refs"].values()) - stored)
        return f"directory entries missing: {missing}" if missing else None

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Replace every field that holds a directory id by the entry's value, reading the entry its
        link names (what the records show; the change's own params are not used)."""
        return resolve_links(call, lambda relation: relation != SELF)
