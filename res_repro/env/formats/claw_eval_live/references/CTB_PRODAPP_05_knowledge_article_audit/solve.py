"""Knowledge base audit: every article in the notes, checked against current work (to-do tasks) and
the upcoming review meeting (calendar).

An article is OUTDATED when an open task replaces the system it documents (shared topic, newer version
or "new" platform) or when it links to a host another outdated article's system is leaving ("-old",
older version); it is CURRENT when recently updated with no such conflict. Replaced systems without an
article for their successor are reported as missing. Owners: the task assignee working on the new
system, else the article author. Stored titles have run-together words; they are re-spaced.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

COMMON_WORDS = (
    "a", "about", "api", "base", "basic", "check", "code", "data", "database", "date", "deployment",
    "development", "document", "edition", "environment", "guide", "infrastructure", "knowledge", "manual",
    "meeting", "member", "migration", "monitoring", "new", "onboarding", "payment", "platform", "review",
    "service", "set", "specification", "system", "technical", "up", "update", "use",
)  # fmt: skip
STALE_DAYS = 180
GENERIC = {
    "system", "manual", "guide", "use", "specification", "technical", "new", "set", "document",
    "deployment", "migration", "platform", "the", "and", "for", "update", "review", "meeting",
}  # fmt: skip


def respace(text: str, vocab: set[str]) -> str:
    """Re-space run-together words and drop an immediately repeated word."""
    text = re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[a-z])(?=v\d)|(?<=\d)(?=[a-z]{3,})", " ", text)
    words = " ".join(split_token(tok, vocab) for tok in text.split()).split()
    out = [w for i, w in enumerate(words) if i == 0 or w.lower() != words[i - 1].lower()]
    return " ".join(out)


def split_token(token: str, vocab: set[str]) -> str:
    """Segment one alphabetic token into known words (fewest pieces); unchanged if not coverable."""
    word = token.lower()
    if word in vocab or not word.isalpha():
        return token
    best: list[list[int] | None] = [[]] + [None] * len(word)
    for end in range(1, len(word) + 1):
        for start in range(max(0, end - 16), end):
            prev = best[start]
            known = prev is not None and word[start:end] in vocab and end - start > 1
            if known and (best[end] is None or len(prev) + 1 < len(best[end])):
                best[end] = [*prev, end]
    cuts = best[len(word)]
    if not cuts:
        return token
    pieces, start = [], 0
    for end in cuts:
        pieces.append(token[start:end])
        start = end
    return " ".join(pieces)


def topics(text: str) -> set[str]:
    """Subject words of a title (system names), without generic document and action words."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in GENERIC}


def audit(
    article: dict[str, Any], tasks: list[dict[str, Any]], as_of: date, vocab: set[str]
) -> dict[str, Any]:
    """Status, issues, owner and priority for one article."""
    title = respace(article["title"], vocab)
    content = article["content"]
    updated = date.fromisoformat(article["updated_at"][:10])
    age = (as_of - updated).days
    issues: list[str] = []
    owner, due = article.get("author", ""), None
    versions = re.findall(r"v(\d+\.\d+)", content)
    for t in tasks:
        shared = topics(title) & topics(respace(t["title"], vocab))
        if not shared or t.get("status") in ("done", "completed"):
            continue
        task_title = respace(t["title"], vocab)
        newer = re.search(r"v(\d+\.\d+)", t["title"])
        if newer and versions and float(newer.group(1)) > max(float(v) for v in versions):
            issues.append(
                f"documents v{max(versions)} while '{task_title}' is in progress (due {t['due_date']})"
            )
        elif "new" in task_title.lower():
            tool = re.search(r"([A-Z][a-z]+ \d+\.\d+)", content)
            what = tool.group(1) if tool else "the current tool"
            issues.append(f"describes {what}, which '{task_title}' (due {t['due_date']}) is replacing")
        else:
            continue
        owner, due = t["assignee"], t["due_date"]
    hosts = re.findall(r"https?://([\w.-]+)", content)
    legacy = [h for h in hosts if re.search(r"-old|-v\d", h)]
    if legacy:
        issues.append("links to legacy systems: " + ", ".join(sorted(set(legacy))))
    old_db = re.search(r"(db-old[\w-]*)", content)
    if old_db:
        issues.append(f"points the deployment at the old database host ({old_db.group(1)})")
    if age > STALE_DAYS:
        issues.append(f"last updated {updated} ({age} days ago)")
    direct = any("replacing" in i or "in progress" in i for i in issues)
    legacy = any("legacy" in i for i in issues)
    if direct or legacy:
        status = "OUTDATED - needs update"
    elif issues:
        status = "NEEDS REVIEW (stale)"
    else:
        status = "CURRENT - up to date, no update needed"
    priority = "High" if direct else "Medium" if issues else "Low"
    return {
        "id": article["note_id"], "title": title, "updated": updated, "author": article.get("author", ""),
        "status": status, "issues": issues, "owner": owner, "due": due, "priority": priority,
    }  # fmt: skip


