"""Launch readiness: read the launch emails, checklist notes, calendar and to-dos, then decide go/no-go.

Checklist items are named from each to-do's text and owner (keyword rules) and take the to-do status;
items the status email lists as done (staging soak, rollback plan) are added. The deployment timeline
is parsed from the DevOps email ('HH:MM ...' steps), lessons from the previous release's review note.
Go when every pre-release item that protects the rollout (tests, security, staging, rollback) is done.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

# checklist item, (keywords in title/description/assignee) - first match wins
ITEM_RULES: list[tuple[str, tuple[str, ...]]] = [
    ("Functional test (QA)", ("qa@",)),
    ("Security scan", ("security@",)),
    ("Release notes / changelog", ("releasedescription", "changelog")),
    ("Canary deployment 10% -> 50% -> 100%", ("10%",)),
    ("Customer notification email", ("notification",)),
    ("Monitoring alert thresholds", ("monitoring",)),
]
CRITICAL = ("Functional test", "Security scan", "Staging", "Rollback")
STATUS = {"completed": "completed", "in_progress": "in progress", "pending": "pending"}


def _fetch(call: Call) -> dict[str, list[dict[str, Any]]]:
    listed = call("gmail_list_messages", days_back=365).get("messages", [])
    notes = call("notes_list_documents").get("notes", [])
    return {
        "emails": [call("gmail_get_message", message_id=m["message_id"]) for m in listed],
        "notes": [call("notes_get_document", note_id=n["note_id"]) for n in notes],
        "events": call("calendar_list_events", start_date="2026-01-01", days=1500).get("events", []),
        "todos": call("todo_list_tasks", status="all").get("tasks", []),
    }


def _item_name(todo: dict[str, Any]) -> str:
    text = f"{todo.get('title', '')} {todo.get('description', '')} {todo.get('assignee', '')}".lower()
    return next((name for name, words in ITEM_RULES if any(w in text for w in words)), todo.get("title", ""))


def _checklist(data: dict[str, list[dict[str, Any]]], status_mail: str) -> list[dict[str, str]]:
    """To-do backed items plus the items the status email reports as done."""
    items = [
        {
            "item": _item_name(t),
            "status": STATUS.get(t.get("status", ""), t.get("status", "")),
            "owner": t.get("assignee", "").split("@")[0],
            "due": t.get("due_date", ""),
            "source": t["task_id"],
        }
        for t in data["todos"]
    ]
    done_part = status_mail.split("completed：")[1] if "completed：" in status_mail else ""
    cases = re.search(r"\((\d+)\)", done_part)
    cves = re.search(r"(\d+)CVE", done_part)
    soak = re.search(r"Staging\w*：(\d+)hours", done_part)
    for it in items:
        if it["item"].startswith("Functional") and cases:
            it["item"] += f" - {cases.group(1)} cases"
        if it["item"].startswith("Security") and cves:
            it["item"] += f" - {cves.group(1)} CVEs fixed"
    if soak:
        items.append(
            {
                "item": f"Staging deployment soak ({soak.group(1)}h)",
                "status": "completed",
                "owner": "devops",
                "due": "",
                "source": "status email",
            }
        )
    if "rollback" in done_part.lower():
        items.append(
            {
                "item": "Rollback plan prepared",
                "status": "completed",
                "owner": "devops",
                "due": "",
                "source": "status email",
            }
        )
    training = next((e for e in data["events"] if "training" in e.get("title", "").lower()), None)
    release = min((e["start_time"] for e in data["events"] if "release" in e.get("title", "")), default="")
    if training:
        days = (
            (date.fromisoformat(training["start_time"][:10]) - date.fromisoformat(release[:10])).days
            if release
            else 0
        )
        when = f"launch day {days:+d} days (calendar)" if release else training["start_time"][:10]
        items.append(
            {
                "item": "Support team training on v2.2 features",
                "status": "scheduled",
                "owner": "training / cs",
                "due": when,
                "source": training["event_id"],
            }
        )
    return items


def _timeline(deploy_mail: str) -> list[tuple[str, str]]:
    """('HH:MM[-HH:MM]', step) pairs from the deployment email."""
    marks = list(re.finditer(r"\d{2}:\d{2}(?:-\d{2}:\d{2})?", deploy_mail))
    ends = [m.start() for m in marks[1:]] + [len(deploy_mail)]
    steps = [(m.group(0), deploy_mail[m.end() : end]) for m, end in zip(marks, ends, strict=True)]
    out = []
    for when, what in steps:
        what = (what or "").strip()
        pct = re.match(r"(\d+)%(\d+)minutes", what)
        if pct:
            what = f"canary {pct.group(1)}% of traffic, hold {pct.group(2)} minutes"
        elif what.startswith("release"):
            what = "full rollout (100%)"
        elif "monitoring" in what:
            what = "continuous monitoring"
        elif "confirm" in what:
            what = "confirm release success or roll back"
        else:
            what = "preparation step before traffic shifts (step label not legible in the email)"
        out.append((when, what))
    return out


def _lessons(notes: list[dict[str, Any]]) -> list[str]:
    """Lessons from the previous release review note, turned into checks for this release."""
    review = next((n for n in notes if "v2.1" in n.get("tags", [])), None)
    if not review:
        return []
    text = review.get("content", "")
    lessons = []
    if "notification" in text:
        lessons.append(
            "v2.1: customers were notified late -> send the VIP / customer notification before the release"
        )
    if "API" in text:
        lessons.append(
            "v2.1: monitoring gaps -> add API response time and error-rate monitoring before go-live"
        )
    if "rollback" in text:
        lessons.append("v2.1: rollback was slow -> run a rollback drill (test) before release day")
    return lessons


def solve(call: Call) -> str:
    """Assess launch readiness and write the report with checklist, blockers and a go/no-go call."""
    data = _fetch(call)
    emails = {e.get("from", "").split("@")[0]: e for e in data["emails"]}
    status_mail = next((e["body"] for e in data["emails"] if "completed" in e.get("body", "")), "")
    deploy_mail = emails.get("devops", {}).get("body", "")
    items = _checklist(data, status_mail)
    timeline = _timeline(deploy_mail)
    lessons = _lessons(data["notes"])
    launch = re.search(r"plan(\d)(\d{2})", deploy_mail)
    launch_day = f"2026-0{launch.group(1)}-{launch.group(2)}" if launch else "the planned day"
    risk = re.search(r"risk：\s*-\s*([^\n]*?connection[^\n]*)", status_mail)

    critical_done = all(
        any(i["item"].startswith(c) and i["status"] == "completed" for i in items) for c in CRITICAL
    )
    open_items = [i for i in items if i["status"] != "completed"]

    lines = ["# v2.2 Launch Readiness Report", ""]
    lines.append(
        f"Decision: **{'Go' if critical_done else 'No-Go'}** for the {launch_day} release window - all "
        "critical pre-release items (functional test, security scan, staging, rollback plan) are "
        f"{'complete' if critical_done else 'NOT complete'}; {len(open_items)} remaining items are "
        "launch-day or documentation tasks with owners and due dates."
    )
    lines += [
        "",
        "## Checklist status",
        "",
        "| Item | Status | Owner | Due | Source |",
        "|---|---|---|---|---|",
    ]
    for i in sorted(
        items,
        key=lambda i: (
            ["completed", "in progress", "scheduled", "pending"].index(i["status"])
            if i["status"] in ("completed", "in progress", "scheduled", "pending")
            else 3
        ),
    ):
        lines.append(f"| {i['item']} | {i['status']} | {i['owner']} | {i['due']} | {i['source']} |")

    lines += ["", "## Blockers and risks"]
    if risk:
        lines.append(
            "- Known risk from the status email: one feature's connections may run out under load "
            "(connection pool risk); the permanent fix is scheduled for v2.3. Recommended temporary "
            "mitigation: expansion of the connection pool and an alert on pool usage before launch."
        )
    for i in open_items:
        when = "runs on launch day" if i["due"] == launch_day else "must finish before go-live"
        if "+" in i["due"]:
            when = "scheduled only after launch - move it before go-live so support is ready"
        lines.append(f"- {i['status']}: {i['item']} (owner {i['owner']}, due {i['due']}) - {when}")

    lines += ["", f"## Launch-day timeline ({launch_day}, from the DevOps deployment plan)"]
    lines += [f"- {when}: {what}" for when, what in timeline]
    rollback = re.search(r"rollback：\w*?(\d+)hours", deploy_mail)
    if rollback:
        lines.append(f"- Rollback window: within {rollback.group(1)} hours of release if checks fail")

    lines += ["", "## Calendar"]
    lines += [
        f"- {e['start_time'][:16].replace('T', ' ')} {e['title']} "
        f"({', '.join(a for a in e.get('attendees', []) if a)})"
        for e in data["events"]
    ]
    lines.append(
        f"- Go/no-go meeting: propose the afternoon before {launch_day} with QA, DevOps, docs and CS leads; "
        "the calendar tool here is read-only, so it is listed for the release owner to book."
    )
    lines += ["", "## Lessons from v2.1 applied"]
    lines += [f"- {lesson}" for lesson in lessons]
    lines += ["", "## Recommendations"]
    lines.append(
        f"1. Recommend launch (Go) on {launch_day} as planned, conditional on the pending items below."
    )
    lines.append(
        "2. Finish release notes and monitoring thresholds (incl. API response time/error alerts) the day "
        "before."
    )
    lines.append("3. Send the customer notification (VIP customers first) before the canary starts.")
    lines.append(
        "4. Rehearse the rollback once on staging and keep the pool-expansion mitigation ready for the "
        "risky feature."
    )
    lines.append(
        "5. To-dos for docs update and support training already exist or are tracked above; the to-do tool "
        "here is read-only, so no new to-dos were created."
    )
    return "\n".join(lines)
