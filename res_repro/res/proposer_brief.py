"""The LLM proposer's first message: the task and its environment as a model needs them to propose a
realistic change that the checks accept.

It holds the objective (the task's prompt, which never changes), the tools an agent has with their
descriptions and schemas, what the environment holds (records, fields, files), how the reference solves
the task (its run on the parent, call by call), the changes accepted so far, the operators with their
parameters, the acceptance rules, and the candidate's files (listed; in ``single`` mode also their text
within a budget). Each section is bounded and says when it is cut. Nothing in it is a host path, so the
same parent gives the same message on every run (and the response cache answers a rerun).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.res.graph import DependencyGraph
from res_repro.res.operators import Application, Operator
from res_repro.res.proposer_tools import file_listing, read_page
from res_repro.res.run_evidence import render_trace

SYSTEM = (
    "You scale the environment of an agent task: you change the environment so that it is harder to act "
    "in, the way real services are (data spread over calls, paginated, renamed, related, gated, failing "
    "like real APIs), while the task's objective and grader stay exactly the same and the task stays "
    "solvable. You change it only through the operators of the catalogue. Read the task, see how the "
    "reference solution solves it, and choose a change that the reference's old way no longer gets past."
)

RULES = """A candidate is accepted only when every check passes:
- applied: each operator finds its change in the candidate, and the candidate differs from its parent.
- dependencies_feasible: the dependency graph stays acyclic and everything in it is reachable from the
  agent's first observation.
- objective_untouched: the instruction and the grader are unchanged.
- reference_passes: the reference solution, updated by the operators' adapters, still passes the candidate.
- nop_fails: an agent that does nothing still fails.
- parent_reference_fails: the parent's reference, as it was, fails the candidate or scores lower there than
  in its own environment; so the change must reach something the reference reads or calls.
A rejected candidate comes back to you with the failed check and its cause; revise your proposal. If no
operator of the catalogue can change this environment, propose no application and say why."""

SECTION_CHARS = {"objective": 8_000, "tools": 10_000, "trace": 8_000, "history": 4_000, "files": 20_000}


def bounded(text: str, budget: int) -> str:
    """``text`` cut to ``budget`` characters, saying so in the text when it is cut."""
    if len(text) <= budget:
        return text
    return f"{text[:budget]}\n[cut: {budget} of {len(text)} characters shown]"


@dataclass(frozen=True)
class BriefParts:
    """What the brief is made of."""

    task: Task  # the parent environment's task (its instruction is the objective)
    describe: dict[str, Any]  # the parent's draft description (records, fields, workspace files)
    graph: DependencyGraph  # what later changes may build on (empty without composition)
    history: Sequence[Application]  # the changes accepted so far, root first
    reference: EpisodeRecord | None  # the reference's run on the parent
    operators: Sequence[Operator]  # the catalogue (operators of the task's kind)
    per_child: int  # applications to propose
    root: Path  # the candidate's folder (read here; never named in the text)


def catalogue(operators: Sequence[Operator]) -> list[dict[str, Any]]:
    """Each operator's name, family, description and parameter schema."""
    return [
        {
            "name": op.name,
            "family": op.family.value,
            "description": op.description,
            "params_schema": op.params_schema,
        }
        for op in operators
    ]


def _history(history: Sequence[Application]) -> str:
    if not history:
        return "none: this is the original environment"
    lines = []
    for depth, application in enumerate(history, 1):
        params = json.dumps(application.params, ensure_ascii=False, sort_keys=True, default=str)
        lines.append(f"{depth}. {application.operator} ({application.family}): {params}")
    return "\n".join(lines)


def _tools(reference: EpisodeRecord | None) -> str:
    if reference is None or not reference.tools:
        return "unknown (the reference run recorded none)"
    return json.dumps(reference.tools, ensure_ascii=False, indent=1)


def file_contents(
    root: Path, listing: Sequence[dict[str, Any]], budget: int
) -> tuple[dict[str, str], list[str]]:
    """The text of the candidate's text files, whole, in path order while ``budget`` characters last,
    and the paths left out."""
    shown: dict[str, str] = {}
    left: list[str] = []
    for entry in listing:
        if entry["kind"] != "text":
            continue
        page = read_page(root, entry["path"], 0, max(budget, 0) + 1)
        text = page.get("text")
        if text is None or page.get("next_offset") is not None or len(text) > budget:
            left.append(entry["path"])
            continue
        shown[entry["path"]] = text
        budget -= len(text)
    return shown, left


def brief(parts: BriefParts, *, agentic: bool, context_chars: int, files_chars: int) -> str:
    """The first user message (see the module's description); ``context_chars`` bounds the environment's
    description and ``files_chars`` the files' text (``single`` mode)."""
    listing = file_listing(parts.root)
    trace = render_trace(parts.reference, SECTION_CHARS["trace"]) if parts.reference else "not run"
    sections = [
        (
            "Objective (the task's prompt; it never changes)",
            bounded(parts.task.instruction, SECTION_CHARS["objective"]),
        ),
        (
            "Tools the agent has (name, description, input schema)",
            bounded(_tools(parts.reference), SECTION_CHARS["tools"]),
        ),
        (
            "What the environment holds",
            bounded(json.dumps(parts.describe, ensure_ascii=False, indent=1, default=str), context_chars),
        ),
        ("How the reference solves it (its run on the parent, call by call)", trace),
        ("Changes accepted so far (root first)", bounded(_history(parts.history), SECTION_CHARS["history"])),
        ("Dependency graph", json.dumps(parts.graph.to_dict(), sort_keys=True)),
        ("Operator catalogue", json.dumps(catalogue(parts.operators), indent=1)),
        ("Acceptance rules", RULES),
        ("Files of the candidate", bounded(json.dumps(listing, ensure_ascii=False), SECTION_CHARS["files"])),
    ]
    if agentic:
        how = (
            "Inspect the candidate with list_files, read_file and read_reference_trace as you need, then "
            f"call propose_changes with {parts.per_child} application(s)."
        )
    else:
        shown, left = file_contents(parts.root, listing, files_chars)
        note = f" (left out for size: {', '.join(left)})" if left else ""
        sections.append((f"File contents{note}", json.dumps(shown, ensure_ascii=False)))
        how = f"Call propose_changes with {parts.per_child} application(s)."
    sections.append(("Your answer", how))
    return "\n\n".join(f"## {title}\n{body}" for title, body in sections)
