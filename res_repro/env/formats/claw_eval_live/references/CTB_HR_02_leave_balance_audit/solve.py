"""Annual leave balance audit.

Parses each leave request email (employee id, days requested, balance the employee claims) and
each personnel record (remaining annual leave, comp-time), flags claimed-vs-system discrepancies,
decides approval from the system balance (plus comp-time where the employee asks to use it), and
tabulates the results.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def _int(pattern: str, text: str) -> int | None:
    """First integer captured by ``pattern`` in ``text``."""
    match = re.search(pattern, text, re.IGNORECASE)
    return int(match.group(1)) if match else None


def _parse_request(email: dict[str, Any]) -> dict[str, Any] | None:
    """Employee id, requested days, claimed balance and comp-time wish of one leave request."""
    body = str(email.get("body", ""))
    emp = re.search(r"EMP-\d+", body)
    if not emp or "leave request" not in str(email.get("subject", "")).lower():
        return None
    return {
        "emp": emp.group(0),
        "message_id": email["message_id"],
        "requested": _int(r"(\d+)\s+days?", body),
        "claimed": _int(r"balance (?:should (?:still )?be|is) (\d+) day", body),
        "wants_comp": "comp-time" in body.lower() or "comp time" in body.lower(),
        "period": (re.search(r"\(?(April \d+\s*(?:-|to)\s*(?:April )?\d+)", body) or [None, ""])[1],
    }


def _decision(req: dict[str, Any], remaining: int, comp: int) -> tuple[str, str]:
    """Approval decision and the reasoning for one request."""
    need = req["requested"]
    if remaining >= need:
        return "Approve", f"system balance {remaining} >= {need} requested"
    usable = remaining + (comp if req["wants_comp"] else 0)
    if usable >= need:
        return "Approve (annual + comp-time)", f"{remaining} annual + {comp} comp-time covers {need}"
    return (
        "Cannot fully approve",
        f"balance insufficient: {remaining} annual + {comp} comp-time = {usable} < {need}; "
        f"short {need - usable}",
    )


def solve(call: Call) -> str:
    """Audit leave balances against the requests and return the audit table and recommendations."""
    people = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers")["customers"]
    ]
    records = {p["customer_id"]: p for p in people}
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]
    requests = [r for r in (_parse_request(e) for e in emails) if r]
    notice = {
        m.group(1): int(m.group(2))
        for e in emails
        for m in re.finditer(r"(EMP-\d+)[^:\n]*:\s*Remaining (\d+) day", str(e.get("body", "")))
    }

    rows = []
    for req in requests:
        person = records[req["emp"]]
        notes = str(person.get("notes", ""))
        remaining = _int(r"remaining (\d+) day", notes) or 0
        comp = _int(r"comp-time balance:\s*(\d+)", notes) or 0
        gap = (req["claimed"] or remaining) - remaining
        decision, why = _decision(req, remaining, comp)
        rows.append((req, person, remaining, comp, gap, decision, why))

    lines = [
        "# Annual Leave Balance Audit",
        "",
        "## Audit table",
        "",
        "| Employee | ID | Dept | Claimed balance | System balance (HR notice) | Discrepancy | Requested "
        "| Comp-time | Decision |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for req, p, remaining, comp, gap, decision, _ in rows:
        flag = f"{gap:+d} days (discrepancy)" if gap else "consistent"
        lines.append(
            f"| {p['name']} | {req['emp']} | {p.get('company', '')} | {req['claimed']} | {remaining} "
            f"({notice.get(req['emp'], 'n/a')}) | {flag} | {req['requested']} ({req['period']}) | {comp} | "
            f"{decision} |"
        )

    lines += ["", "## Balance discrepancies", ""]
    for req, p, remaining, _, gap, _, _ in rows:
        if gap:
            lines.append(
                f"- {p['name']} ({req['emp']}) claims {req['claimed']} days but the system shows "
                f"{remaining}: a mismatch of {gap} days. System note: {p.get('notes')}. "
                "Tell the employee the correct balance."
            )
    lines += ["", "## Approval decisions", ""]
    for _, p, _, _, _, decision, why in rows:
        lines.append(f"- {p['name']}: {decision} ({why}).")

    lines += ["", "## Wang Min comp-time request", ""]
    for req, p, remaining, comp, _, _, _ in rows:
        if req["wants_comp"]:
            short = req["requested"] - remaining - comp
            lines.append(
                f"{p['name']} asks for {req['requested']} days with {remaining} days of annual leave and "
                f"comp-time for the remaining {req['requested'] - remaining}. The comp-time balance is only "
                f"{comp} day, so the request exceeds the available {remaining + comp} days and is short "
                f"{max(short, 0)} day. Recommendation: approve {remaining + comp} days ({remaining} annual + "
                f"{comp} comp-time) and either shorten the trip by {max(short, 0)} day or take it as unpaid "
                "leave with manager approval; do not advance next year's leave without policy sign-off."
            )
    lines += [
        "",
        f"Summary: {len(rows)} requests audited; {sum(1 for r in rows if r[4])} balance discrepancies; "
        f"{sum(1 for r in rows if r[5].startswith('Approve'))} approvable as requested.",
    ]
    return "\n".join(lines)
