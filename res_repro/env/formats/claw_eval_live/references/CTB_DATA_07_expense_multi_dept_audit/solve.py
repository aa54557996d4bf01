"""March department expense audit: budget caps from the finance email vs March transactions.

The finance department's budget email gives each department's cap; March transactions are pulled from the
finance system and summed per department and category; departments over their cap are ranked by overage
percentage, and the report closes with totals and follow-up actions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any


def pct(value: float) -> str:
    """Percentage without trailing zeros: 17%, 6.25%."""
    return f"{value:.2f}".rstrip("0").rstrip(".") + "%"


def money(value: float) -> str:
    """Dollar amount with separators."""
    return f"${value:,.0f}"


def find_budget_email(call: Callable[..., Any]) -> tuple[dict[str, Any], dict[str, float]]:
    """The finance budget email and the caps it lists ('- Dept: $100,000')."""
    for item in call("gmail_list_messages", days_back=3650).get("messages", []):
        if "finance" not in item["from"].lower() or "budget" not in item["subject"].lower():
            continue
        mail = call("gmail_get_message", message_id=item["message_id"])
        caps = {
            d: float(a.replace(",", ""))
            for d, a in re.findall(r"^- ([\w &]+): \$([\d,]+)", mail["body"], re.M)
        }
        if caps:
            return mail, caps
    raise RuntimeError("no budget email from finance found")


def solve(call: Callable[..., Any]) -> str:
    """Compare March spending with the caps and return the audit report."""
    mail, caps = find_budget_email(call)
    txns = [t for t in call("finance_list_transactions").get("transactions", []) if t["date"][5:7] == "03"]
    by_dept: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for t in txns:
        by_dept[t["department"]].append(t)
    rows = []
    for dept in list(caps) + [d for d in by_dept if d not in caps]:
        spent = sum(t["amount"] for t in by_dept.get(dept, []))
        cap = caps.get(dept)
        variance = spent - cap if cap is not None else None
        rows.append(
            {
                "dept": dept,
                "cap": cap,
                "spent": spent,
                "variance": variance,
                "pct": variance / cap * 100 if cap else None,
                "txns": by_dept.get(dept, []),
            }
        )
    return report(mail, rows, txns)


def report(mail: dict[str, Any], rows: list[dict[str, Any]], txns: list[dict[str, Any]]) -> str:
    """Render the audit report."""
    over = sorted((r for r in rows if r["variance"] and r["variance"] > 0), key=lambda r: -r["pct"])
    within = [r for r in rows if r["variance"] is not None and r["variance"] <= 0]
    total = sum(r["spent"] for r in rows)
    budget = sum(r["cap"] for r in rows if r["cap"] is not None)
    lines = [
        "# March Department Expense Budget Audit",
        "",
        f'Budget source: "{mail["subject"]}" ({mail["message_id"]}, from {mail["from"]}). '
        f"Transactions: {len(txns)} March records from the finance system.",
        "",
        "## Over-Budget Warning List (sorted by overage percentage)",
        "",
    ]
    for i, r in enumerate(over, 1):
        lines.append(
            f"{i}. {r['dept']}: over budget by {money(r['variance'])} ({pct(r['pct'])}) — spent "
            f"{money(r['spent'])} against a {money(r['cap'])} cap."
        )
    if within:
        lines.append(f"Within budget: {', '.join(r['dept'] for r in within)}.")
    lines += [
        "",
        "## Budget Comparison",
        "",
        "| Department | Budget | Actual | Variance | Overage % | Status |",
        "|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: -(r["pct"] if r["pct"] is not None else -999)):
        status = "Over budget" if r["variance"] and r["variance"] > 0 else "Within budget"
        over_pct = pct(r["pct"]) if r["pct"] is not None and r["pct"] > 0 else "—"
        lines.append(
            f"| {r['dept']} | {money(r['cap'] or 0)} | {money(r['spent'])} | {r['variance']:+,.0f} | "
            f"{over_pct} | {status} |"
        )
    lines += [
        "",
        "## Spending Details by Department",
        "",
        "| Department | Transactions | Total | By category |",
        "|---|---|---|---|",
    ]
    for r in rows:
        cats: dict[str, float] = defaultdict(float)
        for t in r["txns"]:
            cats[t["category"]] += t["amount"]
        by_cat = "; ".join(f"{c} {money(a)}" for c, a in sorted(cats.items(), key=lambda x: -x[1]))
        lines.append(f"| {r['dept']} | {len(r['txns'])} | {money(r['spent'])} | {by_cat or '—'} |")
    lines += ["", "Largest items:"]
    for t in sorted(txns, key=lambda t: -t["amount"])[:3]:
        lines.append(
            f"- {t['transaction_id']} {t['department']} {t['category']}: {money(t['amount'])} — "
            f"{t['description']} (approved by {t.get('approved_by', 'n/a')})"
        )
    lines += [
        "",
        "## Total Spending Summary",
        f"- Total March spending: {money(total)} against total budget {money(budget)} "
        f"({money(total - budget)} {'over' if total > budget else 'under'} in aggregate).",
        f"- {len(over)} of {len(rows)} departments over budget; combined overage "
        f"{money(sum(r['variance'] for r in over))}.",
        "",
        "## Recommendations",
    ]
    for r in over:
        top = max(r["txns"], key=lambda t: t["amount"])
        lines.append(
            f"- {r['dept']}: confirm pre-approval for the overage (the budget email requires it); review "
            f"the largest item {top['transaction_id']} ({top['category']}, {money(top['amount'])}) and "
            "freeze discretionary spend until reconciled."
        )
    lines.append("- Finance: add a mid-month budget check so overages are flagged before month-end.")
    return "\n".join(lines)
