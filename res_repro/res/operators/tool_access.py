"""Information-access operators: where and in what form a tool environment gives out its facts."""

from __future__ import annotations

import random
import re
from typing import Any, ClassVar

from res_repro.env.formats.tool_api import ToolDef, ToolDraft
from res_repro.env.middleware import (
    LINKS,
    NUMBER_SCHEMES,
    SELF,
    TEXT_SCHEMES,
    decode_value,
    map_records,
    records_key,
    with_records,
)
from res_repro.res.graph import GOAL, OBSERVATION, DependencyGraph, Edge
from res_repro.res.operators.base import Call, Family
from res_repro.res.operators.tool_common import (
    RecordNode,
    ToolOperator,
    add_argument,
    add_outer_layer,
    add_tool,
    added_tools,
    body_field,
    ensure_get_tool,
    failure,
    field_choices,
    free_name,
    has_layer,
    has_tool,
    key_field,
    layer_tools,
    list_tools,
    listed_collections,
    nullable,
    original_tools,
    pick_field,
    record_getter,
    record_node,
    record_nodes,
    record_tools,
    reference_words,
    released_tools,
    resolve_links,
    rewritten_fields,
    strict,
    string_array,
    string_map,
    tool,
    unique_ids,
    written_fields,
)

QUOTED = re.compile(r"'([^']+)'")  # the id a record's note names, as in "encoded with codec 'CODEC-1a2b3c'"


