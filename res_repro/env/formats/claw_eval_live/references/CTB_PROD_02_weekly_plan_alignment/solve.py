"""Three-source alignment: weekly-meeting resolutions vs calendar events vs TODO tasks.

Resolutions are the numbered lines of the weekly minutes, each with owner, date (weekday names resolved
through the dates the note itself gives) and time. A resolution matches a calendar event or task sharing
at least two content words; scheduled activities need a calendar event, owned work needs a task. Matched
pairs are checked for date and assignee; everything else is listed as missing.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

Call = Any
STOP = {
    "to", "the", "by", "this", "give", "complete", "submit", "next", "due", "and", "with", "on", "for",
    "all", "hands", "all-hands", "reminder", "materials", "window",
}  # fmt: skip
SCHEDULED = ("demo", "rehearsal", "drill", "meeting", "expansion", "launch", "workshop")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def words(text: str) -> set[str]:
    """Content words of a title or sentence."""
    return {w for w in re.findall(r"[a-z][a-z-]+", text.lower()) if w not in STOP and len(w) > 2}


def squash(name: str) -> str:
    """ "Zhang Wei" / "zhangwei@x" -> "zhangwei"."""
    return re.sub(r"[^a-z]", "", name.split("@")[0].lower())


def parse_resolutions(note: dict[str, Any]) -> list[dict[str, Any]]:
    """Numbered resolutions with owner, date and time."""
    year = int(note["created_at"][:4])
    content = note["content"]
    weekday_dates: dict[str, date] = {}
    for day, month, dom in re.findall(r"(\w+day)\s*\((\d{1,2})/(\d{1,2})\)", content, re.I):
        weekday_dates[day.lower()] = date(year, int(month), int(dom))
    items = []
    for text in re.findall(r"^\d+\.\s*(.+)$", content, re.M):
        owner = re.match(r"([A-Z][a-z]+ [A-Z][a-z]+) to ", text)
        found = re.search(r"(\d{1,2})/(\d{1,2})", text)
        when = date(year, int(found.group(1)), int(found.group(2))) if found else None
        if when is None:
            day = next((d for d in WEEKDAYS if d in text.lower()), None)
            when = weekday_dates.get(day) if day else None
        time = re.search(r"(\d{1,2}:\d{2})\s*to\s*(\d{1,2}:\d{2})\s*(AM|PM)?", text)
        items.append(
            {
                "text": text.strip(),
                "owner": owner.group(1) if owner else None,
                "date": when,
                "time": f"{time.group(1)}-{time.group(2)} {time.group(3) or ''}".strip() if time else None,
                "needs_calendar": any(k in text.lower() for k in SCHEDULED),
                "needs_todo": not text.lower().startswith("reminder"),
            }
        )
    return items


def best_match(text: str, candidates: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The candidate sharing the most content words with ``text`` (at least two)."""
    scored = [(len(words(text) & words(c["title"])), c) for c in candidates]
    score, best = max(scored, key=lambda s: s[0], default=(0, None))
    return best if score >= 2 else None


def event_date(event: dict[str, Any]) -> date:
    """Local calendar date of an event as written in its start time."""
    return date.fromisoformat(event["start_time"][:10])


