"""The programmatic proposer as a model: it answers the LLM proposer's conversation with the applications
the seeded :class:`~res_repro.res.proposer.ProgrammaticProposer` would choose, working only from what
the requests carry.

It rebuilds the candidate in a scratch folder of its own from the conversation: the brief's file list
and, in ``single`` mode, the files' text; in ``agentic`` mode it first reads each file it lacks with
``read_file`` (every page it needs, in one turn) and rebuilds from the results. A single-mode brief that
left files out for size gets an empty proposal saying which. The dependency graph and the catalogue come
from the brief; operators of earlier proposals in the conversation go last, as the programmatic
proposer's rejected operators do. The choice is seeded by the simulator's seed, the request's seed and
the whole conversation, so a revision makes a different choice.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from res_repro.env.formats import detect_format
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS
from res_repro.res.proposer import ProgrammaticProposer, ProposalContext, ProposerCost
from res_repro.res.proposer_tools import LIST_FILES, PROPOSE, READ_FILE
from res_repro.simulation.wire import Answer, RequestError

MODEL = "sim-proposer"
FILES = "## Files of the candidate\n"
CONTENTS = "## File contents"
CATALOGUE = "## Operator catalogue\n"
GRAPH = "## Dependency graph\n"


def _section(brief: str, marker: str) -> Any:
    """The JSON value that opens the brief's section ``marker`` (None when it is absent or cut)."""
    start = brief.rfind(marker)
    if start < 0:
        return None
    rest = brief[start + len(marker) :]
    if marker == CONTENTS:
        rest = rest[rest.index("\n") + 1 :]
    try:
        return json.JSONDecoder().raw_decode(rest.lstrip())[0]
    except json.JSONDecodeError:
        return None


def _calls(messages: Sequence[Mapping[str, Any]]) -> list[tuple[str, dict[str, Any], str | None]]:
    """(tool, arguments, result) of every tool call in the conversation (result None while unanswered)."""
    results = {
        m.get("tool_call_id"): str(m.get("content") or "") for m in messages if m.get("role") == "tool"
    }
    found = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            try:
                arguments = json.loads(call["function"]["arguments"] or "{}")
            except json.JSONDecodeError:
                arguments = {}
            found.append((call["function"]["name"], arguments, results.get(call["id"])))
    return found


def _pages(calls: Sequence[tuple[str, dict[str, Any], str | None]]) -> dict[str, dict[int, dict[str, Any]]]:
    """The read_file pages the conversation holds, by path and offset."""
    pages: dict[str, dict[int, dict[str, Any]]] = {}
    for name, _, result in calls:
        if name != READ_FILE.name or not result:
            continue
        try:
            page = json.loads(result)
        except json.JSONDecodeError:
            continue
        if isinstance(page, dict) and "text" in page:
            pages.setdefault(str(page["path"]), {})[int(page["offset"])] = page
    return pages


def _assemble(pages: Mapping[int, dict[str, Any]]) -> tuple[str | None, int]:
    """A file's text from its pages (None while a page is missing) and the offset to read next."""
    text, offset = "", 0
    while offset in pages:
        page = pages[offset]
        text += page["text"]
        if page["next_offset"] is None:
            return text, -1
        offset = int(page["next_offset"])
    return None, offset


def _rebuild(folder: Path, listing: Sequence[dict[str, Any]], texts: Mapping[str, str]) -> None:
    """Write the candidate as the conversation shows it: text files whole, binary files as zeros of their
    size, links as links."""
    for entry in listing:
        path = folder / entry["path"]
        path.parent.mkdir(parents=True, exist_ok=True)
        if entry["kind"] == "link":
            os.symlink(entry["target"], path)
        elif entry["kind"] == "binary":
            path.write_bytes(b"\0" * int(entry["bytes"]))
        else:
            path.write_text(texts[entry["path"]], encoding="utf-8")


def _cannot_see(why: str) -> Answer:
    """An empty proposal saying what the conversation does not show (sent back to it as invalid)."""
    return Answer(text=json.dumps({"rationale": why, "applications": []}))