def _paged(call: Call, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Every page of a paginated list call, merged into one body."""
    body = call(name, **arguments)
    key = records_key(body) or "items"
    items = list(body_field(body, key))
    while body.get("next_cursor"):
        body = call(name, **arguments, cursor=body["next_cursor"])
        items.extend(body_field(body, key))
    return {**with_records(body, key, items), "next_cursor": None}


class Paginate(ToolOperator):
    """List results come a page at a time; the rest hides behind ``next_cursor``."""

    name = "paginate"
    family = Family.INFORMATION_ACCESS
    description = "A list or search tool returns pages of `page_size` items with a `next_cursor`."
    shown = ("tool",)
    params_schema: ClassVar[dict[str, Any]] = strict(
        {"tool": {"type": "string"}, "page_size": {"type": "integer", "minimum": 1}}
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick an original list tool not paginated yet and not rationed by sessions (pages spend calls)."""
        paged = layer_tools(draft, "pagination") | layer_tools(draft, "sessions")
        originals = {t.name for t in original_tools(draft)}
        free = [t.name for t in list_tools(draft) if t.name in originals and t.name not in paged]
        if not free:
            return None
        return {"tool": rng.choice(sorted(free)), "page_size": rng.choice((1, 2))}

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the pagination layer and the ``cursor`` argument."""
        add_outer_layer(
            draft,
            "pagination",
            {"tools": [params["tool"]], "page_size": params["page_size"]},
            {params["tool"]: "Results are paginated: pass a page's next_cursor as cursor for the next page."},
        )
        add_argument(tool(draft, params["tool"]), "cursor", {"type": "string"})
        self.record_adapter(draft, params)
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
            if name != params["tool"]:
                return call(name, **arguments)
            return _paged(call, name, arguments)

        return paged


class RetireSearch(ToolOperator):
    """A search tool is retired; a new paged listing of the whole collection replaces it."""

    name = "retire_search"
    family = Family.INFORMATION_ACCESS
    description = (
        "A search tool answers 410; callers page through a new `list_tool` over the whole collection and "
        "match the query on `match_fields` themselves."
    )
    shown = ("tool", "list_tool", "match_fields")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "tool": {"type": "string"},
            "list_tool": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
            "page_size": {"type": "integer", "minimum": 1, "maximum": 10},
            "match_fields": string_array(),
            "fields": nullable(string_array()),
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick an original search tool."""
        searches = sorted(
            (t for t in original_tools(draft) if t.operation == "search" and t.search_fields),
            key=lambda t: t.name,
        )
        if not searches:
            return None
        chosen = rng.choice(searches)
        list_tool = free_name(
            draft, f"list_all_{chosen.collection}", f"{chosen.service}_list_all_{chosen.collection}"
        )
        if list_tool is None:
            return None
        return {
            "tool": chosen.name,
            "list_tool": list_tool,
            "page_size": rng.choice((2, 3, 4)),
            "match_fields": list(chosen.search_fields),
            "fields": None if chosen.fields is None else list(chosen.fields),
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the paged listing, and retire the search tool with guidance to it."""
        search, list_tool = tool(draft, params["tool"]), params["list_tool"]
        fields = params["fields"]
        shown = None if fields is None else [*fields, *(f for f in params["match_fields"] if f not in fields)]
        add_tool(
            draft,
            ToolDef(
                name=list_tool,
                description=(
                    f"List every {search.collection} record, {params['page_size']} per page; pass the "
                    "returned next_cursor as cursor for the next page."
                ),
                input_schema=strict({"cursor": {"type": "string"}}, optional=["cursor"]),
                service=search.service,
                operation="list",
                collection=search.collection,
                fields=shown,
            ),
        )
        add_outer_layer(draft, "pagination", {"tools": [list_tool], "page_size": params["page_size"]})
        hint = (
            f"{search.name} is retired: page through {list_tool} and match the query on "
            f"{', '.join(params['match_fields'])} yourself"
        )
        add_outer_layer(
            draft,
            "retired_tools",
            {"tools": [search.name], "hint": hint, "next": {"tool": list_tool, "arguments": {}}},
            {search.name: f"Deprecated (answers 410): {hint}."},
        )
        self.record_adapter(draft, params)
        listing = f"tool:{list_tool}"
        return [
            Edge(OBSERVATION, listing, "the 410 error names the replacement listing"),
            Edge(listing, f"pages:{list_tool}", "each page returns next_cursor"),
            Edge(f"pages:{list_tool}", GOAL, "the records matching the query, found by hand"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The search tool is retired and the listing exists."""
        if not has_layer(draft, "retired_tools", tools=[params["tool"]]):
            return f"{params['tool']} is not retired"
        return None if has_tool(draft, params["list_tool"]) else f"no tool {params['list_tool']}"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Answer a search from the full listing, matching the query as the search tool did."""

        def searched(name: str, **arguments: Any) -> Any:
            if name != params["tool"]:
                return call(name, **arguments)
            query = str(arguments.get("query", "")).lower()
            records = _paged(call, params["list_tool"], {})["items"]
            hits = [
                r for r in records if any(query in str(r.get(f, "")).lower() for f in params["match_fields"])
            ]
            return {"items": hits, "count": len(hits)}

        return searched


def _rewrite_target(
    draft: ToolDraft, graph: DependencyGraph, rng: random.Random, kinds: tuple[str, ...], avoid: str | None
) -> dict[str, Any] | None:
    """Where a record-rewriting change goes: an earlier change's record, or an original collection.

    Records of the collection ``avoid`` are never built on (codecs: decoding one would need itself).
    Returns service, collection, key (field), tools, field, kind and ``only`` (the record keys to rewrite,
    None for all) plus ``composed`` (the record node built on), or None when nothing fits.
    """
    composed = _composed_rewrite(draft, graph, kinds, avoid)
    original = _original_rewrite(draft, kinds)
    if composed:  # composition wins whenever an earlier artifact fits
        record, getter, choices = rng.choice(composed)
        field, kind = pick_field(rng, choices)
        return {
            "service": record.service,
            "collection": record.collection,
            "key": getter.id_field,
            "field": field,
            "kind": kind,
            "tools": record_tools(draft, record.service, record.collection),  # lists too: no way around it
            "only": [record.key],
            "composed": record.node,
        }
    if not original:
        return None
    service, collection, key, names, choices = rng.choice(original)
    field, kind = pick_field(rng, choices)
    return {
        "service": service,
        "collection": collection,
        "key": key,
        "field": field,
        "kind": kind,
        "tools": names,
        "only": None,
        "composed": None,
    }


def _composed_rewrite(
    draft: ToolDraft, graph: DependencyGraph, kinds: tuple[str, ...], avoid: str | None
) -> list[tuple[RecordNode, ToolDef, list[tuple[str, str, int]]]]:
    rewritten = rewritten_fields(draft)
    found = []
    for target in record_nodes(graph):
        getter = record_getter(draft, target.service, target.collection, target.key)
        if getter is None or target.collection == avoid:
            continue
        records = draft.fixtures[target.service][target.collection]
        record = next(r for r in records if str(r.get(getter.id_field)) == target.key)
        choices = [
            c
            for c in field_choices(
                draft, target.service, target.collection, [record], {getter.id_field}, kinds
            )
            if (getter.name, c[0]) not in rewritten and target.field in (None, c[0])
        ]
        if choices:
            found.append((target, getter, choices))
    return found


def _original_rewrite(
    draft: ToolDraft, kinds: tuple[str, ...]
) -> list[tuple[str, str, str, list[str], list[tuple[str, str, int]]]]:
    rewritten = rewritten_fields(draft)
    found = []
    for service, collection in sorted({(t.service, t.collection) for t in released_tools(draft)}):
        key = key_field(draft, service, collection)
        names = record_tools(draft, service, collection)
        if key is None or not names:
            continue
        skip = {key} | written_fields(draft, service, collection)
        choices = [
            c
            for c in field_choices(
                draft, service, collection, draft.fixtures[service][collection], skip, kinds
            )
            if not any((name, c[0]) in rewritten for name in names)
        ]
        if choices:
            found.append((service, collection, key, names, choices))
    return found


def _rewrite_edges(params: dict[str, Any], node: str, tool_node: str, what: str) -> list[Edge]:
    """Edges of a rewrite: the new artifact follows the rewritten record (composed) or the observation."""
    if params["composed"]:
        first = Edge(params["composed"], node, f"composed: {what}")
    else:
        first = Edge(OBSERVATION, node, f"the records name it: {what}")
    return [
        Edge(OBSERVATION, tool_node, "the rewritten records name the tool"),
        first,
        Edge(tool_node, node, "the tool reads it"),
        Edge(node, GOAL, f"the true {params['field']} values"),
    ]


class MoveToAttachment(ToolOperator):
    """A record field moves into attachments: records hold an attachment id, another tool the content."""

    name = "move_to_attachment"
    family = Family.INFORMATION_ACCESS
    description = (
        "Records returned by `tools` hold an attachment id instead of their `field`; the value is the "
        "content of that attachment, read with `<service>_get_attachment`. Composes on earlier records."
    )
    shown = ("service", "tools", "field")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "key": {"type": "string"},
            "field": {"type": "string"},
            "tools": string_array(),
            "attachments": string_map(),
            "composed": nullable({"type": "string", "pattern": "^record:"}),
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a text field of an original collection, or of a record an earlier change added."""
        target = _rewrite_target(draft, graph, rng, ("text",), avoid=None)
        if target is None:
            return None
        service, collection, key = target["service"], target["collection"], target["key"]
        if not self._attachment_tool_free(draft, service):
            return None
        records = draft.fixtures[service][collection]
        keys = [str(r[key]) for r in records if target["only"] is None or str(r[key]) in target["only"]]
        taken = {a["attachment_id"] for a in draft.fixtures[service].get("attachments", [])}
        ids = unique_ids(rng, "ATT", len(keys), taken)
        return {
            "service": service,
            "collection": collection,
            "key": key,
            "field": target["field"],
            "tools": target["tools"],
            "attachments": dict(zip(keys, ids, strict=True)),
            "composed": target["composed"],
        }

    @staticmethod
    def _attachment_tool_free(draft: ToolDraft, service: str) -> bool:
        name = f"{service}_get_attachment"
        return name in added_tools(draft) or (
            not has_tool(draft, name) and "attachments" not in draft.fixtures.get(service, {})
        )

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Store the attachments, add the attachment tool and the layer that detaches the field."""
        service, collection, key, field = (params[k] for k in ("service", "collection", "key", "field"))
        attachment_tool = f"{service}_get_attachment"
        records = {str(r[key]): r for r in draft.fixtures[service][collection]}
        store = draft.collection(service, "attachments")
        for record_key, attachment_id in params["attachments"].items():
            store.append(
                {
                    "attachment_id": attachment_id,
                    "filename": f"{record_key}-{field}.json",
                    "content": records[record_key][field],
                }
            )
        ensure_get_tool(
            draft,
            attachment_tool,
            service,
            "attachments",
            "attachment_id",
            f"Read one attachment of the {service} service by its attachment_id.",
        )
        layer = {
            "tools": params["tools"],
            "field": field,
            "key": key,
            "attachments": params["attachments"],
            "tool": attachment_tool,
        }
        add_outer_layer(draft, "attachments", layer)
        self.record_adapter(draft, params)
        node = f"attachment:{service}/{collection}/{field}"
        return _rewrite_edges(params, node, f"tool:{attachment_tool}", f"{field} moved into attachments")

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer and every attachment are there."""
        if not has_layer(draft, "attachments", tools=params["tools"], field=params["field"]):
            return f"no attachments layer for {params['field']}"
        stored = {a["attachment_id"] for a in draft.fixtures[params["service"]].get("attachments", [])}
        missing = sorted(set(params["attachments"].values()) - stored)
        return f"attachments missing: {missing}" if missing else None

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Put each attachment's content back into the records whose ``attached_fields`` note says the
        field is stored as an attachment (the id it holds is the attachment's, as the records show)."""
        tools, field = frozenset(params["tools"]), params["field"]
        attachment_tool = f"{params['service']}_get_attachment"
        contents: dict[str, Any] = {}

        def restore(record: dict[str, Any]) -> dict[str, Any]:
            notes = record.get("attached_fields")
            if not isinstance(notes, dict) or field not in notes or not isinstance(record.get(field), str):
                return record
            attachment = record[field]
            if attachment not in contents:
                contents[attachment] = body_field(call(attachment_tool, attachment_id=attachment), "content")
            restored = {**record, field: contents[attachment]}
            notes = {k: v for k, v in record.get("attached_fields", {}).items() if k != field}
            if notes:
                restored["attached_fields"] = notes
            else:
                restored.pop("attached_fields", None)
            return restored

        def attached(name: str, **arguments: Any) -> Any:
            body = call(name, **arguments)
            return map_records(body, restore) if name in tools else body

        return attached


class EncodeField(ToolOperator):
    """A record field is served encoded; a codec record elsewhere says how to decode it."""

    name = "encode_field"
    family = Family.INFORMATION_ACCESS
    description = (
        "Records returned by `tools` hold their `field` encoded (base64, rot13, caesar shift, or numbers "
        "scaled); the codec record, read with `<service>_get_codec`, states the scheme and key. Composes "
        "on earlier records (e.g. a vault token)."
    )
    shown = ("service", "tools", "field")
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "key": {"type": "string"},
            "field": {"type": "string"},
            "tools": string_array(),
            "scheme": {"enum": [*TEXT_SCHEMES, *NUMBER_SCHEMES]},
            "shift": {"type": "integer", "minimum": 1},
            "codec": {"type": "string"},
            "only": nullable(string_array()),
            "composed": nullable({"type": "string", "pattern": "^record:"}),
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a field of an original collection, or of a record an earlier change added."""
        target = _rewrite_target(draft, graph, rng, ("text", "number"), avoid="codecs")
        if target is None:
            return None
        service = target["service"]
        codec_tool = f"{service}_get_codec"
        if has_tool(draft, codec_tool) and codec_tool not in added_tools(draft):
            return None
        if target["kind"] == "number":
            scheme, shift = "scale", rng.choice((100, 1000))
        else:
            scheme = rng.choice(TEXT_SCHEMES)
            shift = rng.randint(1, 9) if scheme == "caesar" else 1
        taken = {c["codec_id"] for c in draft.fixtures[service].get("codecs", [])}
        return {
            "service": service,
            "collection": target["collection"],
            "key": target["key"],
            "field": target["field"],
            "tools": target["tools"],
            "scheme": scheme,
            "shift": shift,
            "codec": unique_ids(rng, "CODEC", 1, taken)[0],
            "only": target["only"],
            "composed": target["composed"],
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Publish the codec record, add the codec tool and the encoding layer."""
        service, field = params["service"], params["field"]
        codec_tool = f"{service}_get_codec"
        draft.collection(service, "codecs").append(
            {
                "codec_id": params["codec"],
                "applies_to": f"{params['collection']}.{field}",
                "scheme": params["scheme"],
                "shift": params["shift"],
                "instructions": _instructions(params["scheme"], params["shift"]),
            }
        )
        ensure_get_tool(
            draft,
            codec_tool,
            service,
            "codecs",
            "codec_id",
            f"Read one codec of the {service} service by id.",
        )
        layer = {
            "tools": params["tools"],
            "field": field,
            "scheme": params["scheme"],
            "shift": params["shift"],
            "codec": params["codec"],
            "codec_tool": codec_tool,
            "key": params["key"],
            "only": params["only"],
        }
        add_outer_layer(draft, "encoded_fields", layer)
        self.record_adapter(draft, params)
        codec = record_node(service, "codecs", params["codec"], "scheme")
        node = f"decoded:{service}/{params['collection']}/{field}"
        return _rewrite_edges(params, node, codec, f"{field} is encoded ({params['scheme']})")

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer and the codec record are there."""
        if not has_layer(draft, "encoded_fields", codec=params["codec"]):
            return f"no encoding layer with codec {params['codec']}"
        codecs = draft.fixtures[params["service"]].get("codecs", [])
        return (
            None if any(c["codec_id"] == params["codec"] for c in codecs) else "the codec record is missing"
        )

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Read the codec the records name once, then decode the field with the scheme and key the codec
        record states, wherever the records say it is encoded."""
        tools, field = frozenset(params["tools"]), params["field"]
        codecs: dict[str, dict[str, Any]] = {}

        def decode(record: dict[str, Any]) -> dict[str, Any]:
            notes = record.get("encoded_fields")
            named = QUOTED.search(str(notes.get(field, ""))) if isinstance(notes, dict) else None
            if named is None:
                return record
            codec_id = named.group(1)
            if codec_id not in codecs:
                codecs[codec_id] = call(f"{params['service']}_get_codec", codec_id=codec_id)
            codec = codecs[codec_id]
            if codec.get("scheme") not in (*TEXT_SCHEMES, *NUMBER_SCHEMES) or not codec.get("shift"):
                raise failure(f"codec {codec_id} states no known scheme and key: {codec}")
            decoded = {**record, field: decode_value(codec["scheme"], int(codec["shift"]), record[field])}
            rest = {k: v for k, v in notes.items() if k != field}
            if rest:
                decoded["encoded_fields"] = rest
            else:
                decoded.pop("encoded_fields")
            return decoded

        def decoding(name: str, **arguments: Any) -> Any:
            body = call(name, **arguments)
            return map_records(body, decode) if name in tools else body

        return decoding


def _instructions(scheme: str, shift: int) -> str:
    if scheme == "base64":
        return "The value is base64-encoded UTF-8 text: decode it."
    if scheme == "rot13":
        return "Letters are rotated by 13 places (ROT13); apply ROT13 again to decode."
    if scheme == "caesar":
        return (
            f"Letters and digits are shifted forward by {shift} (z wraps to a, 9 to 0); shift them back by "
            f"{shift} to decode."
        )
    return f"Numbers are stored multiplied by {shift}; divide by {shift} to decode."


TITLE_FIELDS = ("subject", "title", "name", "summary")  # what a summary shows beside the key


class SummaryListing(ToolOperator):
    """List tools return summaries: the key, a title and a link to the get call with the whole record."""

    name = "summary_listing"
    family = Family.INFORMATION_ACCESS
    description = (
        "The list tools of a collection (`tools`) return each record as a summary (its `key` and the "
        "`keep` fields) with a `links.self` call to `get_tool`, which returns the whole record."
    )
    params_schema: ClassVar[dict[str, Any]] = strict(
        {
            "service": {"type": "string"},
            "collection": {"type": "string"},
            "key": {"type": "string"},
            "keep": {"type": "array", "items": {"type": "string"}},
            "tools": string_array(),
            "get_tool": {"type": "string"},
        }
    )

    def propose(self, draft: ToolDraft, graph: DependencyGraph, rng: random.Random) -> dict[str, Any] | None:
        """Pick a listed collection whose listings show more than a summary would."""
        candidates = []
        for service, collection, key, tools, getter in listed_collections(draft, "summaries"):
            fields = set(draft.fixtures[service][collection][0])
            keep = [name for name in TITLE_FIELDS if name in fields][:1]
            if fields - {key, *keep}:
                candidates.append((service, collection, key, keep, tools, getter))
        read = reference_words(draft)  # a reference that never calls the get reads the listings' fields
        candidates = [c for c in candidates if c[5].name not in read] or candidates
        if not candidates:
            return None
        service, collection, key, keep, tools, getter = rng.choice(candidates)
        return {
            "service": service,
            "collection": collection,
            "key": key,
            "keep": keep,
            "tools": tools,
            "get_tool": getter.name,
        }

    def apply(self, draft: ToolDraft, params: dict[str, Any], graph: DependencyGraph) -> list[Edge]:
        """Add the layer that cuts listed records down to summaries."""
        shown = ", ".join([params["key"], *params["keep"]])
        docs = (
            f"Returns summaries ({shown}); the whole record is at its {LINKS}.{SELF} "
            f"(a {params['get_tool']} call)."
        )
        layer = {**{k: params[k] for k in ("tools", "key", "keep", "get_tool")}, "argument": params["key"]}
        add_outer_layer(draft, "summaries", layer, dict.fromkeys(params["tools"], docs))
        self.record_adapter(draft, params)
        details = f"details:{params['service']}/{params['collection']}"
        return [
            Edge(OBSERVATION, f"tool:{params['get_tool']}", "each summary links to the get call"),
            Edge(f"tool:{params['get_tool']}", details, "the get returns the whole record"),
            Edge(details, GOAL, "the fields a summary leaves out"),
        ]

    def applied(self, draft: ToolDraft, params: dict[str, Any]) -> str | None:
        """The layer is in the stack."""
        ok = has_layer(draft, "summaries", tools=params["tools"], get_tool=params["get_tool"])
        return None if ok else f"no summaries layer on {params['tools']}"

    def adapt(self, call: Call, params: dict[str, Any]) -> Call:
        """Read the whole record behind every summary's ``self`` link (what the listing shows; the
        change's own params are not used)."""
        return resolve_links(call, lambda relation: relation == SELF)
