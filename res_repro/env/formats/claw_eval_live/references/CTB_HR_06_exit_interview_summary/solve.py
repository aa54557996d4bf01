"""Exit interview summary and retention risk analysis.

Joins each exiting employee's record (department, role note, performance, hire and exit dates) with
the exit interview email naming their id, classifies the departure reason and feedback themes with
keyword rules, counts reasons and departments, and derives risk indicators and interventions.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

SURNAMES = ("zhang", "wang", "chen", "lin", "yang", "li", "liu", "zhao", "huang", "zhou", "wu", "sun")
# (pattern on the departure-reason line, reason category); first match wins
REASONS: list[tuple[str, str]] = [
    (r"compensation|salary", "Compensation"),
    (r"overtime|work-life|burnout", "Work-life balance"),
    (r"promotion|career|no ?position|transfer|growth", "Career growth"),
]
# (pattern on the whole interview, theme with an optional captured number)
THEMES: list[tuple[str, str]] = [
    (r"increase rate\s*(\d+)%", "competing offer with a {0}% pay rise"),
    (r"high\s*(\d+)%", "market pays about {0}% more for the same position"),
    (r"(\d+)\s*not yet\s*promotion", "{0} years in the same position without promotion"),
    (r"overtime\s*(\d+)", "overtime around {0} hours a week"),
    (r"AI\W*company\s*no\s*position", "wants to move into AI; no such position internally"),
    (r"benchmark", "asks for market salary benchmarking"),
]
INTERVENTIONS = {
    "Compensation": "Set up annual market salary benchmarking and adjust pay bands for roles more than 10% "
    "below market; use retention bonuses for key engineers",
    "Career growth": "Publish a promotion framework with clear grade criteria and review cycles, and open "
    "internal transfer paths into new business areas",
    "Work-life balance": "Cap overtime hours, monitor weekly hours per team and add headcount or re-plan "
    "projects running sustained overtime",
}


def _name_from_email(address: str) -> str:
    """A display name from a pinyin mailbox such as 'wanglei@...' (surname first)."""
    local = address.split("@")[0].lower()
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname):
            return f"{surname.capitalize()} {local[len(surname) :].capitalize()}"
    return local


def _reason(body: str) -> str:
    """Departure reason category from the interview's reason line."""
    line = next((ln for ln in body.splitlines() if ln.lower().startswith("departure reason")), body)
    for pattern, category in REASONS:
        if re.search(pattern, line, re.IGNORECASE):
            return category
    return "Other"


def _themes(body: str) -> list[str]:
    """Feedback themes found in the interview text."""
    found = []
    for pattern, theme in THEMES:
        match = re.search(pattern, body, re.IGNORECASE)
        if match:
            found.append(theme.format(*match.groups()))
    return found


def _months(start: str, end: str) -> int:
    """Whole months between two ISO dates."""
    a, b = date.fromisoformat(start[:10]), date.fromisoformat(end[:10])
    return (b.year - a.year) * 12 + b.month - a.month


def solve(call: Call) -> str:
    """Summarize the exit interviews and return the retention risk report."""
    people = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    ]
    leavers = [p for p in people if p.get("deal_stage") == "exiting" or "offboarding" in str(p.get("status"))]
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]

    rows = []
    for p in leavers:
        interview = next((e for e in emails if p["customer_id"] in str(e.get("body", ""))), None)
        body = str(interview.get("body", "")) if interview else ""
        notes = str(p.get("notes", ""))
        perf = re.search(r"performance\s*([A-D][+-]?)", notes)
        rows.append(
            {
                "name": p.get("name") or _name_from_email(str(p.get("email", ""))),
                "id": p["customer_id"],
                "dept": p.get("company") or p.get("industry"),
                "role": notes.split("，")[0] or "not recorded",
                "perf": perf.group(1) if perf else "n/a",
                "tenure": _months(str(p["created_at"]), str(p.get("last_contact") or p["created_at"])),
                "reason": _reason(body) if body else "no interview on file",
                "themes": _themes(body),
                "source": interview["message_id"] if interview else "-",
            }
        )
    n = len(rows)
    reasons = Counter(r["reason"] for r in rows).most_common()
    depts = Counter(r["dept"] for r in rows).most_common()

    lines = [
        "# Exit Interview Summary and Retention Risk Report",
        "",
        f"Departures analyzed: {n}.",
        "",
        "## Individual exit interviews",
        "",
        "| Employee | ID | Department | Role note | Performance | Tenure (months) | Departure reason | "
        "Key feedback themes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['id']} | {r['dept']} | {r['role']} | {r['perf']} | {r['tenure']} | "
            f"{r['reason']} | {'; '.join(r['themes']) or '-'} |"
        )

    lines += ["", "## Departure reasons ranked by frequency", ""]
    for i, (reason, count) in enumerate(reasons, 1):
        names = ", ".join(r["name"] for r in rows if r["reason"] == reason)
        lines.append(f"{i}. {reason}: {count} of {n} ({count / n:.0%}) - {names}")
    lines += ["", "## Department-level analysis", ""]
    for dept, count in depts:
        causes = Counter(r["reason"] for r in rows if r["dept"] == dept)
        lines.append(
            f"- {dept}: {count} departure{'s' if count > 1 else ''} "
            f"({count} {'people' if count > 1 else 'person'}; "
            + ", ".join(f"{c} {k.lower()}" for k, c in causes.items())
            + ")"
        )

    avg_tenure = sum(r["tenure"] for r in rows) / n if n else 0
    strong = [r["name"] for r in rows if r["perf"].startswith("B+") or r["perf"].startswith("A")]
    short = [r["name"] for r in rows if r["tenure"] < 24]
    top_dept, top_count = depts[0] if depts else ("-", 0)
    gaps = [f"{m}%" for r in rows for t in r["themes"] if "pay" in t for m in re.findall(r"(\d+)%", t)]
    lines += [
        "",
        "## Retention risk indicators",
        "",
        f"- {top_dept} has the most departures ({top_count} of {n}); its remaining staff face the same "
        "drivers and are the highest retention risk.",
        f"- Good performers are leaving: {', '.join(strong) or 'none'} (B+ or better).",
        f"- Average tenure at exit is {avg_tenure:.0f} months; {len(short)} of {n} left within two years "
        f"({', '.join(short)}).",
        f"- Pay and career issues together explain {sum(c for k, c in reasons if k != 'Work-life balance')} "
        f"of {n} exits; pay gaps cited: {', '.join(gaps) or 'none quantified'}.",
        "",
        "## Recommended interventions",
        "",
    ]
    for reason, count in reasons:
        if reason in INTERVENTIONS:
            lines.append(f"- {reason} ({count / n:.0%} of exits): {INTERVENTIONS[reason]}.")
    lines.append(
        "- Run stay interviews in the highest-risk departments this quarter and track the reasons above "
        "as monthly retention indicators."
    )
    return "\n".join(lines)
