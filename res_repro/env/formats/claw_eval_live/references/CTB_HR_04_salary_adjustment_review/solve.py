"""Salary adjustment review against policy threshold and department budgets.

Parses each request line (employee id, current and proposed monthly salary, increase rate, reason)
from the managers' emails, the Q2 budgets and the policy threshold from the finance emails, joins the
personnel records (department, hire date, notes) and classifies each request with explicit rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

SURNAMES = (
    "zhang",
    "zheng",
    "wang",
    "zhao",
    "qian",
    "li",
    "lin",
    "liu",
    "chen",
    "wu",
    "sun",
    "huang",
    "zhou",
)
REQUEST = re.compile(r"(EMP-\d+)\W*?(\d+)CNY.*?(\d+)CNY.*?increase rate\s*([\d.]+)%\W*(.*)")


def _name_from_email(address: str) -> str:
    """A display name from a pinyin mailbox such as 'liqiang@...' (surname first)."""
    local = address.split("@")[0].lower()
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname):
            return f"{surname.capitalize()} {local[len(surname) :].capitalize()}"
    return local


def _requests(emails: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every salary adjustment request line in the emails."""
    out = []
    for email in emails:
        for line in str(email.get("body", "")).splitlines():
            m = REQUEST.search(line)
            if m:
                out.append(
                    {
                        "emp": m.group(1),
                        "current": int(m.group(2)),
                        "proposed": int(m.group(3)),
                        "rate": float(m.group(4)),
                        "reason": m.group(5).strip("。， ") or "not stated",
                        "source": email["message_id"],
                        "requester": email.get("from", ""),
                    }
                )
    return out


def _budgets(emails: list[dict[str, Any]]) -> dict[str, int]:
    """Department budgets for salary increases (monthly CNY)."""
    found = {}
    for email in emails:
        for m in re.finditer(r"-\s*(\w+)\W*budget\s*(\d+)\s*CNY", str(email.get("body", ""))):
            found[m.group(1)] = int(m.group(2))
    return found


def _threshold(emails: list[dict[str, Any]]) -> float:
    """The increase rate above which VP approval is required (defaults to 15%)."""
    for email in emails:
        m = re.search(r"(\d+(?:\.\d+)?)%[^。\n]*VP", str(email.get("body", "")))
        if m:
            return float(m.group(1))
    return 15.0


def _tenure_months(hired: str, as_of: date) -> int:
    """Whole months between the hire date and ``as_of``."""
    start = date.fromisoformat(hired[:10])
    return (as_of.year - start.year) * 12 + as_of.month - start.month


def solve(call: Call) -> str:
    """Evaluate every salary adjustment request and return the review report."""
    people = {
        c["customer_id"]: call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    }
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]
    requests, budgets, limit = _requests(emails), _budgets(emails), _threshold(emails)
    as_of = max(date.fromisoformat(str(p.get("last_contact", "2026-03-23"))[:10]) for p in people.values())

    by_dept: dict[str, list[dict[str, Any]]] = {}
    for r in requests:
        person = people[r["emp"]]
        r["name"] = person.get("name") or _name_from_email(str(person.get("email", "")))
        r["dept"] = person.get("company") or person.get("industry")
        r["increase"] = r["proposed"] - r["current"]
        r["tenure"] = _tenure_months(str(person.get("created_at")), as_of)
        r["notes"] = str(person.get("notes", "")).strip("， ") or "none"
        by_dept.setdefault(r["dept"], []).append(r)

    dept_total = {d: sum(r["increase"] for r in rs) for d, rs in by_dept.items()}
    for dept, rs in by_dept.items():
        over_budget = dept_total[dept] > budgets.get(dept, 0)
        for r in rs:
            if over_budget:
                r["decision"] = "Defer"
                r["why"] = f"department increase {dept_total[dept]:,} exceeds budget {budgets.get(dept, 0):,}"
            elif r["rate"] > limit:
                capped = round(r["current"] * limit / 100)
                r["decision"] = "Approve with modification"
                r["why"] = (
                    f"{r['rate']:g}% exceeds the {limit:g}% policy threshold: requires VP approval for "
                    f"the full +{r['increase']:,}; without it cap at +{capped:,} ({limit:g}%)"
                )
            else:
                r["decision"] = "Approve"
                r["why"] = f"{r['rate']:g}% within the {limit:g}% threshold and within budget"

    lines = [
        "# Salary Adjustment Review",
        "",
        f"Policy: increases above {limit:g}% need VP (or above) approval; department Q2 budgets for monthly "
        "increases come from the finance notice. Market benchmark data was not provided in the records, so "
        "the review relies on the requested rate, performance notes, tenure and budget.",
        "",
        "| Employee | ID | Dept | Current | Proposed | Increase | Rate | Tenure (months) | Notes / rating | "
        "Recommendation |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in requests:
        lines.append(
            f"| {r['name']} | {r['emp']} | {r['dept']} | {r['current']:,} | {r['proposed']:,} | "
            f"+{r['increase']:,} | {r['rate']:g}% | {r['tenure']} | {r['notes']} | {r['decision']} |"
        )

    lines += [
        "",
        "## Budget check (monthly increase vs Q2 budget)",
        "",
        "| Department | Requested increase | Budget | Headroom | Status |",
        "|---|---|---|---|---|",
    ]
    for dept, total in dept_total.items():
        budget = budgets.get(dept, 0)
        status = (
            "over budget"
            if total > budget
            else "exactly at the budget limit"
            if total == budget
            else "within budget"
        )
        lines.append(f"| {dept} | {total:,} | {budget:,} | {budget - total:,} | {status} |")
    lines.append(
        f"| Total | {sum(dept_total.values()):,} | {sum(budgets.values()):,} | "
        f"{sum(budgets.values()) - sum(dept_total.values()):,} | |"
    )

    vp = [r for r in requests if r["rate"] > limit]
    lines += ["", f"## Requests exceeding {limit:g}% (VP approval required): {len(vp)}", ""]
    lines += [f"- {r['name']} ({r['dept']}): +{r['increase']:,} = {r['rate']:g}% > {limit:g}%" for r in vp]
    lines += ["", "## Recommendations", ""]
    for r in requests:
        lines.append(
            f"- {r['name']}: **{r['decision']}**. {r['why']}. Manager justification: {r['reason']} "
            f"({r['source']})."
        )
    at_limit = [d for d, t in dept_total.items() if t == budgets.get(d)]
    if at_limit:
        lines.append(
            f"- {', '.join(at_limit)} uses its full budget; any further increase this quarter would be "
            "non-compliant with the budget."
        )
    lines.append(
        "- Last adjustment dates are not in the personnel records; HR should confirm no increase was "
        "granted in the past 12 months before processing."
    )
    return "\n".join(lines)
