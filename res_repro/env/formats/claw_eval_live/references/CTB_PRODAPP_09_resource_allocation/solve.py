"""Team resource allocation from to-do task hours and calendar meeting hours.

For each open task, the hours its owner has free before the due date (8 h workdays minus meetings,
from the start of the working week) are compared with the estimate; the worst ratio per member is
the deadline pressure (>= 90% overloaded, < 40% underloaded). Work moves from overloaded members to the
underloaded member with the most spare hours who shares the task's domain (task tags, meeting topics).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta
from itertools import pairwise
from typing import Any

Call = Any
WORKDAY_HOURS = 8.0
OVERLOADED = 0.90
UNDERLOADED = 0.40
TARGET = 0.80
DOMAINS = ("frontend", "backend", "database", "design", "testing", "performance", "api")


def hours(event: dict[str, Any]) -> float:
    """Length of an event in hours."""
    start = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00"))
    return (end - start).total_seconds() / 3600


def workdays(first: date, last: date) -> list[date]:
    """Monday-Friday dates from ``first`` to ``last`` inclusive."""
    days, day = [], first
    while day <= last:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def domains_of(text: str) -> set[str]:
    """Skill domains mentioned in a task tag list or meeting title."""
    low = text.lower()
    return {d for d in DOMAINS if d in low}


def both_orders(name: str) -> str:
    """A two-part name with the surname-first form the team also uses, e.g. "Lei Chen (Chen Lei)"."""
    parts = name.split()
    return f"{name} ({parts[1]} {parts[0]})" if len(parts) == 2 else name


def fmt(value: float) -> str:
    """A number without a trailing .0."""
    return f"{value:g}" if value == int(value) else f"{value:.1f}"


def solve(call: Call, instruction: str = "") -> str:
    """Read tasks and meetings, measure each member's load and return the allocation analysis."""
    tasks = [t for t in call("todo_list_tasks", status="all")["tasks"] if t.get("status") != "done"]
    dues = [date.fromisoformat(t["due_date"]) for t in tasks]
    week_start = min(dues) - timedelta(days=min(dues).weekday())
    last = max(dues)
    events = call("calendar_list_events", date=week_start.isoformat(), days=(last - week_start).days + 1)[
        "events"
    ]
    days = workdays(week_start, last)

    members: list[str] = []
    for name in [t["assignee"] for t in tasks] + [a for e in events for a in e.get("attendees", [])]:
        if name and name not in members:
            members.append(name)
    meetings: dict[str, dict[date, float]] = {m: defaultdict(float) for m in members}
    meeting_list: dict[str, list[dict[str, Any]]] = defaultdict(list)
    skills: dict[str, set[str]] = defaultdict(set)
    for event in events:
        for name in event.get("attendees", []):
            meetings[name][date.fromisoformat(event["start_time"][:10])] += hours(event)
            meeting_list[name].append(event)
            skills[name] |= domains_of(event["title"])
    for task in tasks:
        skills[task["assignee"]] |= domains_of(" ".join(task.get("tags", [])) + " " + task["title"])

    def free_until(member: str, due: date) -> float:
        return sum(max(WORKDAY_HOURS - meetings[member][d], 0) for d in days if d <= due)

    rows = []
    pressure: dict[str, float] = {}
    for member in members:
        own = [t for t in tasks if t["assignee"] == member]
        task_h = sum(t["estimated_hours"] for t in own)
        meet_h = sum(meetings[member].values())
        worst = 0.0
        for task in own:
            worst = max(
                worst, task["estimated_hours"] / free_until(member, date.fromisoformat(task["due_date"]))
            )
        pressure[member] = worst
        capacity = WORKDAY_HOURS * len(days)
        rows.append((member, own, task_h, meet_h, (task_h + meet_h) / capacity, worst))

    overloaded = [m for m in members if pressure[m] >= OVERLOADED]
    underloaded = [m for m in members if pressure[m] < UNDERLOADED]
    out = [
        "# Team resource allocation analysis",
        "",
        f"Window: {days[0]} to {days[-1]} ({len(days)} workdays x {fmt(WORKDAY_HOURS)} h = "
        f"{fmt(WORKDAY_HOURS * len(days))} h per person). Sources: {len(tasks)} open to-do tasks and "
        f"{len(events)} calendar meetings.",
        "Deadline pressure = task estimate / hours the owner has free (after meetings) from the start of the "
        "week up to the task's due date; the highest value per member is shown.",
        "",
        "## Per-person workload",
        "",
        "| Member | Open tasks | Task h | Meeting h | Week utilization | Deadline pressure | Status |",
        "|---|---|---|---|---|---|---|",
    ]
    for member, own, task_h, meet_h, util, worst in sorted(rows, key=lambda r: -r[5]):
        status = "OVERLOADED" if member in overloaded else "underloaded" if member in underloaded else "ok"
        out.append(
            f"| {both_orders(member)} | {len(own)} | {fmt(task_h)} | {fmt(meet_h)} | {util:.0%} | "
            f"{worst:.0%} | {status} |"
        )
    out += ["", "Task detail:", ""]
    for task in sorted(tasks, key=lambda t: t["due_date"]):
        free = free_until(task["assignee"], date.fromisoformat(task["due_date"]))
        out.append(
            f"- {task['title']} ({task['task_id']}) - {task['assignee']}, {task['priority']}, "
            f"{task['status']}, {fmt(task['estimated_hours'])} h, due {task['due_date']}; owner has "
            f"{fmt(free)} h free before then."
        )

    out += ["", "## Meeting density and scheduling conflicts", ""]
    for member in members:
        for day, booked in sorted(meetings[member].items()):
            if booked >= 3.5:
                titles = [e["title"] for e in meeting_list[member] if e["start_time"][:10] == day.isoformat()]
                due_soon = [
                    t["title"]
                    for t in tasks
                    if t["assignee"] == member and 0 <= (date.fromisoformat(t["due_date"]) - day).days <= 1
                ]
                note = f"; conflicts with the deadline of {', '.join(due_soon)}" if due_soon else ""
                out.append(f"- {member}: {fmt(booked)} h of meetings on {day} ({', '.join(titles)}){note}.")
    overlaps = []
    for member in members:
        mine = sorted(meeting_list[member], key=lambda e: e["start_time"])
        for a, b in pairwise(mine):
            if b["start_time"] < a["end_time"]:
                overlaps.append(f"{member}: {a['title']} overlaps {b['title']}")
    out.append(
        "- Double-booked meetings: " + ("; ".join(overlaps) if overlaps else "none (no overlapping slots).")
    )
    out.append(
        "- Meeting-heavy members: "
        + ", ".join(
            f"{m} {fmt(sum(meetings[m].values()))} h"
            for m in sorted(members, key=lambda m: -sum(meetings[m].values()))[:3]
        )
        + "."
    )

    out += ["", "## Overloaded / underloaded members", ""]
    for member in overloaded:
        out.append(
            f"- Overloaded: {member} - deadline pressure {pressure[member]:.0%} (needs as many or more hours "
            "than are free before the due date)."
        )
    for member in underloaded:
        own = [t for t in tasks if t["assignee"] == member]
        out.append(
            f"- Underloaded: {member} - pressure {pressure[member]:.0%}, {len(own)} open task(s), "
            f"{fmt(sum(meetings[member].values()))} h of meetings; has spare capacity."
        )

    out += ["", "## Task redistribution recommendations", ""]
    spare = {
        m: free_until(m, days[-1]) - sum(t["estimated_hours"] for t in tasks if t["assignee"] == m)
        for m in members
    }
    for member in overloaded:
        for task in [t for t in tasks if t["assignee"] == member]:
            due = date.fromisoformat(task["due_date"])
            free = free_until(member, due)
            move = max(task["estimated_hours"] - TARGET * free, 0)
            if move <= 0:
                continue
            need = domains_of(" ".join(task.get("tags", [])) + " " + task["title"])
            candidates = sorted(underloaded, key=lambda m: (-len(skills[m] & need), -spare[m]))
            helper = candidates[0] if candidates else min(members, key=lambda m: pressure[m])
            shared = ", ".join(sorted(skills[helper] & need)) or "general"
            spare[helper] -= move
            out.append(
                f"- Transfer about {fmt(round(move))} h of {task['title']} ({task['task_id']}) from {member} "
                f"to {helper} (shared domain: {shared}; {helper} has {fmt(free_until(helper, due))} h free "
                f"before {task['due_date']}). This brings {member} to about {TARGET:.0%} of free time."
            )
    idle = [m for m in underloaded if not any(t["assignee"] == m for t in tasks)]
    for member in idle:
        out.append(
            f"- {member} has no assigned tasks; recommend delegating review/testing or sub-tasks of the "
            f"overloaded members' work to {member}, matched to skills "
            f"({', '.join(sorted(skills[member])) or 'n/a'})."
        )
    out.append(
        "- Protect focus time: excuse overloaded members from optional meetings in the days before their "
        "deadlines, and avoid adding new meetings on the densest days listed above."
    )
    out.append(
        "- Rebalance weekly: re-run this check after the transfers so no one stays above 90% deadline "
        "pressure."
    )
    return "\n".join(out)
