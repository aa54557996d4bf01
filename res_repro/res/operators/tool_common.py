"""Helpers shared by the operators that change tool-API environments.

Besides editing tools, middleware and fixtures, the helpers answer the questions every operator asks
before it proposes a change: which tools are original (not added by an earlier change), which ones other
tools now stand in for, which record fields may be rewritten, and which artifacts of earlier changes the
dependency graph offers for composition.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from res_repro.env.formats.tool_api import MiddlewareDef, ToolDef, ToolDraft, ToolError
from res_repro.env.formats.tool_api.task_file import SOLUTION_FILE
from res_repro.env.middleware import GUIDED, LINKS, REALISTIC, SELF, map_records, parse_link
from res_repro.env.tools import ToolResponse
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators.base import Altered, Call, Operator

LIST_OPERATIONS = frozenset({"list", "search"})
READ_OPERATIONS = frozenset({"list", "search", "get"})
WRITE_OPERATIONS = frozenset({"create", "update", "send"})
ADDED_TOOLS = "res_added_tools"  # config.metadata key: tools that changes added to the task
POLICIES = "data_policies"  # the collection of the policies that changes publish
MIDDLEWARE_TOOL_PARAMS = (
    "open_tool",
    "bulk_tool",
    "start_tool",
    "status_tool",
    "result_tool",
    "archive_tool",
    "repair_tool",
)
# Layers after which callers reach a tool's records through another tool.
STAND_IN_LAYERS = {"retired_tools": "tools", "export_jobs": "tool", "quota": "tool", "archive": "tool"}
# The param naming the tool that then delivers the records (retired tools are replaced by a new one).
STAND_IN_TOOLS = {"export_jobs": "result_tool", "quota": "bulk_tool", "archive": "archive_tool"}
REWRITE_LAYERS = ("attachments", "encoded_fields", "references")
NOTE_FIELDS = frozenset(
    {"attached_fields", "encoded_fields", "record_state", "superseded_by", "revision", "links"}
)
DATE_LIKE = re.compile(r"^\d|^\s*$")  # dates, times, numbers in text: programs parse them
ID_LIKE = re.compile(r"^[A-Za-z]+[-_]?\d+$|@")
Schema = dict[str, Any]


class ToolOperator(Operator):
    """An operator on tool-API drafts. It composes through its ``composed`` param (an earlier change's
    record or tool node) or its ``token_record`` param (the vault record of a token an earlier change
    added)."""

    kind = "tool"
    # The params the reference adapter gets: those the environment shows an agent (tool names, argument
    # names, what the tools' documentation states). The others (which records moved, the copies' ids, a
    # secret's value) stay with the change, so the reference passing proves the advertised path works.
    shown: ClassVar[tuple[str, ...]] = ()
    # The params naming the tools whose behaviour or responses the change alters (``altered``); a tool the
    # change adds (an archive, a bulk or a directory tool) is named by other params.
    alters: ClassVar[tuple[str, ...]] = ("tool", "tools")

    def shown_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """What the reference adapter of a change with ``params`` is given: the :attr:`shown` ones."""
        return {name: params[name] for name in self.shown}

    def record_adapter(self, draft: ToolDraft, params: dict[str, Any]) -> None:
        """Send the task's reference program through this change's adapter, with :meth:`shown_params`."""
        draft.add_adapter(self.name, self.shown_params(params))

    def altered(self, params: dict[str, Any]) -> Altered:
        """The tools named by the :attr:`alters` params."""
        named = [params[key] for key in self.alters if key in params]
        return Altered(
            tools=tuple(t for value in named for t in ([value] if isinstance(value, str) else value))
        )

    def composes(self, params: dict[str, Any], graph: DependencyGraph) -> bool:
        """True when the params name an earlier change's record, tool or token."""
        return bool(params.get("composed") or params.get("token_record"))


def string_array(minimum: int = 1) -> Schema:
    """A JSON schema for a list of strings."""
    return {"type": "array", "items": {"type": "string"}, "minItems": minimum}


def string_map() -> Schema:
    """A JSON schema for a non-empty object of strings."""
    return {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}


