"""Document review schedule from pending-review notes and the team's calendar.

Each note gives its author, recommended reviewers, review length, urgency and deadline; authors never
review their own document (they attend to present). Documents are ordered by urgency, then deadline,
then submission date, and each takes the first slot (9:00-18:00, lunch 12-13, 15-minute grid) in which
everyone involved is free and no one exceeds 4 hours of reviews that day, starting the next workday.
"""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, datetime, timedelta
from typing import Any

Call = Any
DAY_START, DAY_END, LUNCH = 9 * 60, 18 * 60, (12 * 60, 13 * 60)
DAILY_REVIEW_CAP = 4 * 60
STEP = 15


def field(content: str, name: str) -> str:
    """The value after "name：" in a note, up to the next full stop."""
    match = re.search(rf"{name}[：:]\s*([^。]+)", content)
    return match.group(1).strip() if match else ""


def parse_doc(note: dict[str, Any], year: str) -> dict[str, Any]:
    """Author, reviewers, review minutes, urgency and deadline of one pending document."""
    content = note["content"]
    author = field(content, "author") or note.get("author", "")
    reviewers = [
        r.strip() for r in re.split(r"[、,]", field(content, "recommendationreviewpeople")) if r.strip()
    ]
    length = re.search(r"estimatedreview[：:]\s*([\d.]+)\s*hours", content)
    deadline = None
    for pattern in (r"deadline[：:]\s*(\d+)month(\d+)", r"window\s*(\d+)month(\d+)"):
        found = re.search(pattern, content)
        if found:
            deadline = date(int(year), int(found.group(1)), int(found.group(2)))
            break
    urgency = re.search(r"urgentdegree[：:]\s*(\w+)", content)
    return {
        "id": note["note_id"],
        "title": note["title"],
        "author": author,
        "reviewers": [r for r in reviewers if r != author],
        "self_listed": author in reviewers,
        "minutes": int(float(length.group(1)) * 60) if length else 60,
        "deadline": deadline,
        "deadline_kind": "migration window" if "window" in content else "review deadline",
        "urgent": bool(urgency and urgency.group(1).startswith("high")),
        "created": note.get("created_at", ""),
        "pages": (re.search(r"(\d+)\s*page", content) or [None, "?"])[1],
    }


