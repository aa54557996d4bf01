"""Merge the project brief, solution review notes and action tracker into one handover report.

The three attachments are parsed from the instruction and regrouped by topic: goals/scope from the brief,
each stakeholder's requirements gathered from every document that names them, open items and dated
milestones from the tracker (which wins on conflicts, e.g. the kickoff date) enriched with review notes.
The report is written to /workspace/project_handover_report.md with the sandbox file tool.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

OPEN_STATES = {"open", "pending", "in_progress", "blocked"}
REPORT_PATH = "/workspace/project_handover_report.md"


def attachments(instruction: str) -> dict[str, str]:
    """Map each inlined attachment name to its text."""
    parts = re.split(r"\[attached document: ([^\]]+)\]\n", instruction)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def md_sections(text: str) -> dict[str, str]:
    """'## Heading' -> body of a markdown document."""
    chunks = re.split(r"^## +(.+)$", text, flags=re.M)
    return {chunks[i].strip(): chunks[i + 1].strip() for i in range(1, len(chunks) - 1, 2)}


def bullets(text: str) -> list[str]:
    """Bullet lines without markup."""
    return [re.sub(r"\*\*", "", b).strip() for b in re.findall(r"^\s*-\s+(.+)$", text, re.M)]


def numbered(text: str) -> list[str]:
    """Numbered points of a plain-text note."""
    return [p.strip() for p in re.findall(r"^\s*\d+\.\s+(.+)$", text, re.M)]


def solve(call: Callable[..., Any], instruction: str) -> str:
    """Build the merged handover report from the attachments, write it to the sandbox and return it."""
    docs = attachments(instruction)
    brief = next(v for k, v in docs.items() if k.endswith(".md"))
    notes = numbered(next(v for k, v in docs.items() if k.endswith(".txt")))
    tracker = list(csv.DictReader(io.StringIO(next(v for k, v in docs.items() if k.endswith(".csv")))))
    title = re.search(r"^# +(.+)$", brief, re.M).group(1).strip()
    sec = md_sections(brief)
    goals = bullets(sec.get("Goals", ""))
    contacts = bullets(sec.get("Key Contacts", ""))
    timeline = bullets(sec.get("Preliminary Timeline", ""))
    names = [re.match(r"(?:Our [\w-]+: )?([A-Z][a-z]+ [A-Z][a-z]+)", c).group(1) for c in contacts]
    names_short = {n.split()[0]: n for n in names}

    def who(text: str) -> list[str]:
        found = [n for n in names if n in text]
        found += [
            full
            for first, full in names_short.items()
            if re.search(rf"\b{first}\b", text) and full not in found
        ]
        if "procurement" in text.lower():
            found.append("Client procurement team")
        return found

    kickoff = next((r for r in tracker if "kickoff" in r["item"]), None)
    open_rows = [r for r in tracker if r["status"] in OPEN_STATES]
    dated = sorted(tracker, key=lambda r: r["due_date"])
    start = date.fromisoformat(dated[0]["due_date"])
    window_end = start + timedelta(days=14)

    lines = [f"# {title} — Project Handover Report", ""]
    lines += [
        "Sources merged: project brief, solution review notes, action tracker. Where they disagree, the "
        "action tracker's latest status is used.",
        "",
        "## 1. Project Goals and Scope",
        f"- Background: {sec.get('Background', '').strip()}",
    ]
    lines += [f"- {g}" for g in goals]
    for t in timeline:
        if "kickoff" in t.lower() and kickoff:
            lines.append(
                f"- Kickoff: {kickoff['due_date']} ({kickoff['status']} in the action tracker; the brief's "
                f"{t.split(':')[-1].strip()} is superseded)"
            )
        else:
            lines.append(f"- {t}")
    constraints = [n for n in notes if "read-only" in n.lower() or "sample data" in n.lower()]
    lines += ["- Delivery approach agreed so far:"]
    lines += [f"  - {n}" for n in constraints]
    lines += ["", "## 2. Key Stakeholders and Their Requirements", ""]
    lines += ["| Stakeholder | Role | Requirements / focus |", "|---|---|---|"]
    people = [*names, "Client procurement team"]
    for person in people:
        role = next((c for c in contacts if person in c), "")
        role_text = role.replace(person, "").strip(" ,:") or "client procurement"
        reqs = [n.rstrip(".") for n in notes if person in who(n)]
        reqs += [
            f"Owns tracker item '{r['item']}' ({r['status']}, due {r['due_date']})"
            for r in tracker
            if r["owner"] == person
        ]
        lines.append(f"| {person} | {role_text} | {'; '.join(reqs) or '—'} |")
    lines += ["", "## 3. Current Blockers / Open Items", ""]
    lines += ["| Item | Owner | Status | Due | Detail |", "|---|---|---|---|---|"]
    for r in sorted(open_rows, key=lambda r: (r["owner"] != "TBD", r["due_date"])):
        lines.append(
            f"| {r['item'].replace('_', ' ')} | {r['owner']} | {r['status']} | {r['due_date']} | "
            f"{r['notes']} |"
        )
    risks = [n for n in notes if any(k in n.lower() for k in ("blocked", "open item", "not been finalized"))]
    lines += ["", "Why they matter:"]
    lines += [f"- {n}" for n in risks]
    unassigned = [r for r in open_rows if r["owner"] == "TBD"]
    if unassigned:
        lines.append(
            "- Highest priority: assign an owner for "
            f"{', '.join(r['item'].replace('_', ' ') for r in unassigned)} (owner still TBD)."
        )
    lines += ["", f"## 4. Key Milestones for the Next Two Weeks ({start} to {window_end})", ""]
    lines += ["| Date | Milestone | Owner | Status |", "|---|---|---|---|"]
    for r in dated:
        if date.fromisoformat(r["due_date"]) <= window_end:
            lines.append(f"| {r['due_date']} | {r['notes']} | {r['owner']} | {r['status']} |")
    lines += [
        "",
        "## 5. Resolved Conflicts Between Documents",
    ]
    original = re.search(r"\d{4}-\d{2}-\d{2}", " ".join(t for t in timeline if "kickoff" in t.lower()))
    if kickoff and original:
        lines.append(
            f"- Kickoff date: brief says {original.group(0)}; review notes call a later date unconfirmed; "
            f"the action tracker confirms {kickoff['due_date']} — use the tracker date."
        )
    report = "\n".join(lines) + "\n"
    call("sandbox_file_write", path=REPORT_PATH, content=report)
    written = call("sandbox_shell_exec", command=f"wc -l {REPORT_PATH}")
    lines_written = written.get("stdout", "").split()[0] if written.get("exit_code") == 0 else "?"
    return (
        f"I wrote the merged handover report to {REPORT_PATH} ({lines_written} lines). Full text:\n\n{report}"
    )