def strict(properties: Schema, optional: Iterable[str] = ()) -> Schema:
    """A closed object schema requiring every property except ``optional`` ones."""
    skipped = set(optional)
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in skipped],
        "additionalProperties": False,
    }


def nullable(schema: Schema) -> Schema:
    """``schema`` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


def list_tools(draft: ToolDraft) -> list[ToolDef]:
    """Tools that return ``items`` lists."""
    return [tool for tool in draft.config.tools if tool.operation in LIST_OPERATIONS]


def tool(draft: ToolDraft, name: str) -> ToolDef:
    """The tool called ``name`` (KeyError when absent)."""
    for candidate in draft.config.tools:
        if candidate.name == name:
            return candidate
    raise KeyError(name)


def has_tool(draft: ToolDraft, name: str) -> bool:
    """True when the task declares a tool ``name``."""
    return any(candidate.name == name for candidate in draft.config.tools)


def add_argument(tool_def: ToolDef, name: str, schema: Schema, *, required: bool = False) -> None:
    """Let the tool's schema accept (or demand) one more argument."""
    input_schema = tool_def.input_schema
    input_schema.setdefault("type", "object")
    input_schema.setdefault("properties", {})[name] = schema
    if required and name not in input_schema.setdefault("required", []):
        input_schema["required"].append(name)


def hints(draft: Any) -> str:
    """How the draft's new layers guide an agent (``scaling.hints``, set on the draft by the scaler):
    ``realistic`` (errors carry a status, a code and a message; how to recover is in the tools'
    documentation) or ``guided`` (errors also carry a hint and the next call; the default of a draft the
    scaler did not set)."""
    return str(getattr(draft, "hints", GUIDED))


def add_outer_layer(
    draft: ToolDraft, name: str, params: dict[str, Any], docs: Mapping[str, str] | None = None
) -> None:
    """Put a middleware layer outermost (nearest the agent): newer changes wrap older ones.

    With realistic hints the layer's errors only say what went wrong, and its ``docs`` ({tool: sentence})
    are added to the descriptions of the tools they name when an episode starts (the task's tools and
    tools other layers answer alike): how to recover is documented where an agent reads about the tool,
    the way a real API documents authentication, quotas or deprecations.
    """
    if hints(draft) == REALISTIC:
        params = {**params, "guidance": REALISTIC, **({"docs": dict(docs)} if docs else {})}
    draft.config.middleware.insert(0, MiddlewareDef(name=name, params=params))


def has_layer(draft: ToolDraft, name: str, **match: Any) -> bool:
    """True when a layer ``name`` whose params contain ``match`` is in the stack."""
    return any(
        layer.name == name and all(layer.params.get(k) == v for k, v in match.items())
        for layer in draft.config.middleware
    )


def layer_params(draft: ToolDraft, name: str) -> list[dict[str, Any]]:
    """The params of every layer called ``name``."""
    return [layer.params for layer in draft.config.middleware if layer.name == name]


def layer_tools(draft: ToolDraft, name: str) -> set[str]:
    """The tools listed (param ``tools``) by every layer called ``name``."""
    return {tool_name for params in layer_params(draft, name) for tool_name in params["tools"]}


def token(rng: random.Random, prefix: str) -> str:
    """A seeded opaque credential string."""
    return f"{prefix}-{rng.getrandbits(48):012x}"


def added_tools(draft: ToolDraft) -> set[str]:
    """Names of the tools that earlier changes added to the task."""
    return set(draft.config.metadata.get(ADDED_TOOLS, []))


def add_tool(draft: ToolDraft, tool_def: ToolDef) -> None:
    """Declare a tool that a change adds, remembering that it is not original."""
    draft.config.tools.append(tool_def)
    draft.config.metadata.setdefault(ADDED_TOOLS, []).append(tool_def.name)


def released_tools(draft: ToolDraft) -> list[ToolDef]:
    """The tools the task was released with (not those changes added)."""
    added = added_tools(draft)
    return [t for t in draft.config.tools if t.name not in added]