def clock(minutes: int) -> str:
    """Minutes after midnight as HH:MM."""
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def solve(call: Call, instruction: str = "") -> str:
    """Read the pending documents and the calendar, then return the review schedule."""
    listed = call("notes_list", max_results=50)["notes"]
    notes = [call("notes_get", note_id=n["note_id"]) for n in listed]
    pending = [n for n in notes if "pendingreview" in n["content"].replace(" ", "")]
    latest = max(date.fromisoformat(n["created_at"][:10]) for n in pending)
    start = latest + timedelta(days=1)
    while start.weekday() >= 5:
        start += timedelta(days=1)
    days = [start + timedelta(days=i) for i in range(14) if (start + timedelta(days=i)).weekday() < 5][:8]
    events = call("calendar_list_events", date=start.isoformat(), days=(days[-1] - start).days + 1)["events"]
    docs = [parse_doc(n, n["created_at"][:4]) for n in pending]
    docs.sort(key=lambda d: (not d["urgent"], d["deadline"] or date.max, d["created"]))

    busy: dict[tuple[str, date], list[tuple[int, int, str]]] = defaultdict(list)
    for event in events:
        begin = datetime.fromisoformat(event["start_time"].replace("Z", "+00:00"))
        end = datetime.fromisoformat(event["end_time"].replace("Z", "+00:00"))
        for person in event.get("attendees", []):
            busy[(person, begin.date())].append(
                (begin.hour * 60 + begin.minute, end.hour * 60 + end.minute, event["title"])
            )
    review_load: dict[tuple[str, date], int] = defaultdict(int)

    def free(person: str, day: date, a: int, b: int) -> bool:
        if a < LUNCH[1] and b > LUNCH[0]:
            return False
        if review_load[(person, day)] + (b - a) > DAILY_REVIEW_CAP:
            return False
        return all(b <= s or a >= e for s, e, _ in busy[(person, day)])

    schedule = []
    for doc in docs:
        people = [doc["author"], *doc["reviewers"]]
        slot = None
        for day in days:
            for a in range(DAY_START, DAY_END - doc["minutes"] + 1, STEP):
                if all(free(p, day, a, a + doc["minutes"]) for p in people):
                    slot = (day, a, a + doc["minutes"])
                    break
            if slot:
                break
        if slot:
            day, a, b = slot
            for person in people:
                busy[(person, day)].append((a, b, f"review {doc['id']}"))
                review_load[(person, day)] += b - a
        schedule.append((doc, slot))

    out = [
        "# Document review schedule",
        "",
        f"{len(docs)} documents are pending review. Scheduling starts {start} (next workday after the last "
        "submission); calendar availability checked for "
        f"{', '.join(sorted({p for d in docs for p in [d['author'], *d['reviewers']]}))}.",
        "",
        "Rules: no self-review (an author presents but is never a reviewer of their own document); every "
        "slot avoids existing meetings (no conflict, no overlap) and lunch 12:00-13:00; at most 4 h of "
        "reviews per person per day; priority = urgency, then deadline, then submission date.",
        "",
        "## Review schedule (priority order)",
        "",
        "| Priority | Document | Author | Assigned reviewers | Date | Time slot | Deadline |",
        "|---|---|---|---|---|---|---|",
    ]
    for rank, (doc, slot) in enumerate(schedule, 1):
        when = f"{slot[0]} ({slot[0]:%a})" if slot else "no free slot found"
        times = f"{clock(slot[1])}-{clock(slot[2])}" if slot else "-"
        deadline = f"{doc['deadline']} ({doc['deadline_kind']})" if doc["deadline"] else "none"
        out.append(
            f"| P{rank} | {doc['title']} ({doc['id']}) | {doc['author']} | {', '.join(doc['reviewers'])} | "
            f"{when} | {times} | {deadline} |"
        )

    out += [
        "",
        "Slots are booked in priority order, each at the earliest time that fits; a lower-priority review "
        "can land earlier when a longer, higher-priority one no longer fits in that day's review cap.",
        "",
        "## Why this order",
        "",
    ]
    for rank, (doc, slot) in enumerate(schedule, 1):
        reasons = []
        if doc["urgent"]:
            reasons.append("marked high urgency")
        if doc["deadline"]:
            margin = (doc["deadline"] - slot[0]).days if slot else None
            reasons.append(
                f"{doc['deadline_kind']} {doc['deadline']}"
                + (
                    f"; reviewed {margin} days before it, leaving time for fixes"
                    if margin is not None
                    else ""
                )
            )
        if not reasons:
            reasons.append(f"no deadline; submitted {doc['created']}, {doc['pages']} pages")
        out.append(
            f"- P{rank} {doc['title']}: " + "; ".join(reasons) + f"; {doc['minutes'] // 60}h"
            f"{doc['minutes'] % 60:02d} review."
        )

    out += ["", "## Reviewer assignment notes", ""]
    for doc, _ in schedule:
        if doc["self_listed"]:
            out.append(
                f"- {doc['title']}: the note lists the author {doc['author']} among its recommended "
                f"reviewers; removed to avoid self-review - reviewed by {', '.join(doc['reviewers'])}."
            )
    for (person, day), items in sorted(busy.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        meetings = [f"{clock(s)}-{clock(e)} {t}" for s, e, t in sorted(items) if not t.startswith("review ")]
        if meetings:
            out.append(f"- {person} busy {day}: {'; '.join(meetings)} (slots above avoid these).")
    out.append(
        "- Remaining open time after these reviews is available for follow-up fixes before the deadlines."
    )
    return "\n".join(out)