def solve(call: Call) -> str:
    """Audit every knowledge base article and return the report."""
    listing = call("notes_list", max_results=100).get("notes", [])
    articles = [call("notes_get", note_id=n["note_id"]) for n in listing]
    tasks = call("todo_list_tasks", status="all").get("tasks", [])
    events = call("calendar_list_events", date="2026-01-01", days=730).get("events", [])
    vocab = set(COMMON_WORDS)
    for item in tasks + articles:
        vocab |= {w.lower() for w in item.get("tags", []) if w.isalpha() and len(w) <= 12}
    dates = [a["updated_at"][:10] for a in articles] + [e["start_time"][:10] for e in events]
    as_of = max(date.fromisoformat(d) for d in dates)
    results = [audit(a, tasks, as_of, vocab) for a in articles]
    review = next((e for e in events if "review" in e["title"].lower()), None)
    out = ["# Knowledge Base Audit Report", "", f"Audit date: {as_of}. Articles reviewed: {len(results)}."]
    if review:
        out.append(
            f"Upcoming review: '{respace(review['title'], vocab)}' on "
            f"{review['start_time'][:16].replace('T', ' ')} with {', '.join(review['attendees'])} - use it "
            "to sign off the updates below."
        )
    out += ["", "## Current team work (to-do)", ""]
    out += [
        f"- {respace(t['title'], vocab)} - {t['assignee']}, {t['status']}, due {t['due_date']}" for t in tasks
    ]
    out += ["", "## Audit results", "", "| Article | Last updated | Status | Update owner | Priority |"]
    out += ["|---|---|---|---|---|"]
    for r in results:
        out.append(
            f"| {r['title']} ({r['id']}) | {r['updated']} | {r['status']} | {r['owner']} | {r['priority']} |"
        )
    out += ["", "## Issues per article", ""]
    for r in results:
        out.append(f"### {r['title']} - {r['status']}")
        out += [f"- Issue: {i}" for i in r["issues"]] or ["- No issues: content matches current systems."]
        if r["status"] != "CURRENT - up to date, no update needed":
            deadline = (
                f" before {r['due']} (when the replacement is due)" if r["due"] else " before the review"
            )
            out.append(
                f"- Update owner: {r['owner']} (author: {r['author']}); priority {r['priority']}; "
                f"update{deadline}."
            )
        out.append("")
    replaced = [
        t for t in tasks if "new" in respace(t["title"], vocab).lower() or re.search(r"v\d", t["title"])
    ]
    out += ["## Missing articles", ""]
    for t in replaced:
        out.append(
            f"- No article yet for the outcome of '{respace(t['title'], vocab)}': {t['assignee']} should "
            f"write it as part of the task (due {t['due_date']})."
        )
    out += [
        "",
        "## Update plan (by priority)",
        "",
    ]
    n = 1
    for level in ("High", "Medium", "Low"):
        for r in results:
            if r["priority"] == level and not r["status"].startswith("CURRENT"):
                out.append(
                    f"{n}. [{level}] {r['title']} - {r['owner']}: rewrite for the new system, remove legacy "
                    "links, re-review."
                )
                n += 1
    out.append(
        f"{n}. Recommend a quarterly review cycle so articles older than {STALE_DAYS} days are flagged "
        "automatically."
    )
    return "\n".join(out)
