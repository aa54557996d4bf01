"""Weekly team plan for April 6-10 from calendar meetings, to-do estimates and the scheduling note.

Meeting and review hours per person and day come from the calendar; the rest of an 8-hour day minus a
1-hour buffer is development capacity, filled greedily (critical first, then earliest due date) up to
each task's due date. A task is flagged when capacity before its due date is under 1.2x its estimate.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, datetime, timedelta
from typing import Any

Call = Any
WORKDAY_HOURS = 8.0
BUFFER_HOURS = 1.0
MEETING_CAP_HOURS = 3.0
RISK_FACTOR = 1.2
PRIORITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6}


def week_days(instruction: str, year: int) -> list[date]:
    """The workdays named in the prompt ("April 6-10"), else April 6-10 of ``year``."""
    match = re.search(r"(January|February|March|April|May|June)\s+(\d{1,2})\s*-\s*(\d{1,2})", instruction)
    if match:
        month = MONTHS[match.group(1).lower()]
        first, last = int(match.group(2)), int(match.group(3))
    else:
        month, first, last = 4, 6, 10
    return [date(year, month, d) for d in range(first, last + 1)]


def parse_rules(notes: list[dict[str, Any]]) -> dict[str, float]:
    """Read the meeting cap, dev share and risk factor from the scheduling note where it states them."""
    rules = {"meeting_cap": MEETING_CAP_HOURS, "dev_share": 60.0, "risk_factor": RISK_FACTOR}
    text = " ".join(n.get("content", "") for n in notes)
    cap = re.search(r"meeting\w*?(\d+(?:\.\d+)?)\s*hours", text)
    share = re.search(r"(\d+)%", text)
    factor = re.search(r"\*\s*(\d+(?:\.\d+)?)", text)
    if cap:
        rules["meeting_cap"] = float(cap.group(1))
    if share:
        rules["dev_share"] = float(share.group(1))
    if factor:
        rules["risk_factor"] = float(factor.group(1))
    return rules


def hours(event: dict[str, Any]) -> float:
    """Length of a calendar event in hours."""
    start = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00"))
    return (end - start).total_seconds() / 3600


def is_review(event: dict[str, Any]) -> bool:
    """Review sessions (code/requirements reviews) are counted apart from other meetings."""
    return "review" in event.get("title", "").lower()


def allocate(
    tasks: list[dict[str, Any]], capacity: dict[date, float], days: list[date]
) -> tuple[dict[date, list[tuple[str, float]]], dict[str, float]]:
    """Fill each day's free hours with the member's tasks; return the daily plan and hours left over."""
    free = dict(capacity)
    plan: dict[date, list[tuple[str, float]]] = defaultdict(list)
    leftover: dict[str, float] = {}
    for task in sorted(tasks, key=lambda t: (PRIORITY_RANK.get(t["priority"], 9), t["due_date"])):
        need = float(task.get("estimated_hours") or 0)
        due = date.fromisoformat(task["due_date"])
        for day in days:
            if day > due or need <= 0:
                break
            take = min(need, free[day])
            if take > 0:
                plan[day].append((task["title"], take))
                free[day] -= take
                need -= take
        leftover[task["task_id"]] = need
    return plan, leftover


def fmt(value: float) -> str:
    """Hours without a trailing .0."""
    return f"{value:g}"


def solve(call: Call, instruction: str = "") -> str:
    """Fetch the three sources, build each member's day-by-day plan and return the plan as markdown."""
    tasks = call("todo_list_tasks", status="all")["tasks"]
    year = int(tasks[0]["due_date"][:4]) if tasks else 2026
    days = week_days(instruction, year)
    events = call("calendar_list_events", date=days[0].isoformat(), days=len(days))["events"]
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    rules = parse_rules(notes)

    members: list[str] = []
    for item in [*events, *tasks]:
        for name in item.get("attendees") or item.get("participants") or [item.get("assignee")]:
            if name and name not in members:
                members.append(name)

    meet: dict[str, dict[date, float]] = {m: defaultdict(float) for m in members}
    review: dict[str, dict[date, float]] = {m: defaultdict(float) for m in members}
    meet_titles: dict[str, dict[date, list[str]]] = {m: defaultdict(list) for m in members}
    for event in events:
        day = date.fromisoformat(event["start_time"][:10])
        for name in event.get("attendees") or event.get("participants") or []:
            (review if is_review(event) else meet)[name][day] += hours(event)
            meet_titles[name][day].append(event["title"])

    out = [
        f"# Team work plan: {days[0]:%a %b %-d} - {days[-1]:%a %b %-d, %Y}",
        "",
        "Sources: calendar events for the week, the full to-do list (all statuses) and the scheduling "
        "principles note.",
        "",
        "## Scheduling rules applied (from the planning note)",
        f"- Workday = {fmt(WORKDAY_HOURS)} h; keep {fmt(BUFFER_HOURS)} h/day in reserve for urgent items.",
        f"- Meetings should not exceed {fmt(rules['meeting_cap'])} hours per person per day; development "
        f"should take {fmt(rules['dev_share'])}% or more of the day (about 5 h).",
        "- Critical tasks are placed first; tasks due this week must be finished by their due date; the day "
        "before a client demo is kept as a preparation day with minimal meetings.",
        f"- Risk rule: a task is at risk when dev time available before its due date is below "
        f"{fmt(rules['risk_factor'])}x its estimated hours.",
        "- In-progress tasks are planned at their full estimate (no remaining-hours figure is recorded), "
        "which is the conservative assumption.",
        "",
    ]

    risks: list[str] = []
    unscheduled: list[str] = []
    support: list[str] = []
    for member in members:
        own = [t for t in tasks if t.get("assignee") == member and t.get("status") != "done"]
        capacity = {
            d: max(WORKDAY_HOURS - BUFFER_HOURS - meet[member][d] - review[member][d], 0.0) for d in days
        }
        plan, leftover = allocate(own, capacity, days)
        out += [f"## {member}", ""]
        for task in own:
            out.append(
                f"- Task: {task['title']} ({task['task_id']}, {task['priority']}, {task['status']}, "
                f"{fmt(task['estimated_hours'])} h, due {task['due_date']})"
            )
        out += [
            "",
            "| Day | Meeting time (h) | Review time (h) | Dev time (h) | Buffer (h) | Focus |",
            "|---|---|---|---|---|---|",
        ]
        for day in days:
            dev = sum(h for _, h in plan[day])
            focus_parts = [f"{title} {fmt(h)}h" for title, h in plan[day]]
            if meet_titles[member][day]:
                focus_parts.append("attend: " + ", ".join(meet_titles[member][day]))
            if not focus_parts:
                focus_parts.append("open capacity (support others / backlog)")
            out.append(
                f"| {day:%A} {day:%b} {day.day} | {fmt(meet[member][day])} | {fmt(review[member][day])} | "
                f"{fmt(dev)} | {fmt(BUFFER_HOURS)} | {'; '.join(focus_parts)} |"
            )
            booked = meet[member][day] + review[member][day]
            if booked > rules["meeting_cap"]:
                risks.append(f"{member}: {fmt(booked)} h of meetings on {day} exceeds the daily cap")
        out.append("")
        for task in own:
            due = date.fromisoformat(task["due_date"])
            window = sum(capacity[d] for d in days if d <= due)
            need = float(task["estimated_hours"])
            left = leftover[task["task_id"]]
            if left > 0:
                unscheduled.append(
                    f"{task['title']} ({member}): {fmt(left)} h cannot be fitted before {task['due_date']}"
                )
            if window < need * rules["risk_factor"]:
                risks.append(
                    f"**{member}** - {task['title']}: {fmt(need)} h estimate vs {fmt(window)} h of dev time "
                    f"available through {task['due_date']} (below the {fmt(rules['risk_factor'])}x safety "
                    f"margin of {fmt(need * rules['risk_factor'])} h); meetings take "
                    f"{fmt(sum(meet[member][d] + review[member][d] for d in days if d <= due))} h of that "
                    "window. Capacity risk - insufficient time buffer."
                )
            elif window < need * 1.4:
                risks.append(
                    f"{member} - {task['title']}: {fmt(need)} h estimate vs {fmt(window)} h available "
                    f"through {task['due_date']}; passes the rule but with a thin margin, and the task has "
                    f"status '{task['status']}'. Watch daily."
                )
        total_cap = sum(capacity.values())
        total_need = sum(float(t["estimated_hours"]) for t in own)
        if total_cap - total_need >= 12:
            support.append(
                f"{member}: {fmt(total_need)} h of planned work against {fmt(total_cap)} h of dev capacity "
                f"this week - about {fmt(total_cap - total_need)} h free to support others."
            )

    demo_days = {
        date.fromisoformat(e["start_time"][:10]): e
        for e in events
        if "demo" in e.get("title", "").lower() and "client" in e.get("title", "").lower()
    }
    out += ["## Unscheduled tasks", ""]
    out += [f"- {u}" for u in unscheduled] or [
        "- None: every open task fits before its due date in the plan above, though some only barely "
        "(see risks)."
    ]
    out += ["", "## Risk alerts", ""]
    out += [f"- {r}" for r in risks] or ["- No task breaks the risk rule."]
    for day, event in sorted(demo_days.items()):
        if day > days[0]:
            prep = day - timedelta(days=1)
            out.append(
                f"- {event['title']} on {day:%A %b} {day.day}: {prep:%A} {prep:%b} {prep.day} is the "
                f"preparation day for {', '.join(event.get('attendees') or [])}; keep their meetings that "
                "day to the minimum."
            )
    out += ["", "## Recommendations / mitigation", ""]
    out += [f"- {s}" for s in support]
    if support and risks:
        out.append(
            "- Recommend moving well-defined sub-parts (tests, documentation, review) of the at-risk tasks "
            "to the members with spare capacity, and excusing at-risk developers from optional meetings "
            "so that they keep at least 5 h of dev time per day."
        )
    out.append(
        "- Re-check progress of the at-risk tasks at mid-week and escalate scope or due-date changes early "
        "rather than on the due date."
    )
    return "\n".join(out)
