"""Pre-tax deductibility review of company expenses.

Classifies each expense from its record: non-deductible flag, a cap on the expense itself
(deduction_limit_pct), a cap on an outside base (payroll or profit, named in the description), or a
super deduction (deduction_pct); then totals the non-deductible amounts, the capped excess, the R&D
super deduction and the corporate income tax effect at each record's tax rate.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def _n(value: float) -> str:
    """An amount with thousands separators."""
    return f"{value:,.0f}"


def _outside_base(row: dict[str, Any]) -> str | None:
    """The outside base a percentage cap refers to ('payroll', 'profit'), if any."""
    match = re.search(r"% of (\w+)", str(row.get("description", "")))
    return match.group(1) if match else None


def _assess(row: dict[str, Any]) -> dict[str, Any]:
    """Deductibility, rule and amounts of one expense record."""
    amount = float(row["amount"])
    limit = row.get("deduction_limit_pct")
    result = {"deductible": amount, "excess": 0.0, "extra": 0.0, "pending": False}
    if not row.get("deductible", True):
        result.update(
            status="Non-deductible",
            rule="Penalty/surcharge: cannot be deducted before tax",
            deductible=0.0,
            excess=amount,
        )
    elif row.get("deduction_pct"):
        pct = float(row["deduction_pct"])
        result.update(
            status="Deductible + super deduction",
            rule=f"{pct * 100:.0f}% super deduction",
            deductible=amount * pct,
            extra=amount * (pct - 1),
        )
    elif limit is not None and _outside_base(row):
        result.update(
            status="Deductible within cap",
            pending=True,
            rule=f"capped at {float(limit) * 100:.0f}% of {_outside_base(row)}; "
            f"{_outside_base(row)} data needed to test the cap",
        )
    elif limit is not None and float(limit) < 1:
        allowed = amount * float(limit)
        result.update(
            status="Partially deductible",
            rule=f"{float(limit) * 100:.0f}% deduction limit",
            deductible=allowed,
            excess=amount - allowed,
        )
    else:
        result.update(status="Fully deductible", rule="ordinary business expense")
    return result


def solve(call: Call) -> str:
    """Review every expense's deductibility and return the tax report."""
    rows = [r for r in call("finance_list_transactions")["transactions"] if r.get("type") == "expense"]
    assessed = [(r, _assess(r)) for r in rows]
    rate = float(rows[0].get("tax_rate", 0.25)) if rows else 0.25

    lines = [
        "# Pre-Tax Deduction Review",
        "",
        "## 1. Expense items",
        "",
        "| ID | Category | Amount | Deductibility | Special rule | Deductible amount | Non-deductible |",
        "|---|---|---|---|---|---|---|",
    ]
    for r, a in assessed:
        lines.append(
            f"| {r['transaction_id']} | {r['category']} | {_n(r['amount'])} | {a['status']} | {a['rule']} | "
            f"{_n(a['deductible'])} | {_n(a['excess'])} |"
        )

    banned = [(r, a) for r, a in assessed if a["status"] == "Non-deductible"]
    capped = [(r, a) for r, a in assessed if a["status"] == "Partially deductible"]
    pending = [(r, a) for r, a in assessed if a["pending"]]
    supers = [(r, a) for r, a in assessed if a["extra"]]
    banned_total = sum(a["excess"] for _, a in banned)
    capped_excess = sum(a["excess"] for _, a in capped)

    lines += ["", "## 2. Non-deductible expenses (penalties and late payment surcharges)", ""]
    lines += [
        f"- {r['category']} ({r['transaction_id']}): {_n(r['amount'])}, not deductible" for r, _ in banned
    ]
    lines.append(
        "- Total non-deductible: "
        + " + ".join(_n(r["amount"]) for r, _ in banned)
        + f" = **{_n(banned_total)}**"
    )

    lines += ["", "## 3. Capped deductions", ""]
    for r, a in capped:
        lines.append(
            f"- {r['category']} ({r['transaction_id']}): {_n(r['amount'])} x {a['rule'].split('%')[0]}% = "
            f"{_n(a['deductible'])} deductible; {_n(a['excess'])} exceeds the {a['rule']} and must be added "
            "back."
        )
    for r, a in pending:
        lines.append(
            f"- {r['category']} ({r['transaction_id']}): {_n(r['amount'])}, {a['rule']}; treated as "
            "deductible here."
        )

    lines += ["", "## 4. R&D super deduction", ""]
    for r, a in supers:
        lines.append(
            f"- {r['category']} ({r['transaction_id']}): {_n(r['amount'])} x {a['rule'].split('%')[0]}% = "
            f"{_n(a['deductible'])} deductible, an extra deduction of {_n(a['extra'])} "
            f"(tax saving {_n(a['extra'] * rate)} at {rate * 100:.0f}%)."
        )

    wide = banned_total + capped_excess
    lines += [
        "",
        f"## 5. Corporate income tax impact ({rate * 100:.0f}% rate)",
        "",
        f"- Penalties and surcharges: {_n(banned_total)} x {rate * 100:.0f}% = **{_n(banned_total * rate)}** "
        "additional tax.",
        f"- Including the entertainment add-back: ({_n(banned_total)} + {_n(capped_excess)}) = {_n(wide)} x "
        f"{rate * 100:.0f}% = **{_n(wide * rate)}** additional tax.",
        f"- Offsetting benefit: the R&D super deduction lowers tax by "
        f"{_n(sum(a['extra'] for _, a in supers) * rate)}.",
        "",
        "Recommendations: book penalties and surcharges as permanent differences, track entertainment "
        "against the cap during the year, keep R&D project documentation to support the super deduction, "
        "and confirm payroll and profit figures to test the benefits and donation caps.",
    ]
    return "\n".join(lines)
