"""Travel expense compliance audit.

Lists every travel expense record, flags those whose amount exceeds the limit, totals the excess,
sums spending by department, and names the worst violator by absolute excess (ties reported
together, with the excess as a share of the limit as a secondary view).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def _n(value: float) -> str:
    """An amount with thousands separators."""
    return f"{value:,.0f}"


def solve(call: Call) -> str:
    """Audit travel expenses against their limits and return the audit report."""
    rows = [r for r in call("finance_list_transactions")["transactions"] if r.get("type") == "travel_expense"]
    for r in rows:
        r["excess"] = max(0.0, float(r["amount"]) - float(r["limit"]))
    flagged = [r for r in rows if r["excess"] > 0]
    total_excess = sum(r["excess"] for r in flagged)
    by_dept: dict[str, list[float]] = {}
    for r in rows:
        by_dept.setdefault(str(r["department"]), []).append(float(r["amount"]))
    worst_excess = max((r["excess"] for r in flagged), default=0.0)
    worst = [r for r in flagged if r["excess"] == worst_excess]

    lines = [
        "# Travel Expense Compliance Audit",
        "",
        "## 1. All travel expense records",
        "",
        "| ID | Employee | Department | Date | City | Amount | Limit | Excess | Status |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        status = "NON-COMPLIANT (exceeds limit)" if r["excess"] else "compliant"
        lines.append(
            f"| {r['transaction_id']} | {r['employee']} | {r['department']} | {r['date']} | "
            f"{r.get('city', '')} | {_n(r['amount'])} | {_n(r['limit'])} | {_n(r['excess'])} | {status} |"
        )

    lines += ["", f"## 2. Over-limit records ({len(flagged)} of {len(rows)})", ""]
    for r in sorted(flagged, key=lambda r: -r["excess"]):
        pct = r["excess"] / float(r["limit"]) * 100
        lines.append(
            f"- {r['employee']} ({r['department']}): {_n(r['amount'])} vs limit {_n(r['limit'])}, "
            f"over by {_n(r['excess'])} ({pct:.1f}% above limit)"
        )

    lines += [
        "",
        "## 3. Total excess amount",
        "",
        " + ".join(_n(r["excess"]) for r in flagged) + f" = **{_n(total_excess)}**",
        "",
        "## 4. Department summary",
        "",
        "| Department | Records | Total travel expense | Over-limit excess |",
        "|---|---|---|---|",
    ]
    for dept, amounts in by_dept.items():
        dept_excess = sum(r["excess"] for r in flagged if r["department"] == dept)
        lines.append(f"| {dept} | {len(amounts)} | {_n(sum(amounts))} | {_n(dept_excess)} |")
    lines.append(
        f"| **Total** | {len(rows)} | {_n(sum(float(r['amount']) for r in rows))} | {_n(total_excess)} |"
    )

    names = " and ".join(r["employee"] for r in worst)
    tie = " (tied)" if len(worst) > 1 else ""
    lines += [
        "",
        "## 5. Most severe violation",
        "",
        f"{names}{tie}: each over the limit by {_n(worst_excess)}, the largest excess in the period.",
    ]
    if len(worst) > 1:
        top = max(worst, key=lambda r: r["excess"] / float(r["limit"]))
        lines.append(
            f"Relative to the limit, {top['employee']} is the most severe "
            f"({top['excess'] / float(top['limit']) * 100:.1f}% above the limit)."
        )
    lines += [
        "",
        "Recommended follow-up: request justification and receipts for every non-compliant claim, "
        "recover or formally approve the excess, and require pre-approval for trips expected to exceed "
        "the limit.",
    ]
    return "\n".join(lines)
