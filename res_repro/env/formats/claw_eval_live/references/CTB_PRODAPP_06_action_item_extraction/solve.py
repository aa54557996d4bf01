"""Action items from meeting minutes, cross-checked with the calendar and the to-do list.

Items are the "【owner】text, deadline" bullets under "Action Items" in each minutes note; each note is
matched to the calendar event with the same date and the most shared title words. An item is already
tracked when a task of the same owner has at least 75% of its title words in the item text. Missing
items get a recommended priority: high when due within 10 days of the meeting, else medium.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

COMMON_WORDS = (
    "architecture", "automated", "backup", "complete", "completed", "data", "database", "deadline", "design",
    "discussion", "documentation", "environment", "framework", "gateway", "load", "login", "meeting",
    "microservice", "minutes", "module", "optimization", "planning", "preparation", "product", "review",
    "roadmap", "script", "send", "set", "setup", "sharding", "splitting", "testing", "up", "update", "user",
    "write", "all", "hands", "limit", "api", "read", "upgrade", "e2e", "poc", "performance", "all-hands",
    "backup", "read-write",
)  # fmt: skip
STOP = {"the", "a", "of", "and", "to", "for", "up", "set", "write", "complete", "completed", "preparation"}


def respace(text: str, vocab: set[str]) -> str:
    """Re-space run-together words ('completeduser' -> 'completed user', 'APIgateway' -> 'API gateway')."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)
    return " ".join(split_token(tok, vocab) for tok in text.split())


def split_token(token: str, vocab: set[str]) -> str:
    """Segment one token into known words, leaving unknown stretches as they are.

    Dynamic programming over cut points, minimising (unknown letters, pieces); the token is returned
    unchanged when no known word of two or more letters is found in it.
    """
    word = token.lower()
    if word in vocab or not re.fullmatch(r"[a-z0-9-]+", word):
        return token
    inf = (len(word) + 1, len(word) + 1)
    best: list[tuple[tuple[int, int], list[int]]] = [((0, 0), [])] + [(inf, [])] * len(word)
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 16), end):
            (unknown, pieces), cuts = best[start]
            if unknown > len(word):
                continue
            piece = word[start:end]
            extra = 0 if piece in vocab and len(piece) > 1 else len(piece)
            cand = ((unknown + extra, pieces + 1), [*cuts, end])
            if cand[0] < best[end][0]:
                best[end] = cand
    (unknown, _), cuts = best[len(word)]
    if unknown >= len(word):
        return token
    pieces, start = [], 0
    for end in cuts:
        pieces.append(token[start:end])
        start = end
    return " ".join(pieces)


def words(text: str) -> set[str]:
    """Content words."""
    return {w for w in re.findall(r"[a-z0-9-]+", text.lower()) if w not in STOP and len(w) > 1}


def parse_minutes(note: dict[str, Any], vocab: set[str]) -> dict[str, Any]:
    """Meeting date, title and action items of one minutes note."""
    content = str(note.get("content", ""))
    day = re.search(r"date[：:]\s*(\d{4}-\d{2}-\d{2})", content)
    meeting_day = date.fromisoformat(day.group(1)) if day else date.fromisoformat(note["created_at"][:10])
    items = []
    section = content.split("## Action Items", 1)[-1] if "## Action Items" in content else ""
    for owner, text in re.findall(r"- 【([^】]+)】(.+)", section):
        deadline = re.search(r"deadline\s*(\d{1,2})\s*month\s*(\d{1,2})\s*date", text)
        body = text[: deadline.start()].rstrip("，, ") if deadline else text
        due = date(meeting_day.year, int(deadline.group(1)), int(deadline.group(2))) if deadline else None
        items.append({"owner": owner.strip(), "raw": body, "text": respace(body, vocab), "due": due})
    heading = re.search(r"#\s*(.+)", content)
    return {
        "note": note,
        "title": respace(heading.group(1) if heading else note["title"], vocab),
        "day": meeting_day,
        "items": items,
    }


def match_event(
    minutes: dict[str, Any], events: list[dict[str, Any]], vocab: set[str]
) -> dict[str, Any] | None:
    """Calendar event of the same day sharing the most title words."""
    same_day = [e for e in events if e["start_time"][:10] == minutes["day"].isoformat()]
    if not same_day:
        return None
    return max(same_day, key=lambda e: len(words(respace(e["title"], vocab)) & words(minutes["title"])))