def original_tools(draft: ToolDraft) -> list[ToolDef]:
    """The tools the task was released with that callers still reach directly."""
    replaced = stood_in_for(draft)
    return [t for t in released_tools(draft) if t.name not in replaced]


def delivering_tools(draft: ToolDraft, readers: Iterable[str]) -> list[str]:
    """``readers`` and the tools that now deliver their records instead.

    Those are bulk, archive and export-result tools, and the replacement that a retired tool's error
    names as its ``next`` call. Older changes come first in the stack's far end, so one pass from the
    innermost layer outwards also follows stand-ins of stand-ins.
    """
    names = set(readers)
    for layer in reversed(draft.config.middleware):
        key = STAND_IN_TOOLS.get(layer.name)
        if key is not None and layer.params["tool"] in names:
            names.add(str(layer.params[key]))
        if layer.name == "retired_tools" and layer.params.get("next") and names & set(layer.params["tools"]):
            names.add(str(layer.params["next"]["tool"]))
    return sorted(names)


def stood_in_for(draft: ToolDraft) -> set[str]:
    """Tools whose records callers now reach through another tool (retired, exported, bulk, archive)."""
    names: set[str] = set()
    for layer in draft.config.middleware:
        key = STAND_IN_LAYERS.get(layer.name)
        if key is not None:
            value = layer.params[key]
            names.update(value if isinstance(value, list) else [value])
    return names


def taken_names(draft: ToolDraft) -> set[str]:
    """Every tool name in use: declared tools and the tools middleware layers answer."""
    names = {t.name for t in draft.config.tools}
    for layer in draft.config.middleware:
        names.update(str(layer.params[key]) for key in MIDDLEWARE_TOOL_PARAMS if key in layer.params)
    return names


def free_name(draft: ToolDraft, *candidates: str) -> str | None:
    """The first candidate name no tool uses yet, or None."""
    taken = taken_names(draft)
    return next((name for name in candidates if name not in taken), None)


def record_tools(draft: ToolDraft, service: str, collection: str) -> list[str]:
    """Every tool that delivers records of a collection: its read tools and their stand-ins."""
    readers = [
        t.name
        for t in draft.config.tools
        if (t.service, t.collection) == (service, collection) and t.operation in READ_OPERATIONS
    ]
    return delivering_tools(draft, readers)


def key_field(draft: ToolDraft, service: str, collection: str) -> str | None:
    """The field a get tool addresses the collection's records by, when every record has a unique one."""
    records = draft.fixtures.get(service, {}).get(collection, [])
    for candidate in draft.config.tools:
        if (candidate.service, candidate.collection, candidate.operation) != (service, collection, "get"):
            continue
        values = [str(r[candidate.id_field]) for r in records if candidate.id_field in r]
        if records and len(values) == len(records) == len(set(values)):
            return candidate.id_field
    return None


def written_fields(draft: ToolDraft, service: str, collection: str) -> set[str]:
    """Fields some write tool may set on the collection's records."""
    return {
        name
        for t in draft.config.tools
        if t.service == service and t.collection == collection and t.operation in WRITE_OPERATIONS
        for name in t.input_schema.get("properties", {})
    }


def rewritten_fields(draft: ToolDraft) -> set[tuple[str, str]]:
    """(tool, field) pairs whose values a rewriting layer already replaces."""
    return {
        (name, layer.params["field"])
        for layer in draft.config.middleware
        if layer.name in REWRITE_LAYERS
        for name in layer.params["tools"]
    }


def _kind(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return None if DATE_LIKE.match(value) else "text"
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, str) and not DATE_LIKE.match(v) for v in value)
    ):
        return "text"
    return None


def _served_keys(draft: ToolDraft) -> set[str]:
    """Every key value of a record some get tool serves: fields holding them are references."""
    return {
        str(r[t.id_field])
        for t in draft.config.tools
        if t.operation == "get"
        for r in draft.fixtures.get(t.service, {}).get(t.collection, [])
        if t.id_field in r
    }


READ_BONUS = 6  # the weight a field the reference program reads gains (it outweighs every other cue)
QUOTED_NAME = re.compile(r"""["']([A-Za-z_]\w*)["']""")


