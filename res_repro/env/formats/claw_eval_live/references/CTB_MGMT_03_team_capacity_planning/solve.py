"""Team capacity for the planning week: meetings from the calendar, tasks from the task board.

Load score = task priority weights (high 3, medium 2, low 1) + 2 per task due inside the week +
meeting hours / 4; a member at or above 1.25x the team mean is a bottleneck. Rebalancing hands the
bottleneck's later-due task to the least loaded member with context on it (shared meeting topic).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from typing import Any

Call = Callable[..., Any]

WEIGHT = {"high": 3, "medium": 2, "low": 1}
WORK_HOURS = 40.0
STOP = {"the", "and", "a", "on", "for", "with", "to", "of", "module", "system", "v2", "plan", "meeting"}
MONTHS = {
    m: i
    for i, m in enumerate(
        (
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ),
        1,
    )
}


def week_from(instruction: str, year: int) -> tuple[date, date]:
    """The planning week named in the prompt, e.g. '(March 30 - April 3)'."""
    found = re.search(r"\((\w+) (\d+) - (\w+) (\d+)\)", instruction)
    if not found:
        raise ValueError("no planning week in the prompt")
    m1, d1, m2, d2 = found.groups()
    return date(year, MONTHS[m1.lower()], int(d1)), date(year, MONTHS[m2.lower()], int(d2))


def manager_from(instruction: str) -> str:
    """The member marked as the manager in the prompt, or ''."""
    found = re.search(r"([a-z]+\.[a-z]+) \((?:you/)?manager\)", instruction)
    return found.group(1) if found else ""


def members_from(instruction: str) -> list[str]:
    """Team member logins listed in the prompt."""
    line = re.search(r"Team members: (.+)", instruction)
    return re.findall(r"[a-z]+\.[a-z]+", line.group(1)) if line else []


def when(event: dict[str, Any], shift: timedelta) -> tuple[datetime, datetime]:
    """Event start and end, re-based onto the planning week."""
    start = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00")) + shift
    end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00")) + shift
    return start, end


def load_events(call: Call, start: date, end: date) -> tuple[list[dict[str, Any]], timedelta, bool]:
    """Events of the planning week; if the calendar holds them on other dates, re-base them by the
    offset between its first event day and the week's first day."""
    days = (end - start).days + 1
    events = call("calendar_list_events", date=start.isoformat(), days=days).get("events", [])
    if events:
        return events, timedelta(0), False
    everything = call("calendar_list_events", date="2000-01-01", days=30000).get("events", [])
    if not everything:
        return [], timedelta(0), False
    first = min(datetime.fromisoformat(e["start_time"].replace("Z", "+00:00")).date() for e in everything)
    shift = timedelta(days=(start - first).days)
    inside = [e for e in everything if start <= when(e, shift)[0].date() <= end]
    return inside, shift, True


