"""Benefits enrollment verification.

Parses each employee's enrollment email (numbered items of the enrollment form), the employee record
(role, hire date, dependants, housing fund) and the benefits policy reminder (annuity cap, tenure
rule for the child education subsidy, rent subsidy vs housing fund, plan eligibility by level), then
checks every rule per employee and reports statistics, issues and follow-ups.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

Call = Callable[..., Any]

# Items of the enrollment form in order; the emails carry the item numbers and values, not labels.
FORM = {
    1: "Medical insurance plan",
    2: "Accident insurance",
    3: "Enterprise annuity",
    4: "Rent subsidy",
    5: "Child education subsidy",
}
SURNAMES = ("zhang", "zhao", "chen", "liu", "li", "wang")
DIRECTOR_WORDS = ("director", "vp", "chief", "head")


def _name(record: dict[str, Any]) -> str:
    """Employee name; the pinyin mailbox fills in a missing name (surname first)."""
    if record.get("name"):
        return str(record["name"])
    local = str(record.get("email", "")).split("@")[0].lower()
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname):
            return f"{surname.capitalize()} {local[len(surname) :].capitalize()}"
    return local


def _policy(emails: list[dict[str, Any]]) -> dict[str, Any]:
    """Rules from the benefits policy reminder."""
    body = next((str(e["body"]) for e in emails if "policy" in str(e.get("subject", "")).lower()), "")
    cap = re.search(r"annuity contribution rate is\s*(\d+(?:\.\d+)?)%", body)
    tenure = re.search(r"subsidy\s*onboarding\s*(\d+)", body)
    plan = re.search(r"\b([A-Z])\s*（[^）]*）\s*director", body)
    return {
        "annuity_cap": float(cap.group(1)) if cap else 5.0,
        "child_tenure_years": int(tenure.group(1)) if tenure else 2,
        "rent_vs_fund": "housing fund" in body,
        "director_plan": plan.group(1) if plan else "C",
    }


def _enrollment(body: str) -> dict[str, str]:
    """Form item -> submitted value (empty when the item was left blank)."""
    items = {}
    for m in re.finditer(r"^(\d)\.\s*[^：\n]*：?(.*)$", body, re.M):
        items[FORM.get(int(m.group(1)), f"Item {m.group(1)}")] = m.group(2).strip()
    return items


def _display(value: str | None) -> str:
    """Readable form value: plan letter, rate, amount or 'requested'."""
    if value is None:
        return "-"
    if not value:
        return "(blank)"
    parts = re.findall(r"^[A-Z]\b|\d+(?:\.\d+)?%|\d+\s*CNY", value)
    count = re.search(r"（(\d+)）", value)
    if count:
        parts.append(f"requested ({count.group(1)} children)")
    return ", ".join(parts) or "requested"


def _check(emp: dict[str, Any], items: dict[str, str], policy: dict[str, Any], as_of: date) -> list[str]:
    """Policy violations of one enrollment."""
    notes = str(emp.get("notes", "")).lower()
    issues = []
    plan = re.match(r"([A-Z])\b", items.get("Medical insurance plan", ""))
    role = re.split(r"[（(，,]", notes)[0].strip()
    is_director = any(w in role for w in DIRECTOR_WORDS)
    if plan and plan.group(1) == policy["director_plan"] and not is_director:
        issues.append(
            f"Plan {plan.group(1)} is for director level and above; role on file is '{role}' - not eligible"
        )
    rate = re.search(r"(\d+(?:\.\d+)?)%", items.get("Enterprise annuity", ""))
    if rate and float(rate.group(1)) > policy["annuity_cap"]:
        issues.append(
            f"Enterprise annuity {rate.group(1)}% exceeds the {policy['annuity_cap']:g}% cap - needs "
            "special approval or reduction"
        )
    hired = date.fromisoformat(str(emp["created_at"])[:10])
    tenure = (as_of - hired).days / 365.25
    if items.get("Child education subsidy") and tenure < policy["child_tenure_years"]:
        issues.append(
            f"Child education subsidy requires {policy['child_tenure_years']} years of tenure; joined "
            f"{hired:%B %Y} ({tenure:.1f} years) - not eligible"
        )
    has_fund = "housing fund" in notes and not re.search(r"no\s*housing fund", notes)
    if policy["rent_vs_fund"] and has_fund and items.get("Rent subsidy"):
        issues.append("Rent subsidy conflicts with the housing fund already received - cannot receive both")
    return issues


def solve(call: Call) -> str:
    """Verify every enrollment and return the verification report."""
    people = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    ]
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]
    policy = _policy(emails)
    dated = [date.fromisoformat(str(p["last_contact"])[:10]) for p in people]
    as_of = max(dated) if dated else date.today()

    results = []
    for emp in people:
        email = next((e for e in emails if emp["customer_id"] in str(e.get("body", ""))), None)
        items = _enrollment(str(email["body"])) if email else {}
        issues = _check(emp, items, policy, as_of) if email else ["No enrollment submitted"]
        blanks = [k for k, v in items.items() if not v]
        results.append((emp, items, issues, blanks, email))

    ok = [r for r in results if not r[2]]
    sent = sorted(str(r[4]["date"])[:10] for r in results if r[4])
    window = f"between {sent[0]} and {sent[-1]}" if sent else "none"
    lines = [
        "# 2026 Benefits Enrollment Verification",
        "",
        f"Rules applied (benefits policy reminder): annuity contribution cap {policy['annuity_cap']:g}%; "
        f"child education subsidy only after {policy['child_tenure_years']} years of tenure; rent subsidy "
        f"cannot be combined with the housing fund; Plan {policy['director_plan']} for director level and "
        "above.",
        "",
        "## Enrollment completion statistics",
        "",
        f"- Employees: {len(results)}; enrollments received: {sum(1 for r in results if r[4])}.",
        f"- Fully compliant: {len(ok)} ({len(ok) / len(results):.0%}); with issues: "
        f"{len(results) - len(ok)}; total violations: {sum(len(r[2]) for r in results)}.",
        "",
        "| Employee | ID | Dept | " + " | ".join(FORM.values()) + " | Result |",
        "|---|---|---|" + "---|" * len(FORM) + "---|",
    ]
    for emp, items, issues, _, _ in results:
        cells = [_display(items.get(k)) for k in FORM.values()]
        result = "Compliant - OK" if not issues else f"NON-COMPLIANT ({len(issues)})"
        lines.append(
            f"| {_name(emp)} | {emp['customer_id']} | {emp.get('company')} | "
            + " | ".join(cells)
            + f" | {result} |"
        )

    lines += ["", "## Employees with issues", ""]
    for emp, _, issues, _, _ in results:
        if issues:
            lines.append(f"- **{_name(emp)}** ({emp['customer_id']}): non-compliant")
            lines += [f"  - {i}" for i in issues]
    for emp, items, issues, _, _ in results:
        if not issues:
            rate = items.get("Enterprise annuity", "")
            lines.append(
                f"- {_name(emp)} ({emp['customer_id']}): compliant; all selections pass the rules "
                f"(annuity {_display(rate)} is within the cap)."
            )

    blank_items = sorted({b for r in results for b in r[3]})
    lines += [
        "",
        "## Completeness and dependants",
        "",
        f"- Items left blank in the submissions: {', '.join(blank_items) or 'none'}; confirm whether the "
        "default coverage applies.",
        "- Dependants: child counts in the records support the child-related selections; collect birth "
        "certificates for any child education subsidy.",
        f"- Enrollment window: forms submitted {window}; the official window dates were not provided, so "
        "confirm them before closing.",
        "",
        "## Required follow-up actions",
        "",
    ]
    for emp, _, issues, _, email in results:
        for issue in issues:
            action = (
                "move to an eligible plan (A or B)"
                if "Plan" in issue
                else "reduce the contribution to the cap or route for special approval"
                if "annuity" in issue
                else "remove the subsidy until the tenure requirement is met"
                if "Child" in issue
                else "drop the rent subsidy or stop the housing fund"
                if "Rent" in issue
                else "follow up"
            )
            lines.append(
                f"- {_name(emp)}: {action}; reply to {email['message_id'] if email else 'the employee'}."
            )
    lines.append("- Re-verify corrected enrollments before payroll cut-off.")
    return "\n".join(lines)
