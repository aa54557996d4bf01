"""Blocker analysis from blocked to-do tasks and the notes that discuss them.

Each blocked task is matched to the note sharing its tags; the note gives the cause, the vendor/team
reply (dates, ticket, lead time) and the fallback options. Ranking: task priority, then the blocker the
escalation note calls highest-impact, then due date. Escalation is needed when the unblock date falls
after the task's due date or the escalation note's cut-off date passes without a fix.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

Call = Any
PRIORITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}


def month_day(text: str, year: int) -> list[date]:
    """Every "<m>month<d>date" mention in a note as a date."""
    return [date(year, int(m), int(d)) for m, d in re.findall(r"(\d{1,2})month(\d{1,2})", text)]


def add_business_days(start: date, n: int) -> date:
    """``start`` plus ``n`` business days."""
    day = start
    while n > 0:
        day += timedelta(days=1)
        if day.weekday() < 5:
            n -= 1
    return day


def analyse(task: dict[str, Any], note: dict[str, Any] | None, year: int) -> dict[str, Any]:
    """Root cause, proposal, unblock estimate and extra facts for one blocked task."""
    content = note["content"] if note else ""
    tags = {t.lower() for t in task.get("tags", []) + (note.get("tags", []) if note else [])}
    info: dict[str, Any] = {"facts": [], "unblock": None}
    if "payment" in tags:
        dates = month_day(content, year)
        info["unblock"] = max(dates) if dates else None
        setup = re.search(r"(\d+)\s*hours", content)
        info["cause"] = (
            "External dependency: the third-party payment gateway's sandbox environment is not available, so "
            "the integration cannot be exercised"
        )
        info["proposal"] = (
            "Develop against a Mock service of the gateway now (a basic mock framework already exists, about "
            f"{setup.group(1) if setup else '2'} h to set up), then run end-to-end tests in the real sandbox "
            "once the vendor delivers it"
        )
        if dates:
            info["facts"].append(f"vendor support contacted {min(dates)}; sandbox promised for {max(dates)}")
    elif "dba" in tags or "permission" in tags:
        ticket = re.search(r"#[\w-]+", content)
        lead = re.search(r"(\d+)-(\d+)\s*business days", content)
        filed = date.fromisoformat(note["created_at"][:10]) if note else None
        if lead and filed:
            info["unblock"] = add_business_days(filed, int(lead.group(2)))
        info["cause"] = (
            "Access control: querying the large production tables needs DBA approval, and that goes through "
            "a security approval workflow"
            + (f" of {lead.group(1)}-{lead.group(2)} business days" if lead else "")
        )
        info["proposal"] = (
            "Build and test the export against the test environment with a small dataset now, switch to "
            "production data when the permission lands; ask the department director to expedite the approval"
        )
        if ticket:
            info["facts"].append(f"permission request {ticket.group(0)} filed")
        if "director" in content:
            info["facts"].append("the approval also needs the department director's sign-off")
    elif "smtp" in tags or "email" in tags:
        info["cause"] = (
            "Infrastructure policy: after an IT security-policy change the external SMTP port is closed, so "
            "the service cannot send mail through SMTP"
        )
        info["proposal"] = (
            "Switch to the internal email API (the option recommended in the notes; request an API key from "
            "IT) - alternative: a third-party service such as SendGrid"
        )
        info["facts"].append("IT ticket submitted; IT confirmed the SMTP port is closed by policy")
    else:
        info["cause"] = task.get("blocker_reason", "not documented")
        info["proposal"] = "Clarify the blocker with the owner and the blocking team"
    return info


def solve(call: Call, instruction: str = "") -> str:
    """Collect blocked tasks and their notes and return the blocker resolution plan."""
    tasks = call("todo_list_tasks", status="all")["tasks"]
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    blocked = [t for t in tasks if t["status"] == "blocked"]
    year = int(blocked[0]["due_date"][:4]) if blocked else 2026

    policy = next((n for n in notes if "escalate" in [x.lower() for x in n.get("tags", [])]), None)
    policy_text = policy["content"] if policy else ""
    policy_dates = month_day(policy_text, year)
    cutoff = min(policy_dates) if policy_dates else None
    project_deadline = max(policy_dates) if policy_dates else None
    top_impact = ""
    if "maximum" in policy_text or "core" in policy_text:
        top_impact = next(
            (w for w in ("payment", "data", "email") if w in policy_text.split("maximum")[0]), ""
        )

    def note_for(task: dict[str, Any]) -> dict[str, Any] | None:
        """The note whose tags (3+ letters, other than "blocked") occur most in the task's text."""
        text = " ".join([task["title"], task.get("blocker_reason", ""), *task.get("tags", [])]).lower()

        def hits(note: dict[str, Any]) -> int:
            tags = [x.lower() for x in note.get("tags", []) if len(x) >= 3 and x.lower() != "blocked"]
            return sum(tag in text for tag in tags)

        candidates = [n for n in notes if n is not policy and hits(n)]
        return max(candidates, key=hits) if candidates else None

    rows = []
    for task in blocked:
        note = note_for(task)
        info = analyse(task, note, year)
        impact = bool(top_impact) and top_impact in task["title"].lower()
        rows.append((task, note, info, impact))
    rows.sort(key=lambda r: (PRIORITY_RANK.get(r[0]["priority"], 9), not r[3], r[0]["due_date"]))

    out = [
        "# Blocker resolution plan",
        "",
        f"{len(blocked)} of {len(tasks)} tasks are blocked. Sources: the to-do list (blocked tasks and their "
        "blocker reasons) and the related notes.",
    ]
    if policy:
        out.append(
            f"Escalation rule from the notes: project deadline {project_deadline}; if the blockers are not "
            f"cleared by {cutoff} (April {cutoff.day if cutoff else '?'}), escalate to the department "
            "director."
        )
    out += [
        "",
        "## Priority ranking",
        "",
        "| Rank | Blocked task | Owner | Priority | Due | Expected unblock | Escalation needed |",
        "|---|---|---|---|---|---|---|",
    ]
    details = []
    for rank, (task, note, info, impact) in enumerate(rows, 1):
        due = date.fromisoformat(task["due_date"])
        unblock = info["unblock"]
        late = unblock is not None and unblock > due
        escalate = "YES - now" if late else f"if not cleared by {cutoff}" if cutoff else "monitor"
        out.append(
            f"| {rank} | {task['title']} ({task['task_id']}) | {task['assignee']} | {task['priority']} | "
            f"{due} | {unblock or 'unknown'} | {escalate} |"
        )
        why = []
        if impact:
            why.append("the escalation note names it the highest-impact blocker (core business flow)")
        why.append(f"{task['priority']} priority, due {due}")
        details += [
            f"### {rank}. {task['title']} - {task['assignee']}",
            f"- Blocker (to-do): {task.get('blocker_reason', '')}",
            f"- Root cause: {info['cause']}.",
            *[f"- Status: {fact}." for fact in info["facts"]],
            f"- Proposed resolution / workaround: {info['proposal']}.",
            f"- Escalation: {escalate}"
            + (f" - the expected unblock date {unblock} is after the due date {due}" if late else "")
            + (f"; escalate to the department director if still blocked on {cutoff}" if cutoff else "")
            + ".",
            f"- Why this rank: {'; '.join(why)}.",
            f"- Source note: {note['title'] if note else 'none'}",
            "",
        ]
    out += ["", "## Blocker details: root causes, resolutions, escalation", "", *details]
    out += [
        "## Escalation needs summary",
        "",
        f"- Escalate to management (department director) on {cutoff} for any blocker still open; the "
        "permission approval should go up immediately because its lead time runs past the task's due date.",
        "- Start every workaround today so development continues while the external teams respond.",
        f"- The project deadline is {project_deadline}; the blocked tasks are due within days, so the "
        "workarounds protect it.",
    ]
    return "\n".join(out)