def reference_words(draft: ToolDraft) -> set[str]:
    """The names the task's reference program quotes (the fields and tools it reads), as a proposer
    that sees the reference solution knows them; empty when the task has none. A change aimed at what the
    reference relies on is the one ``parent_reference_fails`` accepts."""
    program = Path(draft.root) / SOLUTION_FILE
    return set(QUOTED_NAME.findall(program.read_text(encoding="utf-8"))) if program.is_file() else set()


def _weight(values: list[Any], references: set[str], hidden: bool) -> int:
    """How likely a program relies on a field: references, addresses, numbers and categories most.

    A field that list tools leave out (so that a get is needed for it) counts a little more.
    """
    texts = [v for v in values if isinstance(v, str)]
    distinct = len({str(v) for v in values})
    if texts and (all(v in references for v in texts) or all("@" in v for v in texts)):
        weight = 6
    elif isinstance(values[0], (int, float, list)) or 1 < distinct < len(values):
        weight = 3
    elif texts and all(ID_LIKE.search(v) for v in texts):
        weight = 2
    else:
        weight = 1
    return weight + (2 if hidden else 0)


def field_choices(
    draft: ToolDraft,
    service: str,
    collection: str,
    records: list[dict[str, Any]],
    skip: set[str],
    kinds: tuple[str, ...],
) -> list[tuple[str, str, int]]:
    """(field, kind, weight) for each field all ``records`` hold with a value of one of ``kinds``."""
    if not records:
        return []
    references, read = _served_keys(draft), reference_words(draft)
    shown = [
        set(t.fields)
        for t in draft.config.tools
        if (t.service, t.collection) == (service, collection) and t.operation in LIST_OPERATIONS and t.fields
    ]
    choices = []
    for name in sorted(records[0]):
        if name in skip or name in NOTE_FIELDS:
            continue
        values = [r.get(name) for r in records]
        found = {_kind(v) for v in values}
        if len(found) == 1 and (kind := found.pop()) in kinds:
            hidden = bool(shown) and all(name not in fields for fields in shown)
            weight = _weight(values, references, hidden) + (READ_BONUS if name in read else 0)
            choices.append((name, kind, weight))
    return choices


def pick_field(rng: random.Random, choices: list[tuple[str, str, int]]) -> tuple[str, str]:
    """A seeded choice of (field, kind), favouring the fields programs are likely to rely on."""
    field, kind, _ = rng.choices(choices, weights=[w for _, _, w in choices])[0]
    return field, kind


def pick_share(rng: random.Random, values: list[str]) -> list[str]:
    """A seeded subset of about half of ``values`` (at least one), in their original order."""
    count = max(1, round(len(values) * rng.choice((0.4, 0.5, 0.6))))
    chosen = set(rng.sample(values, k=min(count, len(values))))
    return [v for v in values if v in chosen]


def other_values(
    rng: random.Random,
    records: list[dict[str, Any]],
    key: str,
    chosen: list[str],
    skip: Iterable[str] = (),
) -> dict[str, dict[str, str]]:
    """For each chosen record, plausible wrong references: its id and address fields from other records.

    Names and categories (what programs match and filter on) stay, so the altered record still looks
    like the one a program is after. Fields in ``skip`` (those an earlier change rewrites, such as a
    party shown as a directory id) keep their value: a raw value there would give the copy away.
    """
    kept = set(skip)
    fields = [
        name
        for name in sorted(records[0])
        if name != key
        and name not in kept
        and all(isinstance(r.get(name), str) and ID_LIKE.search(r[name]) for r in records)
        and len({r[name] for r in records}) > 1
    ]
    by_key = {str(r[key]): r for r in records}
    overrides: dict[str, dict[str, str]] = {}
    for record_key in chosen:
        record = by_key[record_key]
        overrides[record_key] = {
            name: rng.choice(sorted({r[name] for r in records} - {record[name]})) for name in fields
        }
    return overrides


