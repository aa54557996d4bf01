"""The explorer's client for tool-API plans: ``call(tool, **arguments)`` that repairs what it can.

The plan (the seed task's reference program) calls tools as it did in the original environment. The
client dispatches each call through the environment and, as far as its tier's skills go, copes with
what the environment has become. It waits out rate limits; gathers every page; makes the call an error
points to (its ``next``, or one its ``hint`` or, when the error only says what went wrong, the failing
tool's documentation spells out) and then either carries what that call returns
into a retry (a token, a session, an alias in place of an id) or, when the environment keeps pointing
to it, takes that call's answer instead (a replacement listing, an archive, a bulk fetch, an export);
fetches a credential again when the old one stops working; polls jobs until they are done; fetches
record fields kept elsewhere (attachments) or decodes them (codecs); and applies the data policies the
services state. Everything it knows comes from tool results. Where two moves are equally plausible
(two calls a hint spells out in full, which policy to read first) the episode's seeded
:class:`Choices` pick the order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from res_repro.agents.explorer.choices import Choices
from res_repro.agents.explorer.decoding import try_decode
from res_repro.agents.explorer.policies import POLICY_TOOL_SUFFIX, Rule, apply_rules, parse_rules
from res_repro.agents.explorer.tiers import Skill, Tier
from res_repro.agents.explorer.trace import Trace
from res_repro.env.formats.tool_api import ToolError
from res_repro.env.middleware import LINKS, SELF, map_records, parse_link
from res_repro.env.tools import ToolResponse, ToolSpec

TRANSIENT_STATUSES = frozenset({429, 503})
PENDING_STATES = frozenset(
    {"pending", "queued", "running", "in_progress", "processing", "accepted", "started"}
)
MAX_NESTING = 3  # a prerequisite of a prerequisite of a prerequisite, no deeper
MAX_POLLS = 50
SCALAR = (str, int, float, bool)
QUOTED = re.compile(r"[`'\"]([^`'\"]+)[`'\"]")


@dataclass(frozen=True)
class Step:
    """A call the environment asked for, by name and arguments."""

    tool: str
    arguments: Mapping[str, Any]

    @property
    def key(self) -> str:
        """A stable identity, for remembering results."""
        return json.dumps({"tool": self.tool, "arguments": dict(self.arguments)}, sort_keys=True, default=str)


def retry_after(response: ToolResponse) -> float | None:
    """The seconds a response asks the caller to wait, or None when it does not ask."""
    for key, value in response.headers.items():
        if key.lower() == "retry-after":
            try:
                return max(float(value), 0.0)
            except ValueError:
                return 1.0
    return None


def _refuse(response: ToolResponse) -> NoReturn:
    """Raise the error a plan expects from a failed call."""
    raise ToolError(response)


def _properties(spec: ToolSpec | None) -> Mapping[str, Any]:
    return (spec.input_schema.get("properties") or {}) if spec else {}


def _required(spec: ToolSpec) -> list[str]:
    return list(spec.input_schema.get("required") or [])


def _fields(body: Any) -> dict[str, Any]:
    """Scalar fields of a result, top level first, then those of the records nested one level down."""
    if not isinstance(body, dict):
        return {}
    found: dict[str, Any] = {}
    for value in body.values():
        if isinstance(value, dict):
            found.update((k, v) for k, v in value.items() if isinstance(v, SCALAR))
    found.update((k, v) for k, v in body.items() if isinstance(v, SCALAR))
    return found


def _mentions(text: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def _argument_in(text: str, name: str) -> str | None:
    """The value given for argument ``name`` in prose: ``id 'x'``, ``id="x"``, ``id: `x```, ``id=x``."""
    quoted = re.search(
        rf"(?<![\w-]){re.escape(name)}(?![\w-])\s*(?:=|:|is|of)?\s*[`'\"]([^`'\"]+)[`'\"]", text
    )
    if quoted:
        return quoted.group(1)
    bare = re.search(rf"(?<![\w-]){re.escape(name)}=([\w.:-]+)", text)
    return bare.group(1) if bare else None


def _text(body: Any) -> str:
    return body if isinstance(body, str) else json.dumps(body, default=str)


def _holds(arguments: Mapping[str, Any], value: Any) -> bool:
    """True when ``value`` is one of the arguments, or inside one that is a list."""
    return any(v == value or (isinstance(v, list) and value in v) for v in arguments.values())


def _pending(body: Any) -> bool:
    """True for a job (a body naming one) that has not finished yet."""
    return (
        isinstance(body, dict)
        and any("job" in key for key in body)
        and any(str(body.get(key, "")).lower() in PENDING_STATES for key in ("state", "status"))
    )


def _shared_prefix(a: str, b: str) -> int:
    """How many leading characters two names share."""
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


class AdaptiveClient:
    """The ``call`` handed to a tool-API plan, with the recovery skills of one tier."""

    def __init__(self, trace: Trace, tier: Tier, specs: Sequence[ToolSpec], choices: Choices) -> None:
        self.trace = trace
        self.tier = tier
        self.choices = choices
        self.specs = {spec.name: spec for spec in specs}
        self.learned: dict[str, dict[str, Any]] = {}  # per tool: credentials carried into its calls
        self.results: dict[str, ToolResponse] = {}  # prerequisite calls already made, by Step.key
        self.known: dict[str, Any] = {}  # fields those calls returned, for filling in later ones
        self.stand_ins: dict[str, set[str]] = {}  # per tool: tools whose answers now stand in for it
        self.rules: list[Rule] = []

    def __call__(self, tool: str, /, **arguments: Any) -> Any:
        """Call ``tool`` as the plan asks; raise :class:`ToolError` when the error cannot be repaired."""
        merged = {**self.credentials(tool), **self.learned.get(tool, {}), **arguments}
        response = self.request(tool, merged, f"Plan: call {tool}.", own=frozenset(arguments))
        if response.is_error:
            _refuse(response)
        body = self.all_pages(tool, merged, response.body)
        if self.tier.has(Skill.FOLLOW_LINKS):
            body = map_records(body, self.follow_links)
        if self.tier.has(Skill.RESOLVE):
            body = map_records(body, self.resolve_fields)
        return apply_rules(body, self.rules)

    def credentials(self, tool: str) -> dict[str, Any]:
        """Credentials carried into other tools that ``tool`` also accepts: tried before any error asks."""
        if not self.tier.has(Skill.FOLLOW_NEXT):
            return {}
        accepted = _properties(self.specs.get(tool))
        return {k: v for fields in self.learned.values() for k, v in fields.items() if k in accepted}

    def read_policies(self) -> None:
        """Read every policy tool that needs no arguments (in the episode's order) and keep its rules."""
        for name, spec in self.choices.order(sorted(self.specs.items())):
            if not name.endswith(POLICY_TOOL_SUFFIX) or _required(spec):
                continue
            response = self.request(name, {}, f"Read the data policies behind {name} before starting.")
            if not response.is_error:
                stated = parse_rules(self.all_pages(name, {}, response.body))
                self.rules.extend(rule for rule in stated if rule not in self.rules)
        if self.rules:
            self.trace.note(f"The policies set these rules, which I will apply to listings: {self.rules}.")

    def request(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        why: str,
        *,
        own: frozenset[str] = frozenset(),
        depth: int = 0,
    ) -> ToolResponse:
        """Dispatch a call, repairing and retrying it while the tier's skills and limits allow."""
        arguments = dict(arguments)
        tried: set[str] = set()
        unhelpful: Step | None = None  # the last step whose answer changed nothing in the call
        response = self.trace.call(tool, arguments, why)
        for _ in range(self.tier.recoveries_per_call):
            if not response.is_error:
                break
            wait = retry_after(response)
            step = self.guided_step(response.body, tool) if wait is None and depth < MAX_NESTING else None
            if self.tier.has(Skill.RETRY) and (
                wait is not None or (step is None and response.status in TRANSIENT_STATUSES)
            ):
                self.trace.wait(1.0 if wait is None else wait)
                self.trace.recoveries += 1
                response = self.trace.call(tool, arguments, f"Waited as asked; call {tool} again.")
                continue
            if step is None:
                break
            self.trace.recoveries += 1
            step = self.inherit(step, arguments)
            if step.tool in self.stand_ins.get(tool, set()) or (unhelpful and unhelpful.tool == step.tool):
                self.stand_ins.setdefault(tool, set()).add(step.tool)
                response = self.stand_in(arguments, step, response.body, depth)
                continue  # an error the stand-in surfaces (about one of its records) is repaired in turn
            change = self.prepare(tool, arguments, step, response.body, own, depth, fresh=step.key in tried)
            if change is None:
                break
            tried.add(step.key)
            unhelpful = None if change else step
            arguments = {**arguments, **change}
            response = self.trace.call(tool, arguments, f"Retry {tool} with what {step.tool} gave.")
        return self.settle(tool, response, depth)

    def inherit(self, step: Step, arguments: Mapping[str, Any]) -> Step:
        """The step with the call's other arguments that it also takes (a credential, say) added, and
        with the call's values in place of those a probe left empty (the record the call was about)."""
        spec = self.specs.get(step.tool)
        accepted = _properties(spec)
        extra = {k: v for k, v in arguments.items() if k in accepted and step.arguments.get(k) in (None, "")}
        mentioned = [k for k in arguments if spec is not None and k in spec.description]
        for name, value in step.arguments.items():  # a list of ids the tool documents as the call's
            if value == [] and len(mentioned) == 1:
                extra[name] = [arguments[mentioned[0]]]
        return Step(step.tool, {**step.arguments, **extra}) if extra else step

    def prepare(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        step: Step,
        error: Any,
        own: frozenset[str],
        depth: int,
        *,
        fresh: bool,
    ) -> dict[str, Any] | None:
        """Make the step an error points to; the changes it brings to the call (None if it failed)."""
        remembered = step.key in self.results and not fresh
        outcome = self.follow(step, depth, fresh=fresh)
        change = {} if outcome.is_error else self.changes(tool, arguments, step, outcome.body, own, error)
        if remembered and not change:  # what was remembered changes nothing (a stale credential): renew it
            outcome = self.follow(step, depth, fresh=True)
            change = {} if outcome.is_error else self.changes(tool, arguments, step, outcome.body, own, error)
        return None if outcome.is_error else change

    def follow(self, step: Step, depth: int, *, fresh: bool) -> ToolResponse:
        """The response to a call the environment asked for (remembered; ``fresh`` makes it again)."""
        if fresh or step.key not in self.results:
            why = f"The error points to {step.tool}; call it first."
            response = self.request(step.tool, step.arguments, why, depth=depth + 1)
            if response.is_error:
                return response
            body = (
                map_records(response.body, self.resolve_fields)
                if self.tier.has(Skill.RESOLVE)
                else response.body
            )
            self.results[step.key] = ToolResponse(response.status, body, response.headers)
            self.known.update(_fields(body))
        return self.results[step.key]

    def changes(
        self, tool: str, arguments: Mapping[str, Any], step: Step, body: Any, own: frozenset[str], error: Any
    ) -> dict[str, Any]:
        """What a step's answer changes in the call: credentials carried in, or an id replaced.

        Fields the call accepts and the error names are carried in; those the plan did not set itself
        are kept for the tool's later calls. When nothing is carried but the step was asked about one of
        the call's values, a new value the error names (an alias, say) takes its place.
        """
        text = _text(error)
        accepted = _properties(self.specs.get(tool))
        carried = {
            k: v
            for k, v in _fields(body).items()
            if k in accepted and arguments.get(k) != v and _mentions(text, k)
        }
        if carried:
            self.learned.setdefault(tool, {}).update({k: v for k, v in carried.items() if k not in own})
            return carried
        echoed = [k for k, v in arguments.items() if isinstance(v, SCALAR) and _holds(step.arguments, v)]
        if not echoed:
            return {}
        values = {
            k: v
            for k, v in _fields(body).items()
            if isinstance(v, str) and v != arguments[echoed[0]] and _mentions(text, k)
        }
        return {echoed[0]: next(iter(values.values()))} if len(values) == 1 else {}

    def stand_in(self, arguments: Mapping[str, Any], step: Step, error: Any, depth: int) -> ToolResponse:
        """Answer a call with the answer of the call the environment keeps pointing to instead."""
        outcome = self.follow(step, depth, fresh=False)
        if outcome.is_error:
            return outcome
        body = self.all_pages(step.tool, step.arguments, outcome.body)
        failed = body.get("errors") if isinstance(body, dict) and not body.get("items") else None
        if failed and isinstance(failed, list) and isinstance(failed[0], dict):
            return ToolResponse(int(failed[0].get("status", 500)), failed[0].get("error", failed[0]))
        return ToolResponse(200, self.narrowed(body, arguments, step, _text(error)))

    def narrowed(self, body: Any, arguments: Mapping[str, Any], step: Step, text: str) -> Any:
        """A stand-in's answer cut down to what the original call asked for.

        A bulk fetch asked about one of the call's values gives that value's record; a listing given
        none of the call's filters gets them applied here (a query matched on the fields the error names).
        """
        if not isinstance(body, dict) or not isinstance(body.get("items"), list):
            return body
        items = body["items"]
        for value in arguments.values():
            if any(isinstance(v, list) and value in v for v in step.arguments.values()):
                matching = [r for r in items if isinstance(r, dict) and value in r.values()]
                return (matching or items or [body])[0]
        left = {k: str(v) for k, v in arguments.items() if k not in step.arguments and isinstance(v, str)}
        for name, value in left.items():
            if name == "query":
                items = [r for r in items if self._matches(r, value.lower(), text)]
            elif any(isinstance(r, dict) and name in r for r in items):
                items = [
                    r for r in items if isinstance(r, dict) and str(r.get(name, "")).lower() == value.lower()
                ]
        return {**body, "items": items, "count": len(items)}

    @staticmethod
    def _matches(record: Any, query: str, text: str) -> bool:
        """True when the query is in one of the fields the text names (any text field when it names none)."""
        if not isinstance(record, dict):
            return False
        named = [k for k in record if _mentions(text, k)] or list(record)
        return any(query in str(record.get(k, "")).lower() for k in named if isinstance(record.get(k), str))

    def guided_step(self, body: Any, tool: str | None = None) -> Step | None:
        """The call an error (or a job) points to: its ``next``, or one its ``hint`` spells out; for an
        error that only says what went wrong, one that the failing ``tool``'s documentation (its
        description) spells out."""
        if not isinstance(body, dict):
            return None
        following = body.get("next")
        if self.tier.has(Skill.FOLLOW_NEXT) and isinstance(following, dict):
            tool, arguments = following.get("tool"), following.get("arguments") or {}
            if isinstance(tool, str) and tool in self.specs and isinstance(arguments, dict):
                return Step(tool, arguments)
        if self.tier.has(Skill.READ_HINTS):
            texts = [body[key] for key in ("hint", "error") if isinstance(body.get(key), str)]
            spec = self.specs.get(tool) if tool is not None else None
            if spec is not None and "hint" not in body:  # the tool's documentation, read with the error
                texts.append(f"{spec.description} {body.get('error', '')}")
            for text in texts:
                step = self.step_in(text, avoid=tool)
                if step is not None:
                    return step
        return None

    def step_in(self, text: str, avoid: str | None = None) -> Step | None:
        """A call described in prose: a tool named whose required arguments can all be given (the
        episode's order picks among several).

        Arguments come from the text (``id 'x'``, or its only quoted value for a tool's only missing
        argument), then from what earlier calls returned. When no named tool can be called in full, the
        first one is probed with empty text for what is missing, so that its own error says where to get it.
        ``avoid`` (the tool that just failed) is never the answer: an error that names its own tool
        says what went wrong, not where to go.
        """
        named = sorted(
            (match.start(), name)
            for name in self.specs
            if name != avoid
            and (match := re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)) is not None
        )
        drafts = [(name, self._arguments_in(name, text)) for _, name in named]
        complete = [
            Step(name, arguments)
            for name, arguments in drafts
            if all(prop in arguments for prop in _required(self.specs[name]))
        ]
        if complete:
            return self.choices.order(complete)[0]
        blanks = {"string": "", "array": []}
        for name, arguments in drafts:
            properties = _properties(self.specs[name])
            missing = [p for p in _required(self.specs[name]) if p not in arguments]
            if all(properties.get(p, {}).get("type") in blanks for p in missing):
                return Step(name, {**arguments, **{p: blanks[properties[p]["type"]] for p in missing}})
        return None

    def _arguments_in(self, name: str, text: str) -> dict[str, Any]:
        spec = self.specs[name]
        arguments = {p: v for p in _properties(spec) if (v := _argument_in(text, p)) is not None}
        missing = [p for p in _required(spec) if p not in arguments]
        quoted = set(QUOTED.findall(text))
        if len(missing) == 1 and len(quoted) == 1:
            arguments[missing[0]] = quoted.pop()
        arguments.update({p: self.known[p] for p in missing if p in self.known and p not in arguments})
        return arguments

    def settle(self, tool: str, response: ToolResponse, depth: int) -> ToolResponse:
        """Poll a job until it is no longer pending, then fetch its result."""
        if not self.tier.has(Skill.POLL) or response.is_error or not _pending(response.body):
            return response
        job = response.body
        for _ in range(MAX_POLLS):
            if not _pending(response.body):
                break
            step = self.guided_step(response.body) or self.job_step(tool, job, "status")
            if step is None:
                return response
            self.trace.wait(retry_after(response) or 1.0)
            response = self.trace.call(step.tool, step.arguments, "The job is still running; poll it.")
            if response.is_error:
                return response
        fetch = self.job_step(tool, job, "result")
        if fetch is None:
            return response
        return self.request(
            fetch.tool, fetch.arguments, "The job is done; fetch its result.", depth=depth + 1
        )

    def job_step(self, origin: str, job: Mapping[str, Any], role: str) -> Step | None:
        """A tool named for ``role`` (status, result) that takes the job's ids, named most like ``origin``."""
        ids = {k: v for k, v in job.items() if k.endswith("id") and isinstance(v, SCALAR)}
        fitting = [
            name
            for name, spec in self.specs.items()
            if role in name and _required(spec) and all(r in ids for r in _required(spec))
        ]
        if not fitting:
            return None
        name = min(fitting, key=lambda n: (-_shared_prefix(n, origin), n))
        return Step(name, {r: ids[r] for r in _required(self.specs[name])})

    def resolve_fields(self, record: dict[str, Any]) -> dict[str, Any]:
        """Fetch or decode the fields a record says are kept elsewhere (``attached_fields``, ...)."""
        resolved = dict(record)
        for marker, notes in record.items():
            if not (marker.endswith("_fields") and isinstance(notes, dict)):
                continue
            left = dict(notes)
            for field, note in notes.items():
                step = self.step_in(str(note)) if field in record else None
                outcome = self.follow(step, 0, fresh=False) if step else None
                if outcome is None or outcome.is_error or not isinstance(outcome.body, dict):
                    continue
                found, value = self._value_from(outcome.body, field, record[field])
                if found:
                    resolved[field] = value
                    del left[field]
            if left:
                resolved[marker] = left
            else:
                resolved.pop(marker)
        return resolved

    def follow_links(self, record: dict[str, Any]) -> dict[str, Any]:
        """The record with what its links point to read in: the whole record behind a ``self`` link (its
        own links followed in turn), a field's value from the entry its link names."""
        links = record.get(LINKS)
        if not isinstance(links, dict):
            return record
        updated, left = {k: v for k, v in record.items() if k != LINKS}, {}
        for relation, target in links.items():
            parsed = parse_link(target)
            outcome = None
            if parsed is not None and parsed[0] in self.specs and (relation == SELF or relation in record):
                outcome = self.follow(Step(*parsed), 0, fresh=True)  # it may have changed since
            if outcome is None or outcome.is_error or not isinstance(outcome.body, dict):
                left[relation] = target
            elif relation == SELF:
                whole = {k: v for k, v in outcome.body.items() if k != LINKS}
                own = outcome.body.get(LINKS)
                updated.update(whole)
                if isinstance(own, dict):
                    updated = self.follow_links({**updated, LINKS: own})
            else:
                found, value = self._value_from(outcome.body, relation, record[relation])
                updated[relation] = value if found else record[relation]
        return {**updated, LINKS: left} if left else updated

    @staticmethod
    def _value_from(source: Mapping[str, Any], field: str, value: Any) -> tuple[bool, Any]:
        """A field's value from what its note led to: a codec to decode it with, or the content itself."""
        if "scheme" in source:
            return try_decode(str(source["scheme"]), source.get("shift"), value)
        for key in (field, "content", "value"):
            if key in source:
                return True, source[key]
        return False, value

    def all_pages(self, tool: str, arguments: Mapping[str, Any], body: Any) -> Any:
        """Every page of a paged result, merged into one (the plan's view of an unpaged tool)."""
        if not self.tier.has(Skill.PAGINATE) or not isinstance(body, dict) or not body.get("next_cursor"):
            return body
        cursor = next((p for p in sorted(_properties(self.specs.get(tool))) if "cursor" in p), None)
        key = (
            "items"
            if isinstance(body.get("items"), list)
            else next((k for k, v in body.items() if isinstance(v, list)), None)
        )
        if cursor is None or key is None:
            return body
        collected, page = list(body[key]), body
        while page.get("next_cursor"):
            following = {**arguments, **self.learned.get(tool, {}), cursor: page["next_cursor"]}
            response = self.request(tool, following, "Fetch the next page.")
            if response.is_error:
                _refuse(response)
            page = response.body if isinstance(response.body, dict) else {}
            collected.extend(page.get(key) or [])
        merged = {**body, key: collected, "next_cursor": None}
        if "count" in body:
            merged["count"] = len(collected)
        return merged