def solve(call: Call, instruction: str = "") -> str:
    """Read the minutes, calendar and backlog, align them and return the report."""
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    minutes = next((n for n in notes if "minutes" in n["title"].lower()), notes[0])
    memos = [n for n in notes if n is not minutes]
    resolutions = parse_resolutions(minutes)
    week_start = date.fromisoformat(minutes["created_at"][:10])
    week_start -= timedelta(days=week_start.weekday())
    events = call("calendar_list_events", date=week_start.isoformat(), days=14)["events"]
    shifted = False
    if not events:
        today = datetime.now(UTC).date()
        events = call("calendar_list_events", date=today.isoformat(), days=21)["events"]
        shifted = bool(events)
    tasks = call("todo_list_tasks", status="all")["tasks"]

    consistent, inconsistent, missing, actions = [], [], [], []
    used_events, used_tasks = set(), set()
    for res in resolutions:
        label = res["text"]
        when = f"{res['date']:%m/%d}".lstrip("0") if res["date"] else "no date"
        event = best_match(label, events)
        task = best_match(label, tasks)
        checks = []
        if event:
            used_events.add(event["event_id"])
            if not shifted and res["date"] and event_date(event) != res["date"]:
                inconsistent.append(
                    f"{label} - date: notes {when} vs calendar {event_date(event):%m/%d} ({event['title']})"
                )
            else:
                checks.append(f"calendar '{event['title']}' on {event['start_time'][:16]}")
            attendees = {squash(a) for a in event.get("attendees", [])}
            if res["owner"] and squash(res["owner"]) not in attendees and "all" not in attendees:
                inconsistent.append(
                    f"{label} - owner {res['owner']} is not an attendee of '{event['title']}'"
                )
        elif res["needs_calendar"]:
            slot = f" {res['time']}" if res["time"] else ""
            missing.append(f"Calendar missing: {label} (notes date {when}{slot})")
            actions.append(f"Create a calendar event for '{label}' on {when}{slot}.")
        if task:
            used_tasks.add(task["task_id"])
            if res["date"] and task.get("due_date") and date.fromisoformat(task["due_date"]) != res["date"]:
                inconsistent.append(
                    f"{label} - deadline: notes {when} vs TODO {task['task_id']} '{task['title']}' due "
                    f"{task['due_date']} (date mismatch)"
                )
                actions.append(
                    f"Confirm the real deadline of {task['task_id']} with {res['owner'] or 'the owner'} and "
                    f"correct whichever source is wrong (notes say {when}, TODO says {task['due_date']})."
                )
            else:
                checks.append(f"TODO {task['task_id']} due {task['due_date']}")
            if res["owner"] and squash(task.get("assignee", "")) != squash(res["owner"]):
                inconsistent.append(
                    f"{label} - assignee: notes {res['owner']} vs TODO {task.get('assignee') or 'unassigned'}"
                )
            elif res["owner"]:
                checks.append(f"assignee {task['assignee']} matches")
        elif res["needs_todo"]:
            owner = res["owner"] or "the organiser"
            missing.append(f"TODO missing: {label} (owner {owner}, due {when})")
            actions.append(f"Add a TODO task for '{label}' assigned to {owner}, due {when}.")
        if checks and not any(label in x for x in inconsistent):
            consistent.append(f"{label}: " + "; ".join(checks))

    out = [
        "# Three-source alignment report",
        "",
        f"Baseline: {minutes['title']} ({len(resolutions)} resolutions), plus {len(memos)} related memo(s). "
        f"Compared with {len(events)} calendar events (this week and next) and {len(tasks)} TODO tasks.",
    ]
    if shifted:
        out.append(
            "Note: the calendar returned no events for the meeting's weeks; the events it holds were found "
            "at "
            "later dates, so calendar matching below is by title only and calendar dates are not compared."
        )
    out += ["", "## Resolutions checked", ""]
    for i, res in enumerate(resolutions, 1):
        extra = f", {res['time']}" if res["time"] else ""
        when = res["date"].isoformat() if res["date"] else "no date"
        out.append(f"{i}. {res['text']} - owner {res['owner'] or 'all'}, date {when}{extra}")
    out += ["", "## Consistent items", ""]
    out += [f"- {c}" for c in consistent] or ["- none"]
    out += ["", "## Inconsistent items (notes value vs calendar/TODO value)", ""]
    out += [f"- {c}" for c in inconsistent] or ["- none"]
    out += ["", "## Missing items (in the notes but not in calendar or TODO)", ""]
    out += [f"- {c}" for c in missing] or ["- none"]

    extra_events = [e for e in events if e["event_id"] not in used_events]
    extra_tasks = [t for t in tasks if t["task_id"] not in used_tasks]
    out += ["", "## Items only in calendar/TODO (context)", ""]
    memo_text = " ".join(m["content"] for m in memos).lower()
    for task in extra_tasks:
        source = (
            "covered by the roadmap memo" if words(task["title"]) & words(memo_text) else "not in the notes"
        )
        out.append(
            f"- TODO {task['task_id']} {task['title']} ({task['assignee']}, due {task['due_date']}): {source}"
        )
    for event in extra_events:
        out.append(f"- Calendar '{event['title']}' {event['start_time'][:16]}: routine / not a resolution")

    out += ["", "## Recommended follow-up actions", ""]
    out += [f"{i}. {a}" for i, a in enumerate(actions, 1)]
    out.append(
        f"{len(actions) + 1}. Going forward, the meeting owner should add calendar events and TODO tasks for "
        "every resolution right after the weekly meeting, so the three sources stay aligned."
    )
    return "\n".join(out)