def listed_collections(draft: ToolDraft, layer: str) -> list[tuple[str, str, str, list[str], ToolDef]]:
    """(service, collection, key, list tools, get tool) for released listed collections addressed by a key.

    The list tools are those whose items show the key, with the tools that deliver their results
    instead. Collections whose listings already have ``layer``, or whose records use a field these
    changes add (``revision``, ``record_state``, ...), are left out.
    """
    done = layer_tools(draft, layer)
    released = released_tools(draft)
    found = []
    for service, collection in sorted({(t.service, t.collection) for t in released}):
        key = key_field(draft, service, collection)
        if key is None or any(NOTE_FIELDS.intersection(r) for r in draft.fixtures[service][collection]):
            continue
        listers = [
            t.name
            for t in released
            if (t.service, t.collection) == (service, collection)
            and t.operation in ("list", "search")
            and (t.fields is None or key in t.fields)
        ]
        getter = next(
            (
                t
                for t in released
                if (t.service, t.collection, t.operation, t.id_field) == (service, collection, "get", key)
            ),
            None,
        )
        if listers and getter is not None and not done.intersection(listers):
            found.append((service, collection, key, delivering_tools(draft, listers), getter))
    return found


def record_keys(draft: ToolDraft, service: str, collection: str, key: str) -> list[str]:
    """The key of every record of a collection, in order."""
    return [str(r[key]) for r in draft.fixtures[service][collection]]


# Collections the operators add as machinery, not as the task's data: vault secrets, codecs, alias maps
# (``<collection>_aliases``) and published policies. Directory entries and attachments hold task data.
MACHINERY_COLLECTIONS = frozenset({"vault/secrets", "codecs", POLICIES})


def holds_task_data(collection: str) -> bool:
    """True when records of ``collection`` (``service/collection``) hold the task's own data (its
    records, or values changes moved out of them into a directory or attachments), False for the
    machinery changes add (:data:`MACHINERY_COLLECTIONS`, matched with or without the service, and alias
    maps)."""
    name = collection.rpartition("/")[2]
    machinery = collection in MACHINERY_COLLECTIONS or name in MACHINERY_COLLECTIONS
    return not machinery and not name.endswith("_aliases")


class RecordNode(NamedTuple):
    """A graph node ``record:<service>/<collection>/<key>[#<field>]``: a record an earlier change added
    (a vault secret, a directory entry) or moved (an archived record of the task).

    ``field`` names the value in it that the task depends on, when the change that made it said so.
    """

    service: str
    collection: str
    key: str
    field: str | None
    node: str


def record_node(service: str, collection: str, key: str, field: str | None = None) -> str:
    """The name of the graph node of a record (and the field of it that matters)."""
    return f"record:{service}/{collection}/{key}" + (f"#{field}" if field else "")


def record_nodes(graph: DependencyGraph) -> list[RecordNode]:
    """Every ``record:`` node of the graph, sorted by name."""
    found = []
    for node in sorted(graph.nodes):
        if not node.startswith("record:"):
            continue
        path, _, field = node.removeprefix("record:").partition("#")
        parts = path.split("/", 2)
        if len(parts) == 3:
            found.append(RecordNode(parts[0], parts[1], parts[2], field or None, node))
    return found


def prefixed_nodes(graph: DependencyGraph, prefix: str) -> list[str]:
    """The names after ``prefix`` of the graph's nodes that start with it, sorted."""
    return sorted(node.removeprefix(prefix) for node in graph.nodes if node.startswith(prefix))


def record_getter(draft: ToolDraft, service: str, collection: str, key: str) -> ToolDef | None:
    """A get tool that serves the record ``key`` of a collection, when the record exists."""
    records = draft.fixtures.get(service, {}).get(collection, [])
    for candidate in draft.config.tools:
        if (candidate.service, candidate.collection, candidate.operation) != (service, collection, "get"):
            continue
        if any(str(r.get(candidate.id_field)) == key for r in records):
            return candidate
    return None


