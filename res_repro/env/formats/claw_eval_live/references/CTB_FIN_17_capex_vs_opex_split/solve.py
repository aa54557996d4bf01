"""CapEx/OpEx classification check of IT spending.

Applies the stated policy (amount > 50,000 and useful life > 1 year means capitalize) to every IT
spending record, compares the result with the booked classification, and reports each item, the
misclassified ones, their total impact and the correcting entries.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

AMOUNT_THRESHOLD = 50_000
LIFE_THRESHOLD_YEARS = 1


def _expected(row: dict[str, Any]) -> str:
    """Classification the policy requires for one spending record."""
    big = float(row["amount"]) > AMOUNT_THRESHOLD
    durable = float(row.get("useful_life_years") or 0) > LIFE_THRESHOLD_YEARS
    return "capex" if big and durable else "opex"


def _reason(row: dict[str, Any]) -> str:
    """Why the policy gives that classification."""
    amount, life = float(row["amount"]), float(row.get("useful_life_years") or 0)
    parts = [
        f"amount {amount:,.0f} {'>' if amount > AMOUNT_THRESHOLD else '<='} 50,000",
        f"useful life {life:g} yr {'>' if life > LIFE_THRESHOLD_YEARS else '<='} 1 yr",
    ]
    return "; ".join(parts)


def solve(call: Call) -> str:
    """Check each IT spending record's CapEx/OpEx classification and return the review."""
    rows = [r for r in call("finance_list_transactions")["transactions"] if r.get("type") == "it_spending"]
    wrong = [r for r in rows if _expected(r) != str(r.get("classified_as", "")).lower()]
    impact = sum(float(r["amount"]) for r in wrong)
    to_capex = [r for r in wrong if _expected(r) == "capex"]
    understated = sum(float(r["amount"]) for r in to_capex)

    lines = [
        "# IT Spending: CapEx vs OpEx Classification Check",
        "",
        "Policy threshold: an item is capitalized (CapEx) when it costs more than 50,000 AND has a useful "
        "life of more than 1 year; otherwise it is expensed (OpEx). Both conditions must hold.",
        "",
        "| ID | Item | Amount | Useful life (yrs) | Booked as | Policy says | Result |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ok = r not in wrong
        lines.append(
            f"| {r['transaction_id']} | {r['item']} | {float(r['amount']):,.0f} | "
            f"{r.get('useful_life_years', 0)} | {str(r['classified_as']).upper()} | "
            f"{_expected(r).upper()} | {'correct' if ok else 'MISCLASSIFIED'} |"
        )

    lines += ["", f"## Findings: {len(wrong)} misclassified items, total impact {impact:,.0f}", ""]
    for r in wrong:
        lines.append(
            f"- {r['transaction_id']} {r['item']} ({float(r['amount']):,.0f}): booked as "
            f"{str(r['classified_as']).upper()} but should be {_expected(r).upper()} "
            f"({_reason(r)}). The classification is incorrect."
        )
    for r in rows:
        life = float(r.get("useful_life_years") or 0)
        if r not in wrong and life > LIFE_THRESHOLD_YEARS and _expected(r) == "opex":
            lines.append(
                f"- {r['transaction_id']} {r['item']} ({float(r['amount']):,.0f}): multi-year life but "
                "the amount is below the 50,000 threshold, so OpEx is correct and acceptable."
            )

    lines += [
        "",
        "## Impact",
        "",
        f"- Total misclassified amount: {impact:,.0f} ({impact / 1000:,.0f}K).",
        f"- OpEx is overstated and fixed assets understated by {understated:,.0f}"
        "; current-period profit is understated by the same amount less this period's depreciation.",
        "",
        "## Recommendations",
        "",
    ]
    for r in to_capex:
        life = float(r.get("useful_life_years") or 0)
        lines.append(
            f"- Reclassify {r['item']} ({r['transaction_id']}) to CapEx: move {float(r['amount']):,.0f} "
            f"from operating expense to fixed/intangible assets and depreciate/amortize over {life:g} years "
            f"({float(r['amount']) / life:,.0f} per year)."
        )
    lines.append(
        "- Add a classification check at purchase approval (amount and useful life captured on every "
        "IT purchase request) so the policy is applied before booking."
    )
    return "\n".join(lines)