def words(text: str) -> set[str]:
    """Content words of a text."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in STOP and len(w) > 2}


def topic_overlap(task: dict[str, Any], event: dict[str, Any]) -> int:
    """Shared stems between a task and a meeting (first five letters, so 'microservices' matches)."""
    stems_t = {w[:5] for w in words(task["title"] + " " + task.get("description", ""))}
    stems_e = {w[:5] for w in words(event["title"] + " " + event.get("description", ""))}
    return len(stems_t & stems_e)


def analyse(
    members: list[str],
    events: list[dict[str, Any]],
    tasks: list[dict[str, Any]],
    week: tuple[date, date],
    shift: timedelta,
) -> dict[str, dict[str, Any]]:
    """Per-member meeting hours, tasks and load score."""
    stats: dict[str, dict[str, Any]] = {}
    for m in members:
        mine = [e for e in events if m in e.get("attendees", [])]
        hours = sum((when(e, shift)[1] - when(e, shift)[0]).total_seconds() / 3600 for e in mine)
        open_tasks = [
            t for t in tasks if t.get("assignee") == m and t.get("status") not in ("done", "completed")
        ]
        due_in_week = [t for t in open_tasks if date.fromisoformat(t["due_date"]) <= week[1]]
        score = sum(WEIGHT.get(t["priority"], 1) for t in open_tasks) + 2 * len(due_in_week) + hours / 4
        stats[m] = {"events": mine, "hours": hours, "tasks": open_tasks, "due": due_in_week, "score": score}
    return stats


def fmt_task(t: dict[str, Any]) -> str:
    """One task in a line."""
    return f"{t['title']} ({t['priority']}, {t['status']}, due {t['due_date']})"


def build_report(
    members: list[str],
    manager: str,
    stats: dict[str, dict[str, Any]],
    week: tuple[date, date],
    shift: timedelta,
    rebased: bool,
) -> str:
    """The capacity planning report."""
    delivery = [m for m in members if m != manager]
    mean = sum(stats[m]["score"] for m in delivery) / len(delivery)
    ranked = sorted(members, key=lambda m: stats[m]["score"], reverse=True)
    bottlenecks = [m for m in ranked if m != manager and stats[m]["score"] >= 1.25 * mean] or ranked[:1]
    out = [f"# Engineering Team Capacity Plan: {week[0]:%B} {week[0].day} - {week[1]:%B} {week[1].day}", ""]
    if rebased:
        out += [
            f"Note: the calendar returned this week's meetings on dates shifted by {-shift.days} days; they "
            "were mapped back onto the planning week by keeping their order and spacing.",
            "",
        ]
    out += ["## Workload by member", ""]
    out += [
        "| Member | Meetings | Meeting hours | Share of 40h week | Open tasks (high/med/low) | "
        "Due this week | Load score |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in ranked:
        s = stats[m]
        mix = "/".join(
            str(sum(1 for t in s["tasks"] if t["priority"] == p)) for p in ("high", "medium", "low")
        )
        out.append(
            f"| {m} | {len(s['events'])} | {s['hours']:g}h | {s['hours'] / WORK_HOURS:.1%} | "
            f"{len(s['tasks'])} ({mix}) | {len(s['due'])} | {s['score']:.2f} |"
        )
    out += [
        "",
        f"Delivery team mean load score (manager excluded): {mean:.2f}. Load score = priority "
        "weights + 2 per task due this week + meeting hours / 4.",
        "",
        "## Member details",
        "",
    ]
    for m in ranked:
        s = stats[m]
        free = WORK_HOURS - s["hours"]
        tasks = "; ".join(fmt_task(t) for t in s["tasks"]) or "no open tasks"
        out.append(
            f"- **{m}**: {s['hours']:g}h in {len(s['events'])} meetings, {free:g}h left for work; {tasks}."
        )
    out += ["", "## Bottlenecks (overloaded members)", ""]
    for m in bottlenecks:
        s = stats[m]
        out.append(
            f"- **{m}** is the bottleneck: the most meeting time on the team ({s['hours']:g}h) "
            if s["hours"] == max(x["hours"] for x in stats.values())
            else f"- **{m}** is overloaded: "
        )
        out[-1] += (
            f"and {sum(1 for t in s['tasks'] if t['priority'] == 'high')} high-priority tasks in flight, "
            f"load score {s['score']:.2f} vs delivery team mean {mean:.2f}."
        )
    out += ["", "## Deadline conflicts and risk alerts", ""]
    for m in ranked:
        s = stats[m]
        for t in sorted(s["due"], key=lambda t: t["due_date"]):
            due = date.fromisoformat(t["due_date"])
            before = [e for e in s["events"] if when(e, shift)[0].date() <= due]
            hrs = sum((when(e, shift)[1] - when(e, shift)[0]).total_seconds() / 3600 for e in before)
            level = "HIGH" if m in bottlenecks or (len(s["tasks"]) > 1 and hrs >= 4) else "MEDIUM"
            others = [x for x in s["tasks"] if x is not t and x["priority"] == "high"]
            out.append(
                f"- [{level}] {t['title']} ({m}) due {due:%B} {due.day}: {hrs:g}h of meetings before it"
                + (f", in parallel with {', '.join(x['title'] for x in others)}" if others else "")
                + " - tight deadline, at risk of slipping."
            )
    for m in ranked:
        for t in stats[m]["tasks"]:
            due = date.fromisoformat(t["due_date"])
            if t["priority"] == "high" and t["status"] == "pending" and due <= week[1] + timedelta(days=7):
                out.append(
                    f"- [MEDIUM] {t['title']} ({m}) is high priority, not started, due {t['due_date']}."
                )
    out += ["", "## Rebalancing recommendations", ""]
    out += rebalance(bottlenecks, ranked, stats, manager)
    return "\n".join(out)


def rebalance(
    bottlenecks: list[str], ranked: list[str], stats: dict[str, dict[str, Any]], manager: str
) -> list[str]:
    """Concrete transfers and meeting changes for each bottleneck."""
    out: list[str] = []
    for m in bottlenecks:
        tasks = sorted(stats[m]["tasks"], key=lambda t: t["due_date"])
        keep, movable = tasks[0], tasks[1:]
        out.append(f"1. {m} keeps focus on '{keep['title']}' (earliest deadline, {keep['due_date']}).")
        for t in movable:
            others = [x for x in ranked if x != m and x not in bottlenecks and stats[x]["tasks"]]
            context = {x: sum(topic_overlap(t, e) for e in stats[x]["events"]) for x in others}
            with_context = [x for x in others if context[x] > 0] or others
            to = min(with_context, key=lambda x: stats[x]["score"])
            low = [x for x in stats[to]["tasks"] if x["priority"] == "low"]
            why = "lightest load among members who already know the work from its meetings"
            line = (
                f"2. Transfer '{t['title']}' from {m} to {to} ({why if context[to] else 'lightest load'}); "
            )
            line += f"{m} stays available for a hand-over review."
            if low:
                line += f" To make room, defer {to}'s low-priority '{low[0]['title']}'."
            out.append(line)
        for e in stats[m]["events"]:
            if e.get("organizer") == m:
                continue
            owners = [
                x
                for x in ranked
                if x != m
                and x not in e.get("attendees", [])
                and any(topic_overlap(t, e) >= 2 for t in stats[x]["tasks"])
            ]
            if owners:
                out.append(
                    f"3. Send {owners[0]} (owner of the related task) to '{e['title']}' instead of {m} "
                    "to free meeting time."
                )
    if manager and not stats[manager]["tasks"]:
        out.append(
            f"4. {manager} has no delivery tasks: take reviews and stakeholder follow-ups off the bottleneck "
            "and check progress on the at-risk deadlines daily."
        )
    return out


def solve(call: Call, instruction: str) -> str:
    """Collect meetings and tasks for the team and return the capacity planning report."""
    members = members_from(instruction)
    listing = call("todo_list_tasks", max_results=100).get("tasks", [])
    tasks = [call("todo_get_task", task_id=t["task_id"]) for t in listing]
    year = min(int(t["due_date"][:4]) for t in tasks if t.get("due_date"))
    week = week_from(instruction, year)
    events, shift, rebased = load_events(call, *week)
    stats = analyse(members, events, tasks, week, shift)
    return build_report(members, manager_from(instruction), stats, week, shift, rebased)
