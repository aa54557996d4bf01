"""Pre-meeting brief for the StarCare Health pilot prep meeting from calendar, mail and meeting notes.

Finds the meeting on the calendar (widening the window if the day shows nothing), reads every mail and
note that mentions the client, and sorts their numbered/bulleted points into concerns, context and open
issues; talking points are derived from the topics those points raise.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

CLIENT = "StarCare"
MEETING_DATE = "2026-03-19"
RISK_WORDS = ("outstanding", "procurement", "security", "slow down", "not confirmed", "have not", "boundar")
CONTEXT_WORDS = ("pilot", "success criteria", "responsible", "concerned", "demo")


def points(text: str) -> list[str]:
    """Numbered or bulleted lines of a mail or note body."""
    return [m.strip() for m in re.findall(r"^\s*(?:\d+\.|-)\s+(.+)$", text, re.M)]


def mentions_client(*fields: Any) -> bool:
    """True when any field mentions the client (name or mail domain)."""
    text = " ".join(str(f) for f in fields).lower()
    return CLIENT.lower() in text or "starcare-health" in text


def find_meeting(call: Callable[..., Any]) -> dict[str, Any]:
    """The client's meeting on the meeting date, else the nearest one within a month."""
    for days in (1, 30):
        events = call("calendar_list_events", date=MEETING_DATE, days=days).get("events", [])
        hits = [e for e in events if mentions_client(e.get("title"), e.get("attendees"))]
        if hits:
            return call("calendar_get_event", event_id=hits[0]["event_id"])
    raise RuntimeError("no client meeting found on the calendar")


def attendee_name(address: str, names: list[str]) -> str:
    """Match a mail address such as lijing@... to a known 'Jing Li' style name."""
    local = address.split("@")[0].lower()
    for name in names:
        parts = name.lower().split()
        if len(parts) == 2 and local in (parts[1] + parts[0], parts[0] + parts[1]):
            return f"{name} ({address})"
    return address


def talking_points(text: str) -> list[str]:
    """Agenda items derived from the topics the client and colleagues raised."""
    low = text.lower()
    items = []
    if "soc 2" in low or "security materials" in low:
        items.append(
            "Compliance: state what SOC 2 (or equivalent) material we can share and when; hand over the "
            "data compliance statement and security materials checklist, with a named owner."
        )
    if "4-week" in low or "timeline" in low:
        items.append(
            "Timeline: walk through the 4-week pilot implementation plan against the start date the "
            "client asked about, with milestones, owners on both sides and the weekly check-in cadence."
        )
    if "his" in low and "read-only" in low:
        items.append(
            "HIS integration: propose read-only API access for phase one, no write-back; agree the API "
            "boundary in writing with the client's technical lead."
        )
    if "de-identified" in low:
        items.append(
            "Data: offer a demo on de-identified sample data first; define the go/no-go step to real data."
        )
    if "success criteria" in low:
        items.append(
            "Success criteria: confirm the workflows agreed at discovery as the pilot acceptance criteria."
        )
    if "procurement" in low:
        items.append(
            "Next steps: leave with an owner and due date for the procurement materials checklist and a "
            "materials list both sides sign off on."
        )
    return items


def solve(call: Callable[..., Any]) -> str:
    """Gather the meeting, mails and notes and return the structured brief."""
    event = find_meeting(call)
    listing = call("gmail_list_messages", days_back=3650, max_results=50).get("messages", [])
    mails = [
        call("gmail_get_message", message_id=m["message_id"])
        for m in listing
        if mentions_client(m.get("from"), m.get("subject"))
    ]
    mails = [m for m in mails if mentions_client(m.get("from"), m.get("subject"), m.get("body"))]
    note_list = call("notes_list", max_results=50).get("notes", [])
    notes = [call("notes_get", note_id=n["note_id"]) for n in note_list if mentions_client(n.get("title"))]

    names = sorted({p for n in notes for p in n.get("participants", []) if " " in p})
    client_mails = [m for m in mails if mentions_client(m.get("from"))]
    internal_mails = [m for m in mails if m not in client_mails]
    concerns = [(m, p) for m in client_mails for p in points(m["body"])]
    background = [(m, p) for m in internal_mails for p in points(m["body"])]
    note_points = [(n, p) for n in notes for p in points(n["content"])]
    risks = [(src, p) for src, p in background + note_points if any(w in p.lower() for w in RISK_WORDS)]
    context = [
        (n, p) for n, p in note_points if (n, p) not in risks and any(w in p.lower() for w in CONTEXT_WORDS)
    ]

    start, end = event["start_time"], event["end_time"]
    lines = [
        f"# Pre-Meeting Brief: {event['title']}",
        "",
        "## 1. Meeting Basics",
        f"- Meeting: {event['title']} (event {event['event_id']})",
        f"- Date/time: {start[:10]}, {start[11:16]}–{end[11:16]} (calendar time, UTC)",
        f"- Location: {event.get('location', 'not listed')}",
        "- Attendees: " + "; ".join(attendee_name(a, names) for a in event.get("attendees", [])),
        "",
        "## 2. Client's Current Concerns",
    ]
    for m, p in concerns:
        lines.append(f'- {p} (from {m["from"]}, "{m["subject"]}")')
    lines += ["", "Internal background (pre-sales):"]
    lines += [f"- {p} ({m['from']})" for m, p in background]
    lines += ["", "## 3. Historical Context and Success Criteria"]
    lines += [f"- {p} (note: {n['title']}, {n['created_at'][:10]})" for n, p in context]
    lines += ["", "## 4. Risks / Open Issues"]
    lines += [f"- {p}" for _, p in risks]
    lines += ["", "## 5. Recommended Talking Points and Next Steps"]
    all_text = " ".join(p for _, p in concerns + background + note_points)
    lines += [f"{i}. {t}" for i, t in enumerate(talking_points(all_text), 1)]
    lines += [
        "",
        f"Sources: calendar event {event['event_id']}; emails "
        + ", ".join(m["message_id"] for m in mails)
        + "; notes "
        + ", ".join(n["note_id"] for n in notes)
        + ".",
    ]
    return "\n".join(lines)
