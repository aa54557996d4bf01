"""Segment profitability: CRM customers grouped into VIP / Standard / Basic, joined to finance transactions.

The segment comes from each customer's CRM record (VIP customers, Standard or Basic Edition in the notes;
the tier field is shown too and flagged where it disagrees). Revenue and cost transactions are matched to
customers by name; segment margins decide the most profitable and the weakest segment.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

SEGMENTS = ("VIP", "Standard", "Basic")


def segment(customer: dict[str, Any]) -> str:
    """VIP / Standard / Basic from the CRM notes, falling back to the tier field."""
    notes = customer.get("notes", "")
    if "VIP" in notes:
        return "VIP"
    for name in ("Standard", "Basic"):
        if f"{name} Edition" in notes:
            return name
    return "VIP" if customer.get("tier") == "VIP" else "Standard"


def money(value: float) -> str:
    """Amount with thousands separators."""
    return f"{value:,.0f}"


def solve(call: Callable[..., Any]) -> str:
    """Compute revenue, cost, profit and margin per segment and return the analysis."""
    customers = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers").get("customers", [])
    ]
    transactions = call("finance_list_transactions").get("transactions", [])
    per_customer = {}
    for c in customers:
        own = [t for t in transactions if c["name"].lower() in t["description"].lower()]
        revenue = sum(t["amount"] for t in own if t["type"] == "revenue")
        cost = sum(t["amount"] for t in own if t["type"] == "cost")
        drivers = [d for t in own if t["type"] == "cost" for d in re.findall(r"\((.+?)\)", t["description"])]
        per_customer[c["customer_id"]] = {
            "customer": c,
            "segment": segment(c),
            "revenue": revenue,
            "cost": cost,
            "drivers": drivers,
        }
    unmatched = [
        t for t in transactions if not any(c["name"].lower() in t["description"].lower() for c in customers)
    ]
    seg = {}
    for name in SEGMENTS:
        rows = [r for r in per_customer.values() if r["segment"] == name]
        revenue, cost = sum(r["revenue"] for r in rows), sum(r["cost"] for r in rows)
        seg[name] = {
            "rows": rows,
            "revenue": revenue,
            "cost": cost,
            "profit": revenue - cost,
            "margin": (revenue - cost) / revenue * 100 if revenue else 0.0,
        }
    return report(seg, per_customer, unmatched)


def report(seg: dict[str, dict[str, Any]], per_customer: dict[str, dict[str, Any]], unmatched: list) -> str:
    """Render the profitability analysis."""
    active = {k: v for k, v in seg.items() if v["rows"]}
    best = max(active, key=lambda k: active[k]["margin"])
    worst = min(active, key=lambda k: active[k]["margin"])
    biggest = max(active, key=lambda k: active[k]["profit"])
    total_rev = sum(v["revenue"] for v in active.values())
    total_profit = sum(v["profit"] for v in active.values())
    lines = [
        "# Customer Segment Profitability Analysis",
        "",
        "## Segment Summary",
        "",
        "| Segment | Customers | Revenue | Cost | Profit | Profit margin | Share of profit |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, v in active.items():
        names = ", ".join(r["customer"]["name"] for r in v["rows"])
        lines.append(
            f"| {name} | {names} | {money(v['revenue'])} | {money(v['cost'])} | {money(v['profit'])} | "
            f"{v['margin']:.1f}% | {v['profit'] / total_profit * 100:.1f}% |"
        )
    lines.append(
        f"| Total | {len(per_customer)} | {money(total_rev)} | {money(total_rev - total_profit)} | "
        f"{money(total_profit)} | {total_profit / total_rev * 100:.1f}% | 100% |"
    )
    lines += [
        "",
        "## Customer Detail",
        "",
        "| Customer | Segment | CRM tier field | Revenue | Cost | Margin |",
        "|---|---|---|---|---|---|",
    ]
    mismatched = []
    for r in per_customer.values():
        c = r["customer"]
        margin = (r["revenue"] - r["cost"]) / r["revenue"] * 100 if r["revenue"] else 0.0
        tier = c.get("tier", "-")
        if (tier == "VIP") != (r["segment"] == "VIP"):
            mismatched.append(c["name"])
        lines.append(
            f"| {c['name']} | {r['segment']} | {tier} | {money(r['revenue'])} | {money(r['cost'])} | "
            f"{margin:.1f}% |"
        )
    b, w, g = active[best], active[worst], active[biggest]

    def drivers(v: dict[str, Any]) -> str:
        found = [d for r in v["rows"] for d in r["drivers"]]
        return "; ".join(found) or "no itemised cost drivers"

    lines += [
        "",
        "## Conclusions",
        f"- Most profitable segment: {best} — highest profit margin at {b['margin']:.1f}% (profit "
        f"{money(b['profit'])} on revenue {money(b['revenue'])}).",
        f"- Segment most in need of optimization: {worst} — lowest margin at {w['margin']:.1f}%; service "
        f"cost is {w['cost'] / w['revenue'] * 100:.1f}% of revenue.",
        f"- {biggest} brings the most absolute profit ({money(g['profit'])}, "
        f"{g['profit'] / total_profit * 100:.1f}% of the total) but at a {g['margin']:.1f}% margin, "
        f"{b['margin'] - g['margin']:.1f} points below {best}.",
        "",
        "## Recommendations",
        f"- {worst}: cut cost-to-serve (cost drivers in finance: {drivers(w)}) through self-service "
        "onboarding and pooled support, and review pricing or move customers toward higher editions.",
        f"- {biggest}: keep investing in the accounts, but control delivery cost (cost drivers: "
        f"{drivers(g)}) to lift the margin.",
        f"- {best}: use it as the efficiency benchmark and grow this segment; it converts revenue into "
        "profit most efficiently.",
    ]
    if mismatched:
        lines.append(
            "- Data quality: the CRM tier field says VIP/standard differently from the edition in the "
            f"notes for {', '.join(mismatched)}; segments here follow the notes. Fix the tier field in CRM."
        )
    if unmatched:
        lines.append(f"- {len(unmatched)} transactions could not be matched to a customer and are excluded.")
    return "\n".join(lines)
