"""The programmatic proposer as a model: it answers the LLM proposer's prompt with the JSON applications
the seeded :class:`~res_repro.res.proposer.ProgrammaticProposer` would choose.

The prompt's environment summary names the candidate's working directory (``workdir``), which is opened
through the format registry; its dependency graph and the operator catalogue come from the prompt too.
The choice is seeded by the simulator's seed, the request's seed and the whole conversation, so a
revision (whose prompt carries the failed checks) makes a different choice, and operators that the
feedback names go last, as the programmatic proposer's rejected operators do.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from res_repro.env.formats import detect_format
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import OPERATORS
from res_repro.res.proposer import ProgrammaticProposer, ProposalContext, ProposerCost
from res_repro.simulation.wire import Answer, RequestError

MODEL = "sim-proposer"
CATALOGUE = "Operator catalogue:"
WORKDIR = re.compile(r'"workdir":\s*("(?:[^"\\]|\\.)*")')


def _decode_after(text: str, marker: str) -> tuple[Any, str]:
    """The JSON value that follows ``marker`` in ``text``, and the text after it."""
    start = text.find(marker)
    if start < 0:
        raise RequestError(f"the prompt has no {marker!r} section")
    rest = text[start + len(marker) :].lstrip()
    try:
        value, end = json.JSONDecoder().raw_decode(rest)
    except json.JSONDecodeError as exc:
        raise RequestError(f"the {marker!r} section is not JSON: {exc}") from None
    return value, rest[end:]


def _graph(prompt: str) -> DependencyGraph:
    """The dependency graph of the summary (the JSON object holding ``dependency_graph``)."""
    match = re.search(r'"dependency_graph":\s*', prompt)
    if match is None:
        return DependencyGraph()
    return DependencyGraph.from_dict(json.JSONDecoder().raw_decode(prompt[match.end() :])[0])


class ProposerModel:
    """Seeded operator choices for the LLM proposer's prompts."""

    def __init__(self, seed: int, per_child: int) -> None:
        self.seed = seed
        self.per_child = per_child

    def answer(self, body: Mapping[str, Any]) -> Answer:
        """The applications the programmatic proposer picks for the candidate the prompt describes."""
        messages: Sequence[Mapping[str, Any]] = body.get("messages") or []
        prompt = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        match = WORKDIR.search(prompt)
        if match is None:
            raise RequestError("the environment summary names no workdir")
        workdir = Path(json.loads(match.group(1)))
        task_format = detect_format(workdir)
        if task_format is None:
            raise RequestError(f"{workdir}: not a task directory of any known format")
        catalogue, feedback = _decode_after(prompt, CATALOGUE)
        names = [entry["name"] for entry in catalogue if entry.get("name") in OPERATORS]
        tried = [name for name in names if re.search(rf"\b{re.escape(name)}\b", feedback)]
        conversation = json.dumps(list(messages), sort_keys=True, default=str)
        digest = hashlib.sha256(f"{self.seed}-{body.get('seed')}-{conversation}".encode()).hexdigest()
        proposer = ProgrammaticProposer([OPERATORS[name] for name in names], per_child=self.per_child)
        context = ProposalContext(draft=task_format.draft(workdir), graph=_graph(prompt), tried=tried)
        proposal = proposer.propose(context, random.Random(digest), ProposerCost())
        steps = proposal.steps if proposal else ()
        reply = {
            "rationale": proposal.rationale if proposal else "no operator applies",
            "applications": [{"operator": name, "params": params} for name, params in steps],
        }
        return Answer(text=json.dumps(reply, default=str))
