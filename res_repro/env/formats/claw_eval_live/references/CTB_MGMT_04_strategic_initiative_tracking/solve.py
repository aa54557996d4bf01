"""Strategic initiative tracking: milestones from the strategy document, owner reports from email,
related tasks from the to-do list.

Status rule: RED when an owner reports a milestone slip (cascading to later milestones); YELLOW when
there is no slip yet but open issues, risk items or pending approvals; GREEN otherwise. Blockers and
CEO decisions are lifted from the reports' issue, risk, request and suggestion lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

STOP = {"and", "the", "for", "with", "line", "complete", "development", "improvement", "by", "in"}


def parse_initiatives(content: str) -> list[dict[str, Any]]:
    """Initiative blocks of the strategy document."""
    out = []
    for block in re.split(r"\n(?=Initiative \d+:)", content)[1:]:
        title = re.match(r"Initiative (\d+): (.+)", block)
        owner = re.search(r"Owner: (.+)", block)
        goal = re.search(r"Goal: (.+)", block)
        progress = re.search(r"Current progress: (.+)", block)
        milestones = [
            {"id": mid, "name": name.strip(), "due": due, "done": bool(done)}
            for mid, name, due, done in re.findall(r"- (M\d): (.+?) \(due ([\w ]+)\)( Done)?", block)
        ]
        out.append(
            {
                "num": int(title.group(1)),
                "title": title.group(2).strip(),
                "owner": owner.group(1).strip() if owner else "",
                "goal": goal.group(1).strip() if goal else "",
                "progress": progress.group(1).strip() if progress else "",
                "milestones": milestones,
                "reports": [],
                "tasks": [],
            }
        )
    return out


def login_of(name: str) -> str:
    """'Wei Chen' -> 'chen.wei' (surname.given logins)."""
    parts = name.lower().split()
    return f"{parts[-1]}.{parts[0]}" if len(parts) == 2 else name.lower()


def words(text: str) -> set[str]:
    """Content words."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in STOP}


def section(body: str, header: str) -> list[str]:
    """Bullet lines under a 'Header:' line."""
    found = re.search(rf"{header}:\n((?:- .+\n?)+)", body)
    return [line[2:].strip() for line in found.group(1).splitlines()] if found else []


def analyse_report(body: str) -> dict[str, Any]:
    """Facts from one owner's progress email."""
    bullets = [b[2:].strip() for b in body.splitlines() if b.startswith("- ")]
    slip = re.search(
        r"\((M\d)\) is expected to be delayed by ([\w ]+?), originally planned for ([\w ]+?) "
        r"completion, now estimated for ([\w ]+?)\.",
        body,
    )
    cascade = re.search(r"(M\d) \(([^)]+)\) may correspondingly shift to ([\w -]+)\.", body)
    suggestion = re.search(r"Suggestion: (.+)", body)
    return {
        "bullets": bullets,
        "issues": [b for b in bullets if b.lower().startswith("issue")],
        "risks": section(body, "Risk items") + section(body, "Reasons for delay"),
        "slip": slip.groups() if slip else None,
        "cascade": cascade.groups() if cascade else None,
        "suggestion": suggestion.group(1).strip() if suggestion else "",
        "requests": [b for b in bullets if re.match(r"(Need to|Request)", b)],
        "approvals": [b for b in bullets if "approval" in b.lower() and "pending" in b.lower()],
        "outlook": [b for b in bullets + body.splitlines() if re.search(r"expected to finish", b)],
    }


def status_of(init: dict[str, Any]) -> str:
    """GREEN / YELLOW / RED by the rule in the module docstring."""
    reports = init["reports"]
    if any(r["slip"] for r in reports):
        return "RED"
    if any(r["issues"] or r["risks"] or r["approvals"] for r in reports):
        return "YELLOW"
    return "GREEN"


def decisions(init: dict[str, Any]) -> list[str]:
    """Items needing a CEO decision for one initiative."""
    out = []
    for r in init["reports"]:
        for line in r["approvals"]:
            related = [
                t for t in init["tasks"] if "procurement" in t["title"].lower() and t["status"] != "done"
            ]
            what = related[0]["description"] if related else line
            out.append(f"Approve the pending procurement: {what}. Status: {line}.")
        for line in r["requests"]:
            out.append(f"Approve the budget request: {line}.")
        if r["suggestion"]:
            out.append(f"Decide on the owner's proposal to narrow the international scope: {r['suggestion']}")
        staffing = [x for x in r["risks"] if re.search(r"understaffed|only \d+ people", x)]
        for line in staffing:
            out.append(f"Resourcing: {line}.")
    return out


