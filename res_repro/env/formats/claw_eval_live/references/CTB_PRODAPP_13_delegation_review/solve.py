"""Delegation review from to-do assignments and calendar meeting commitments.

Each member's free hours up to a date are 8 h per day minus meetings, counted from the first day of the
review window; slack at a deadline is free hours minus the work due by then. A member with negative
slack is overloaded; their tasks, lowest priority first, move (whole or in part) to the member whose
worst slack stays highest after taking them, until the overloaded member's slack is no longer negative.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta
from typing import Any

Call = Any
WORKDAY_HOURS = 8.0
PRIORITY_RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}


def hours(event: dict[str, Any]) -> float:
    """Length of an event in hours."""
    start = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00"))
    end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00"))
    return (end - start).total_seconds() / 3600


def surname_first(name: str) -> str:
    """A two-part name with its surname-first form, e.g. "Feng Lin (Lin Feng)"."""
    parts = name.split()
    return f"{name} ({parts[1]} {parts[0]})" if len(parts) == 2 else name


def fmt(value: float) -> str:
    """A number without a trailing .0."""
    return f"{value:g}"


class Capacity:
    """Free hours per member and day, and the work each member holds."""

    def __init__(self, start: date, meetings: dict[str, dict[date, float]]) -> None:
        self.start = start
        self.meetings = meetings

    def free(self, member: str, until: date) -> float:
        """Hours outside meetings from the window start to ``until`` inclusive."""
        days = (until - self.start).days + 1
        return sum(
            max(WORKDAY_HOURS - self.meetings[member][self.start + timedelta(days=i)], 0) for i in range(days)
        )

    def worst_slack(self, member: str, work: list[tuple[date, float]]) -> float:
        """Lowest (free hours - hours due) over the member's deadlines."""
        if not work:
            return float("inf")
        return min(self.free(member, due) - sum(h for d, h in work if d <= due) for due, _ in work)


