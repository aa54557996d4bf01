"""Rolling six-month cashflow forecast and risk memo, following the attached forecast policy.

The history CSV and the policy are parsed from the instruction; each 2026 month takes the 2025 same-month
inflow and outflow, balances roll forward from the policy's opening balance, and months under the safety
line get a funding gap. The memo ties financing and collection actions to the first risk month.
"""

from __future__ import annotations

import calendar
import csv
import io
import re
from collections.abc import Callable
from typing import Any


def attachments(instruction: str) -> dict[str, str]:
    """Map each inlined attachment name to its text."""
    parts = re.split(r"\[attached document: ([^\]]+)\]\n", instruction)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def policy_number(policy: str, pattern: str) -> float:
    """The first number after ``pattern`` in the policy text."""
    found = re.search(pattern + r"[^0-9]*?`?(\d+(?:\.\d+)?)`?", policy, re.I | re.S)
    if not found:
        raise ValueError(f"policy lacks {pattern!r}")
    return float(found.group(1))


def month_name(month: str) -> str:
    """'2026-03' -> 'March 2026'."""
    year, num = month.split("-")
    return f"{calendar.month_name[int(num)]} {year}"


def forecast(history: list[dict[str, str]], months: list[str], opening: float, safety: float) -> list[dict]:
    """Prior-year same-month forecast with the balance rolled forward month by month."""
    by_month = {r["month"]: r for r in history}
    balance, rows = opening, []
    for month in months:
        year, num = month.split("-")
        base = by_month[f"{int(year) - 1}-{num}"]
        inflow, outflow = float(base["cash_in"]), float(base["cash_out"])
        net = round(inflow - outflow, 2)
        balance = round(balance + net, 2)
        gap = round(max(0.0, safety - balance), 2)
        rows.append({"month": month, "in": inflow, "out": outflow, "net": net, "end": balance, "gap": gap})
    return rows


def solve(call: Callable[..., Any], instruction: str) -> str:
    """Build the forecast from the attachments and return the CFO memo."""
    docs = attachments(instruction)
    history = list(csv.DictReader(io.StringIO(next(v for k, v in docs.items() if k.endswith(".csv")))))
    policy = next(v for k, v in docs.items() if k.endswith(".md"))
    period = re.findall(r"`(\d{4}-\d{2})`", policy)[:2]
    start_y, start_m = map(int, period[0].split("-"))
    end_y, end_m = map(int, period[1].split("-"))
    months = [
        f"{start_y + (start_m - 1 + i) // 12}-{(start_m - 1 + i) % 12 + 1:02d}"
        for i in range((end_y - start_y) * 12 + end_m - start_m + 1)
    ]
    opening = policy_number(policy, r"starting cash balance.*?which is")
    safety = policy_number(policy, r"safety line is fixed at")
    rows = forecast(history, months, opening, safety)

    risk = [r for r in rows if r["end"] < safety]
    low = min(rows, key=lambda r: r["end"])
    peak = max(rows, key=lambda r: r["gap"])
    first = risk[0] if risk else None
    prior_year = int(months[0][:4]) - 1

    lines = [
        "# Memo: Rolling Cashflow Forecast and Liquidity Risk Alert (2026 H1)",
        "",
        "To: Office of the CFO  ",
        "From: Treasury  ",
        f"Scope: {months[0]} to {months[-1]}, all amounts in million CNY",
        "",
        "## Executive Summary",
    ]
    if risk:
        lines += [
            f"- Opening balance {opening:.1f} (ending balance at {prior_year}-12-31); safety line "
            f"{safety:.1f}.",
            f"- The balance falls below the safety line in {len(risk)} of {len(rows)} months: "
            f"{', '.join(r['month'] for r in risk)}, starting in {month_name(first['month'])}.",
            f"- Minimum cash balance: {low['end']:.1f} in {low['month']} ({month_name(low['month'])}).",
            f"- Peak funding gap: {peak['gap']:.1f} in {peak['month']}.",
            "- Action: arrange short-term financing before "
            f"{calendar.month_name[int(first['month'][5:])]} and accelerate receivable collection to "
            "close the gap.",
        ]
    else:
        lines.append("- The balance stays above the safety line in every forecast month.")
    lines += [
        "",
        "## Methodology",
        f"- Prior-year same-month basis per the forecast policy: each 2026 month uses the {prior_year} "
        "same-month cash_in as Forecast Inflow and cash_out as Forecast Outflow, so the seasonal pattern "
        "of the history carries over.",
        f"- Ending balance = previous ending balance + net cash flow, starting from {opening:.1f}.",
        f"- Funding Gap = max(0, safety line {safety:.1f} − ending cash balance).",
        "",
        "## Forecast Table",
        "",
        "| Month | Forecast Inflow | Forecast Outflow | Net Cash Flow | Ending Cash Balance | Below "
        "Safety Line | Funding Gap |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['month']} | {r['in']:.1f} | {r['out']:.1f} | {r['net']:+.1f} | {r['end']:.1f} | "
            f"{'Yes' if r['end'] < safety else 'No'} | {r['gap']:.1f} |"
        )
    lines += ["", "## Risk Months (below the safety line)"]
    lines += [f"- {r['month']}: ending balance {r['end']:.1f}, funding gap {r['gap']:.1f}" for r in risk] or [
        "- None"
    ]
    lines += [
        "",
        "## Minimum Cash Balance Point and Peak Funding Gap",
        f"- Minimum cash balance: {low['end']:.1f} in {low['month']}.",
        f"- Peak funding gap: {peak['gap']:.1f} in {peak['month']} (safety line {safety:.1f} − "
        f"{low['end']:.1f}).",
        "",
        "## Recommended Actions",
    ]
    if risk:
        first_name = calendar.month_name[int(first["month"][5:])]
        before = rows[rows.index(first) - 1]["month"] if rows.index(first) > 0 else first["month"]
        last_risk = risk[-1]["month"]
        lines += [
            "1. Short-term financing: secure a credit facility or bridge financing of at least "
            f"{peak['gap']:.1f} (the peak gap) before {first_name} — i.e. signed by the end of {before} — "
            f"and keep it available through {last_risk}.",
            f"2. Accelerate accounts receivable collection from {before} through {peak['month']}: "
            "prioritise large overdue balances, offer early-payment terms and escalate slow payers, so "
            "inflows land before the balance bottoms out.",
            f"3. Phase discretionary outflows in {first['month']}–{peak['month']} where contracts allow, "
            "to reduce the draw on financing.",
            f"4. Re-run this rolling forecast monthly with actuals; confirm in {peak['month']} whether "
            "the recovery in the following months holds before releasing any buffer.",
        ]
    else:
        lines.append("1. Keep monitoring monthly; no financing action is needed on this forecast.")
    return "\n".join(lines)