class ProposerModel:
    """Seeded operator choices for the LLM proposer's conversations."""

    def __init__(self, seed: int, per_child: int) -> None:
        self.seed = seed
        self.per_child = per_child

    def answer(self, body: Mapping[str, Any]) -> Answer:
        """The next step: read what is missing, or propose (see the module's description)."""
        messages: Sequence[Mapping[str, Any]] = body.get("messages") or []
        briefs = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
        if not briefs:
            raise RequestError("the conversation has no user message")
        brief, offered = briefs[0], {tool["function"]["name"] for tool in body.get("tools") or ()}
        calls = _calls(messages)
        listing = _section(brief, FILES)
        if listing is None:
            listed = [json.loads(result) for name, _, result in calls if name == LIST_FILES.name and result]
            if listed:
                listing = listed[-1]
            elif LIST_FILES.name in offered:
                return Answer(tool=LIST_FILES.name)
            else:
                return _cannot_see("the brief's file list is cut and list_files is not offered")
        texts = dict(_section(brief, CONTENTS) or {})
        pages = _pages(calls)
        wanted = []
        for entry in listing:
            if entry["kind"] != "text" or entry["path"] in texts:
                continue
            text, offset = _assemble(pages.get(entry["path"], {}))
            if text is None:
                wanted.append((READ_FILE.name, {"path": entry["path"], "offset": offset}))
            else:
                texts[entry["path"]] = text
        if wanted and READ_FILE.name in offered:
            (tool, arguments), *more = wanted
            return Answer(tool=tool, arguments=arguments, more=tuple(more))
        if wanted:
            missing = ", ".join(arguments["path"] for _, arguments in wanted)
            return Answer(
                text=json.dumps({"rationale": f"the brief does not show {missing}", "applications": []})
            )
        return self._propose(body, brief, listing, texts, calls)

    def _propose(
        self,
        body: Mapping[str, Any],
        brief: str,
        listing: Sequence[dict[str, Any]],
        texts: Mapping[str, str],
        calls: Sequence[tuple[str, dict[str, Any], str | None]],
    ) -> Answer:
        catalogue = _section(brief, CATALOGUE)
        if not isinstance(catalogue, list):
            raise RequestError("the brief has no operator catalogue")
        names = [entry["name"] for entry in catalogue if entry.get("name") in OPERATORS]
        proposed = [
            a
            for name, arguments, _ in calls
            if name == PROPOSE.name
            for a in arguments.get("applications", ())
        ]
        tried = [str(a.get("operator")) for a in proposed if isinstance(a, dict)]
        graph = DependencyGraph.from_dict(_section(brief, GRAPH) or {})
        conversation = json.dumps(list(body.get("messages") or []), sort_keys=True, default=str)
        digest = hashlib.sha256(f"{self.seed}-{body.get('seed')}-{conversation}".encode()).hexdigest()
        with tempfile.TemporaryDirectory(prefix="res-sim-candidate-") as scratch:
            folder = Path(scratch) / "task"
            _rebuild(folder, listing, texts)
            task_format = detect_format(folder)
            if task_format is None:
                raise RequestError(
                    "the files the conversation shows make no task directory of a known format"
                )
            proposer = ProgrammaticProposer([OPERATORS[name] for name in names], per_child=self.per_child)
            context = ProposalContext(draft=task_format.draft(folder), graph=graph, tried=tried)
            proposal = proposer.propose(context, random.Random(digest), ProposerCost())
        steps = proposal.steps if proposal else ()
        arguments = {
            "rationale": proposal.rationale if proposal else "no operator applies",
            "applications": [{"operator": name, "params": params} for name, params in steps],
        }
        if PROPOSE.name in {tool["function"]["name"] for tool in body.get("tools") or ()}:
            return Answer(tool=PROPOSE.name, arguments=json.loads(json.dumps(arguments, default=str)))
        return Answer(text=json.dumps(arguments, default=str))