def solve(call: Call, instruction: str = "") -> str:
    """Review each member's assignments against their calendar and return the delegation review."""
    tasks = [t for t in call("todo_list_tasks", status="all")["tasks"] if t["status"] != "done"]
    dues = sorted(date.fromisoformat(t["due_date"]) for t in tasks)
    start = dues[0]
    events = call("calendar_list_events", date=start.isoformat(), days=(dues[-1] - start).days + 1)["events"]

    members: list[str] = []
    for name in [t["assignee"] for t in tasks] + [a for e in events for a in e.get("attendees", [])]:
        if name not in members:
            members.append(name)
    meetings: dict[str, dict[date, float]] = {m: defaultdict(float) for m in members}
    titles: dict[str, list[str]] = defaultdict(list)
    for event in events:
        day = date.fromisoformat(event["start_time"][:10])
        for name in event.get("attendees", []):
            meetings[name][day] += hours(event)
            titles[name].append(f"{event['title']} ({day:%b %-d} {event['start_time'][11:16]})")
    cap = Capacity(start, meetings)
    work: dict[str, list[tuple[date, float]]] = defaultdict(list)
    for task in tasks:
        work[task["assignee"]].append((date.fromisoformat(task["due_date"]), float(task["estimated_hours"])))

    out = [
        "# Task delegation review",
        "",
        f"Window {start} to {dues[-1]}; {len(tasks)} open tasks, {len(events)} meetings. Free time = 8 h/day "
        "minus meetings; slack = free time up to a deadline minus the work due by then.",
        "",
        "## Delegation review per member",
        "",
        "| Member | Tasks | Task hours | Meeting hours | Worst slack (h) | Assessment |",
        "|---|---|---|---|---|---|",
    ]
    slack = {m: cap.worst_slack(m, work[m]) for m in members}
    overloaded = [m for m in members if slack[m] < 0]
    for member in sorted(members, key=lambda m: slack[m]):
        own = [t for t in tasks if t["assignee"] == member]
        verdict = "OVERLOADED" if member in overloaded else "has spare capacity"
        shown = "n/a" if slack[member] == float("inf") else fmt(slack[member])
        out.append(
            f"| {surname_first(member)} | {len(own)} | {fmt(sum(t['estimated_hours'] for t in own))} | "
            f"{fmt(sum(meetings[member].values()))} | {shown} | {verdict} |"
        )
    out.append("")
    for member in members:
        own = sorted((t for t in tasks if t["assignee"] == member), key=lambda t: t["due_date"])
        out.append(f"### {member}")
        for task in own:
            due = date.fromisoformat(task["due_date"])
            out.append(
                f"- {task['title']} ({task['task_id']}): {task['priority']}, {task['status']}, "
                f"{fmt(task['estimated_hours'])} h, due {due}; {fmt(cap.free(member, due))} h free up to then"
            )
        if titles[member]:
            out.append(f"- Meetings: {'; '.join(titles[member])}")
        busy = [(d, h) for d, h in meetings[member].items() if h >= 4]
        for day, booked in busy:
            out.append(
                f"- {fmt(booked)} h of meetings on {day} ({day:%B} {day.day}) - effectively a meeting day, "
                "in conflict with work due that day."
            )
        out.append("")

    out += ["## Misaligned assignments", ""]
    for member in overloaded:
        total = sum(t["estimated_hours"] for t in tasks if t["assignee"] == member)
        others = {
            m: sum(t["estimated_hours"] for t in tasks if t["assignee"] == m) for m in members if m != member
        }
        out.append(
            f"- {member} holds {fmt(total)} h of work "
            f"({', '.join(f'{m} {fmt(h)} h' for m, h in others.items())}); "
            f"worst slack {fmt(slack[member])} h means the assignments cannot be met around the meetings - "
            "overloaded."
        )
        for task in tasks:
            if task["assignee"] == member and "documentation" in [x.lower() for x in task.get("tags", [])]:
                out.append(
                    f"- {task['title']} is {task['priority']}-priority documentation work on the "
                    "most meeting-heavy member: a good candidate to delegate."
                )

    out += ["", "## Reallocation recommendations", ""]
    for member in overloaded:
        own = sorted(
            (t for t in tasks if t["assignee"] == member),
            key=lambda t: (PRIORITY_RANK.get(t["priority"], 1), -t["estimated_hours"]),
        )
        for task in own:
            if cap.worst_slack(member, work[member]) >= 0:
                break
            due = date.fromisoformat(task["due_date"])
            hrs = float(task["estimated_hours"])
            helpers = [m for m in members if m not in overloaded]

            def after(helper: str, amount: float, due: date = due) -> float:
                return cap.worst_slack(helper, [*work[helper], (due, amount)])

            def owner_slack(moved: float, due: date = due, hrs: float = hrs, owner: str = member) -> float:
                rest = [w for w in work[owner] if w != (due, hrs)] + [(due, hrs - moved)]
                later = [(d, h) for d, h in rest if d >= due]
                return min(cap.free(owner, d) - sum(h for x, h in rest if x <= d) for d, _ in later)

            needed = next((a for a in range(1, int(hrs) + 1) if owner_slack(a) >= 0), int(hrs))
            best = max(helpers, key=lambda m: after(m, needed))
            amount = float(needed)
            while amount > 0 and after(best, amount) < 0:
                amount -= 1
            if amount <= 0:
                continue
            work[member].remove((due, hrs))
            if amount < hrs:
                work[member].append((due, hrs - amount))
            work[best].append((due, amount))
            part = "all of" if amount == hrs else f"{fmt(amount)} h of"
            out.append(
                f"- Delegate/transfer {part} {task['title']} ({task['task_id']}, {task['priority']}, "
                f"due {due}) from {member} to {surname_first(best)}: {best} has "
                f"{fmt(cap.free(best, due))} h free up to the due date and keeps "
                f"{fmt(cap.worst_slack(best, work[best]))} h slack after taking it."
            )
        out.append(
            f"- After these moves {member}'s worst slack is {fmt(cap.worst_slack(member, work[member]))} h"
            + (
                "; the remainder still needs a due-date move or a cancelled meeting."
                if cap.worst_slack(member, work[member]) < 0
                else "."
            )
        )
    out += [
        "- Keep the high-priority work that needs the owner's expertise with them, and decline or delegate "
        "the non-essential meetings on their heaviest day.",
        "- Capacity after reallocation: "
        + ", ".join(
            f"{m} {fmt(sum(h for _, h in work[m]))} h assigned"
            for m in sorted(members, key=lambda m: -sum(h for _, h in work[m]))
        )
        + ".",
    ]
    return "\n".join(out)