def report(inits: list[dict[str, Any]], as_of: date) -> str:
    """The tracking report."""
    out = [f"# Strategic Initiative Tracking Report (as of {as_of.isoformat()})", "", "## Dashboard", ""]
    out += [
        "| # | Initiative | Owner | Status | Milestones done | Current progress |",
        "|---|---|---|---|---|---|",
    ]
    for i in inits:
        done = sum(1 for m in i["milestones"] if m["done"])
        out.append(
            f"| {i['num']} | {i['title']} | {i['owner']} | **{status_of(i)}** | "
            f"{done}/{len(i['milestones'])} | {i['progress']} |"
        )
    out += [
        "",
        "Status rule: RED = milestone slip reported; YELLOW = on schedule but with open issues, risks "
        "or pending approvals; GREEN = on track with no blockers.",
        "",
    ]
    all_blockers: list[tuple[str, str]] = []
    ceo: list[tuple[str, str]] = []
    for i in inits:
        status = status_of(i)
        out += [f"## {i['num']}. {i['title']} - {status}", "", f"Goal: {i['goal']}", "", "Milestones:"]
        slip = next((r["slip"] for r in i["reports"] if r["slip"]), None)
        cascade = next((r["cascade"] for r in i["reports"] if r["cascade"]), None)
        for m in i["milestones"]:
            state = "completed" if m["done"] else "pending"
            partial = re.search(
                rf"{m['id']} (?:in progress |started )?\(?(\d+%) (?:done|complete)", i["progress"]
            )
            if partial and not m["done"]:
                state = f"in progress ({partial.group(1)} done)"
            if slip and slip[0] == m["id"]:
                state = f"DELAYED by {slip[1]} ({slip[2]} -> {slip[3]})"
            elif cascade and cascade[0] == m["id"]:
                state = f"at risk, may slip to {cascade[2]}"
            out.append(f"- {m['id']} {m['name']} (due {m['due']}): {state}")
        out += ["", "Latest report:"]
        for r in i["reports"]:
            outlook = r["outlook"][0].strip("- ") if r["outlook"] else ""
            out += [f"- {b}" for b in r["bullets"] if b not in r["risks"] and b != outlook]
            if r["slip"]:
                out.append(f"- {r['slip'][0]} slips by {r['slip'][1]}: {r['slip'][2]} -> {r['slip'][3]}")
            if r["cascade"]:
                out.append(f"- Knock-on: {r['cascade'][0]} ({r['cascade'][1]}) may move to {r['cascade'][2]}")
            if outlook:
                out.append(f"- Outlook: {outlook}")
        out += ["", "Related tasks:"]
        for t in i["tasks"]:
            late = " - OVERDUE" if t["status"] != "done" and date.fromisoformat(t["due_date"]) < as_of else ""
            out.append(f"- {t['title']} ({t['assignee']}, {t['status']}, due {t['due_date']}){late}")
        blockers = [x for r in i["reports"] for x in r["issues"] + r["risks"]]
        if blockers:
            out += ["", "Risks and blockers:"] + [f"- {b}" for b in blockers]
        all_blockers += [(i["title"], b) for b in blockers]
        ceo += [(i["title"], d) for d in decisions(i)]
        out.append("")
    out += ["## Risk items and blocker list", "", "| Initiative | Risk / blocker |", "|---|---|"]
    out += [f"| {t} | {b} |" for t, b in all_blockers]
    out += ["", "## Items requiring CEO attention and decisions", ""]
    out += [f"{n}. [{t}] {d}" for n, (t, d) in enumerate(ceo, 1)]
    red = [i["title"] for i in inits if status_of(i) == "RED"]
    if red:
        out += [
            "",
            f"Most urgent: {', '.join(red)} - decide on scope and staffing this week so the later "
            "milestones can be re-planned.",
        ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Gather documents, owner emails and tasks, assess each initiative and return the report."""
    docs = call("notes_list_documents", max_results=50)
    inits: list[dict[str, Any]] = []
    dates: list[str] = []
    for item in docs.get("notes") or docs.get("documents") or []:
        doc = call("notes_get_document", note_id=item["note_id"])
        if "Initiative" in str(doc.get("content", "")):
            inits += parse_initiatives(str(doc["content"]))
            dates.append(str(doc.get("updated_at", ""))[:10])
    for item in call("gmail_list_messages", days_back=3650, max_results=100).get("messages", []):
        msg = call("gmail_get_message", message_id=item["message_id"])
        sender = str(msg.get("from", "")).split("@")[0].lower()
        for i in inits:
            if login_of(i["owner"]) == sender or i["owner"] in str(msg.get("body", "")):
                i["reports"].append(analyse_report(str(msg.get("body", ""))))
    tasks = [
        call("todo_get_task", task_id=t["task_id"]) for t in call("todo_list_tasks", max_results=100)["tasks"]
    ]
    for t in tasks:
        text = words(t["title"] + " " + t.get("description", ""))
        best = max(
            inits,
            key=lambda i: (
                len(text & words(i["title"] + " " + i["goal"]))
                + (3 if login_of(i["owner"]) == t.get("assignee") else 0)
            ),
        )
        best["tasks"].append(t)
    as_of = max(date.fromisoformat(d) for d in dates if d)
    return report(inits, as_of)
