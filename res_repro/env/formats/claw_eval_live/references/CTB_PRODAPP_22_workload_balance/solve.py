"""Team workload balance from to-do estimates and calendar meeting hours.

Load per person = meeting hours + open task hours over the week of the tasks. A member is overloaded
above 1.5x the team median load and underloaded below 0.75x of it. Tasks of the most overloaded member
move, lowest priority first, to the least loaded member while that narrows the gap between them.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from statistics import median
from typing import Any

Call = Any
PRIORITY_RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}
WEEK_HOURS = 40.0


def hours(event: dict[str, Any]) -> float:
    """Length of an event in hours."""
    start = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00"))
    return (end - start).total_seconds() / 3600


def fmt(value: float) -> str:
    """A number without a trailing .0."""
    return f"{value:g}"


def solve(call: Call, instruction: str = "") -> str:
    """Measure each member's meetings and tasks, flag imbalance and return the rebalance plan."""
    tasks = [t for t in call("todo_list_tasks", status="all")["tasks"] if t["status"] != "done"]
    first_due = min(date.fromisoformat(t["due_date"]) for t in tasks)
    monday = first_due - timedelta(days=first_due.weekday())
    events = call("calendar_list_events", date=monday.isoformat(), days=7)["events"]

    members: list[str] = []
    for name in [a for e in events for a in e.get("attendees", [])] + [t["assignee"] for t in tasks]:
        if name not in members:
            members.append(name)
    meet = {m: sum(hours(e) for e in events if m in e.get("attendees", [])) for m in members}
    owned = {m: [t for t in tasks if t["assignee"] == m] for m in members}
    task_h = {m: float(sum(t["estimated_hours"] for t in owned[m])) for m in members}
    total = {m: meet[m] + task_h[m] for m in members}
    mid = median(total.values())
    over = [m for m in members if total[m] > 1.5 * mid]
    under = [m for m in members if total[m] < 0.75 * mid]

    plan = []
    after = dict(total)
    for member in sorted(over, key=lambda m: -total[m]):
        for task in sorted(
            owned[member], key=lambda t: (PRIORITY_RANK.get(t["priority"], 1), t["estimated_hours"])
        ):
            target = min(after, key=lambda m: after[m])
            h = float(task["estimated_hours"])
            if abs((after[member] - h) - (after[target] + h)) >= after[member] - after[target]:
                continue
            after[member] -= h
            after[target] += h
            plan.append(
                {
                    "task_id": task["task_id"],
                    "task": task["title"],
                    "hours": h,
                    "from": member,
                    "to": target,
                    "reason": f"{task['priority']} priority, self-contained work; {target} has the lowest "
                    "load",
                }
            )
            if after[member] <= 1.5 * mid:
                break

    summary = [
        {
            "member": m,
            "meeting_hours": meet[m],
            "task_hours": task_h[m],
            "total_hours": total[m],
            "tasks": [f"{t['task_id']} {t['title']} ({fmt(t['estimated_hours'])}h)" for t in owned[m]],
            "status": "overloaded" if m in over else "underloaded" if m in under else "balanced",
        }
        for m in sorted(members, key=lambda m: -total[m])
    ]
    imbalance = {
        "team_median_hours": mid,
        "max_to_min_ratio": round(max(total.values()) / min(total.values()), 1),
        "overloaded": over,
        "underloaded": under,
    }

    out = [
        "# Team workload balance",
        "",
        f"Week of {monday}: {len(events)} meetings, {len(tasks)} open tasks. Load = meeting hours + task "
        f"estimate hours; a working week is {fmt(WEEK_HOURS)} h.",
        "",
        "## Per-person workload (tasks + meetings)",
        "",
        "| Member | Meeting h | Task h | Total h | % of 40 h week | Status |",
        "|---|---|---|---|---|---|",
    ]
    for row in summary:
        out.append(
            f"| {row['member']} | {fmt(row['meeting_hours'])} | {fmt(row['task_hours'])} | "
            f"{fmt(row['total_hours'])} | {row['total_hours'] / WEEK_HOURS:.0%} | {row['status']} |"
        )
    out += ["", "Tasks:"]
    out += [f"- {row['member']}: {'; '.join(row['tasks']) or 'none'}" for row in summary]
    out += [
        "",
        "## Imbalance indicators",
        "",
        f"- Team median load {fmt(mid)} h; highest/lowest ratio {imbalance['max_to_min_ratio']}x.",
    ]
    for m in over:
        out.append(
            f"- OVERLOADED: {m} - {fmt(meet[m])} h meetings + {fmt(task_h[m])} h tasks = {fmt(total[m])} h, "
            f"more than the {fmt(WEEK_HOURS)} h week before any other work."
        )
    for m in under:
        out.append(f"- Underloaded: {m} - {fmt(total[m])} h in total, the most available capacity.")
    out += ["", "## Task redistribution recommendations", ""]
    for move in plan:
        out.append(
            f"- Transfer {move['task_id']} {move['task']} ({fmt(move['hours'])} h) from {move['from']} to "
            f"{move['to']}: {move['reason']}."
        )
    out.append(
        "- Result: "
        + ", ".join(f"{m} {fmt(total[m])} h -> {fmt(after[m])} h" for m in members if after[m] != total[m])
        + "."
    )
    for m in over:
        if after[m] > WEEK_HOURS * 0.9:
            out.append(
                f"- {m} is still near capacity: skip or delegate optional meetings and keep the remaining "
                "high-priority task as the single focus."
            )
    document = {"workload_summary": summary, "imbalance_analysis": imbalance, "rebalance_plan": plan}
    out += ["", "```json", json.dumps(document, ensure_ascii=False, indent=1), "```"]
    return "\n".join(out)