def existing_task(
    item: dict[str, Any], tasks: list[dict[str, Any]], vocab: set[str]
) -> dict[str, Any] | None:
    """The owner's task whose title words are (mostly) in the item text."""
    item_words = words(item["text"])
    for t in tasks:
        title_words = words(respace(t["title"], vocab))
        same_owner = t.get("assignee") == item["owner"] and title_words
        if same_owner and len(title_words & item_words) / len(title_words) >= 0.75:
            return t
    return None


def solve(call: Call) -> str:
    """Extract the action items, map them to tasks, and recommend the missing to-do entries."""
    notes = [
        call("notes_get", note_id=n["note_id"]) for n in call("notes_list", max_results=100).get("notes", [])
    ]
    events = call("calendar_list_events", date="2026-01-01", days=730).get("events", [])
    tasks = call("todo_list_tasks", status="all").get("tasks", [])
    vocab = set(COMMON_WORDS)
    meetings = [parse_minutes(n, vocab) for n in notes if "Action Items" in str(n.get("content", ""))]
    out = ["# Action Item Extraction and To-do Reconciliation", ""]
    tracked: list[tuple[dict[str, Any], dict[str, Any]]] = []
    missing: list[tuple[dict[str, Any], dict[str, Any]]] = []
    total = sum(len(m["items"]) for m in meetings)
    out.append(f"{total} action items found in {len(meetings)} sets of meeting minutes.")
    for m in meetings:
        event = match_event(m, events, vocab)
        out += ["", f"## {m['title']} ({m['day']})", ""]
        if event:
            people = event.get("attendees", [])
            owners = {i["owner"] for i in m["items"]}
            check = (
                "all owners attended"
                if owners <= set(people)
                else f"owners not in the invite: {owners - set(people)}"
            )
            out.append(
                f"Calendar: '{respace(event['title'], vocab)}' {event['start_time'][:16].replace('T', ' ')}-"
                f"{event['end_time'][11:16]}, {event.get('location', '')}; attendees {', '.join(people)} "
                f"({check})."
            )
        else:
            out.append("Calendar: no matching event found for this meeting.")
        out += ["", "| # | Action item | Owner | Deadline | In to-do system |", "|---|---|---|---|---|"]
        for n, item in enumerate(m["items"], 1):
            task = existing_task(item, tasks, vocab)
            if task:
                tracked.append((item, task))
                state = f"already tracked: {task['task_id']} '{task['title']}' ({task['status']})"
            else:
                missing.append((item, m))
                state = "MISSING - not yet entered"
            due = item["due"].isoformat() if item["due"] else "-"
            out.append(f"| {n} | {item['text']} | {item['owner']} | {due} | {state} |")
    out += ["", "## Mapping to existing tasks", ""]
    for item, task in tracked:
        same_due = item["due"] and item["due"].isoformat() == task.get("due_date")
        note = "deadline matches" if same_due else f"deadline differs (task {task.get('due_date')})"
        out.append(f"- {item['text']} ({item['owner']}) -> existing task {task['task_id']}: {note}.")
    unrelated = [t for t in tasks if all(t is not task for _, task in tracked)]
    for t in unrelated:
        out.append(
            f"- Existing task {t['task_id']} '{respace(t['title'], vocab)}' ({t['assignee']}) has no "
            "action item in these minutes."
        )
    out += [
        "",
        f"## Items missing from the to-do system ({len(missing)})",
        "",
        "| Action item | Owner | Due date | Source meeting | Recommended priority |",
        "|---|---|---|---|---|",
    ]
    for item, m in sorted(missing, key=lambda x: x[0]["due"] or date.max):
        days = (item["due"] - m["day"]).days if item["due"] else 99
        prio = "high" if days <= 10 else "medium"
        out.append(f"| {item['text']} | {item['owner']} | {item['due']} | {m['title']} | {prio} |")
    load: dict[str, int] = {}
    for item, _ in missing:
        load[item["owner"]] = load.get(item["owner"], 0) + 1
    out += [
        "",
        "## Recommendations",
        "",
        f"1. Create the {len(missing)} missing tasks now with the owner, due date and priority above; link "
        "each to its source minutes.",
        "2. Enter the earliest deadlines first - they fall within days of the meetings.",
    ]
    busy = [f"{o} ({c} new items)" for o, c in load.items() if c > 1]
    if busy:
        out.append(
            f"3. Check capacity for owners receiving several new items: {', '.join(busy)}; re-negotiate "
            "deadlines if they collide with existing tasks."
        )
    out.append(
        f"{4 if busy else 3}. Make adding action items to the to-do system part of closing each meeting, "
        "so minutes and tasks stay in sync."
    )
    return "\n".join(out)