def ensure_get_tool(
    draft: ToolDraft, name: str, service: str, collection: str, id_field: str, text: str
) -> None:
    """Declare a get tool over a collection that a change adds (once)."""
    if has_tool(draft, name):
        return
    add_tool(
        draft,
        ToolDef(
            name=name,
            description=text,
            input_schema=strict({id_field: {"type": "string"}}),
            service=service,
            operation="get",
            collection=collection,
            id_field=id_field,
        ),
    )


def add_policy(draft: ToolDraft, service: str, policy_id: str, text: str) -> None:
    """Publish a data policy of a service, readable with ``<service>_list_policies``.

    The policies get a collection of their own, so a service's own ``policies`` records stay as they were.
    """
    draft.collection(service, POLICIES).append({"id": policy_id, "text": text})
    name = f"{service}_list_policies"
    if has_tool(draft, name):
        return
    add_tool(
        draft,
        ToolDef(
            name=name,
            description=f"List the data policies of the {service} service.",
            input_schema={"type": "object", "properties": {}, "additionalProperties": False},
            service=service,
            operation="list",
            collection=POLICIES,
        ),
    )


def has_policy(draft: ToolDraft, service: str, policy_id: str) -> bool:
    """True when the service publishes the policy ``policy_id``."""
    return any(p.get("id") == policy_id for p in draft.fixtures.get(service, {}).get(POLICIES, []))


def unique_ids(rng: random.Random, prefix: str, count: int, taken: Iterable[str] = ()) -> list[str]:
    """``count`` distinct seeded identifiers such as ``AL-3f9a2c`` that avoid ``taken``."""
    used, ids = set(taken), []
    while len(ids) < count:
        candidate = f"{prefix}-{rng.getrandbits(24):06x}"
        if candidate not in used:
            used.add(candidate)
            ids.append(candidate)
    return ids


def lookalike(rng: random.Random, key: str, taken: set[str]) -> str:
    """A fresh key shaped like ``key`` (same prefix and digit count), not in ``taken``."""
    match = re.fullmatch(r"(.*?)(\d+)", key)
    if match is None:
        return unique_ids(rng, f"{key}-v", 1, taken)[0]
    prefix, digits = match.groups()
    low = 10 ** (len(digits) - 1) if len(digits) > 1 else 0
    for _ in range(1000):
        candidate = f"{prefix}{rng.randrange(low, 10 ** len(digits))}"
        if candidate not in taken:
            return candidate
    return unique_ids(rng, f"{key}-v", 1, taken)[0]


def failure(message: str) -> ToolError:
    """The error a reference adapter raises when the environment no longer matches its change."""
    return ToolError(ToolResponse(500, {"error": f"reference adapter: {message}"}))


def body_field(body: Any, name: str) -> Any:
    """``body[name]``, or a :func:`failure` when the body lacks it."""
    if not isinstance(body, dict) or name not in body:
        raise failure(f"expected a response with {name!r}, got {str(body)[:200]}")
    return body[name]


def resolve_links(call: Call, follows: Callable[[str], bool]) -> Call:
    """``call`` with the records' links whose relation ``follows`` accepts read and merged in: a field's
    link gives the field's value, a ``self`` link the whole record (with the links the whole record
    carries, for the adapters outside this one). Links are read afresh each time, as the record behind
    one may have changed since (a write in between)."""

    def merged(record: dict[str, Any]) -> dict[str, Any]:
        links = record.get(LINKS)
        if not isinstance(links, dict):
            return record
        updated = {k: v for k, v in record.items() if k != LINKS}
        left: dict[str, Any] = {}
        for relation, target in links.items():
            parsed = parse_link(target)
            current = relation == SELF or record.get(relation) in (parsed[1].values() if parsed else ())
            if parsed is None or not follows(relation) or not current:
                left[relation] = target
                continue
            body = call(parsed[0], **parsed[1])
            if relation == SELF and isinstance(body, dict):
                updated.update({k: v for k, v in body.items() if k != LINKS})
                own = body.get(LINKS)
                left.update(own if isinstance(own, dict) else {})
            else:
                updated[relation] = body_field(body, relation)
        return {**updated, LINKS: left} if left else updated

    def resolving(name: str, **arguments: Any) -> Any:
        return map_records(call(name, **arguments), merged)

    return resolving
