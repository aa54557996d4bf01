"""Read every CRM customer (purchased products, industry, headcount from the notes) and sum each one's
finance transactions (matched by the customer's name prefix in the description). Recommendations come
from a product-complement map plus an industry map; revenue is estimated from observed contract prices
scaled by company size; customers are ranked by total spend (highest value first).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

PORTFOLIO = (
    "ERP Basic",
    "ERP Advanced",
    "CRM System",
    "HR System",
    "Logistics Management System",
    "Online Learning Platform",
    "Data Analytics Platform",
    "Supply Chain Management System",
)
# owned product -> natural next products, with the reason
COMPLEMENTS: dict[str, list[tuple[str, str]]] = {
    "ERP Basic": [
        ("ERP Advanced", "upgrade path from ERP Basic as the business grows"),
        ("HR System", "HR data plugs into the ERP's cost and payroll flows"),
    ],
    "ERP Advanced": [
        ("CRM System", "front-office sales data to complete the ERP back office"),
        ("Data Analytics Platform", "analytics over ERP and HR data already in our stack"),
    ],
    "HR System": [("Data Analytics Platform", "workforce analytics on the HR data")],
    "CRM System": [
        ("Data Analytics Platform", "customer / sales analytics on top of the CRM data"),
        ("ERP Basic", "connect CRM orders to fulfilment and finance"),
    ],
    "Logistics Management System": [
        ("Supply Chain Management System", "extends logistics into end-to-end supply chain planning"),
        ("ERP Basic", "back-office finance and inventory to pair with logistics"),
    ],
    "Online Learning Platform": [
        ("HR System", "ties training records to staff and teacher management"),
        ("Data Analytics Platform", "learning outcome and usage analytics"),
    ],
}
INDUSTRY_FIT: dict[str, list[str]] = {
    "manufacturing": ["ERP Advanced", "Supply Chain Management System", "HR System"],
    "retail": ["Data Analytics Platform", "Supply Chain Management System"],
    "logistics": ["Supply Chain Management System", "ERP Basic"],
    "education": ["HR System", "Data Analytics Platform"],
}
SIZE_FACTOR = ((3000, 1.0), (1000, 0.8), (500, 0.6), (0, 0.4))  # employees >= threshold -> factor


def canonical(raw: str) -> str | None:
    """Map a note / transaction spelling (e.g. 'ERPAdvanced', 'HRSystem') to a portfolio product."""
    squashed = re.sub(r"\s+", "", raw).lower()
    for product in PORTFOLIO:
        if re.sub(r"\s+", "", product).lower() in squashed:
            return product
    return None


def parse_notes(notes: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (part.split(":", 1) for part in notes.split("|") if ":" in part)}


def list_prices(transactions: list[dict[str, Any]]) -> dict[str, float]:
    """Observed contract value per product (sales contracts only)."""
    prices: dict[str, list[float]] = {}
    for t in transactions:
        if t.get("category") != "sales":
            continue
        product = canonical(str(t.get("description", "")).split("-", 1)[-1])
        if product:
            prices.setdefault(product, []).append(float(t["amount"]))
    return {p: sum(v) / len(v) for p, v in prices.items()}


def customer_rows(call: Callable[..., Any]) -> list[dict[str, Any]]:
    customers = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers").get("customers", [])
    ]
    transactions = call("finance_list_transactions").get("transactions", [])
    prices = list_prices(transactions)
    fallback_price = sorted(prices.values())[len(prices) // 2] if prices else 0.0
    rows = []
    for c in customers:
        notes = parse_notes(str(c.get("notes", "")))
        owned = [p for p in (canonical(x) for x in notes.get("Purchased Products", "").split(",")) if p]
        txns = [
            t for t in transactions if str(t.get("description", "")).split("-", 1)[0].strip() == c["name"]
        ]
        industry = notes.get("Industry") or next(
            (k.title() for k in INDUSTRY_FIT if k in f"{c['name']} {c.get('company', '')}".lower()), "n/a"
        )
        employees = int(re.sub(r"\D", "", notes.get("Employee Count", "0")) or 0)
        recs = recommend(owned, industry)
        factor = next(f for limit, f in SIZE_FACTOR if employees >= limit)
        estimates = []
        for product, reason in recs:
            base = prices.get(product, fallback_price)
            if product == "ERP Advanced" and "ERP Basic" in owned:
                base -= prices.get("ERP Basic", 0.0)  # upgrade: pay the difference
            estimates.append((product, reason, round(base * factor, -3)))
        rows.append(
            {
                "name": c["name"],
                "display": display_name(c),
                "company": c.get("company", c["name"]),
                "owned": owned,
                "industry": industry,
                "employees": employees,
                "spend": sum(float(t["amount"]) for t in txns),
                "txns": txns,
                "recs": estimates,
            }
        )
    rows.sort(key=lambda r: -r["spend"])
    return rows


def recommend(owned: list[str], industry: str) -> list[tuple[str, str]]:
    """Up to two products not yet owned: complement hits + industry fit, complement order breaking ties."""
    scores: dict[str, tuple[float, str]] = {}
    for i, product in enumerate(owned):
        for rank, (cand, reason) in enumerate(COMPLEMENTS.get(product, [])):
            if cand in owned:
                continue
            prev = scores.get(cand, (0.0, reason))
            scores[cand] = (prev[0] + 2 - 0.1 * rank - 0.01 * i, prev[1])
    for cand in INDUSTRY_FIT.get(industry.lower(), []):
        if cand in owned:
            continue
        prev = scores.get(cand, (0.0, f"common need in {industry.lower()} companies"))
        scores[cand] = (prev[0] + 1, prev[1] + f"; fits the {industry.lower()} industry")
    ranked = sorted(scores.items(), key=lambda kv: -kv[1][0])
    return [(p, r) for p, (_, r) in ranked[:2]]


def display_name(customer: dict[str, Any]) -> str:
    """The CRM short name, or the full company name when the short name is a truncated prefix of it."""
    name, company = customer["name"], str(customer.get("company") or customer["name"])
    return company if company != name and company.startswith(name) and " " not in name else name


def money(v: float) -> str:
    return f"{v:,.0f}"


def priority(spend: float) -> str:
    return "High" if spend >= 800_000 else "Medium" if spend >= 300_000 else "Low"


def solve(call: Callable[..., Any]) -> str:
    """Build the cross-sell opportunity report from CRM customers and finance transactions."""
    rows = customer_rows(call)
    total = sum(e for r in rows for _, _, e in r["recs"])
    out = ["# Cross-Sell Opportunity Report", ""]
    out += [
        "Customers are sorted by priority = total spend to date (highest-value customers first).",
        "",
        "## Priority Summary",
        "",
    ]
    for i, r in enumerate(rows, 1):
        recs = " + ".join(p for p, _, _ in r["recs"])
        out.append(
            f"{i}. {r['display']} ({priority(r['spend'])} value, spend {money(r['spend'])}): recommend "
            f"{recs}, "
            f"est. {money(sum(e for _, _, e in r['recs']))}."
        )
    out += [
        "",
        "## Opportunity Table",
        "",
        "| Priority | Customer | Industry / size | Current products | Total spend | Recommended products "
        "| Estimated revenue |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(rows, 1):
        out.append(
            f"| {i} ({priority(r['spend'])}) | {r['display']} | {r['industry']}, "
            f"{r['employees']:,} staff | {', '.join(r['owned'])} | {money(r['spend'])} | "
            f"{', '.join(p for p, _, _ in r['recs'])} | {money(sum(e for _, _, e in r['recs']))} |"
        )
    out += ["", f"**Total estimated cross-sell revenue: {money(total)}**", "", "## Customer Details", ""]
    for i, r in enumerate(rows, 1):
        parts = " + ".join(
            f"{money(float(t['amount']))} ({t['description'].split('-', 1)[-1]})" for t in r["txns"]
        )
        out += [
            f"### {i}. {r['display']} — {priority(r['spend'])} priority",
            f"- Current products: {', '.join(r['owned'])}; industry {r['industry']}, {r['employees']:,} "
            "employees.",
            f"- Total spend: {money(r['spend'])} = {parts}.",
            "- Recommended cross-sell:",
        ]
        for product, reason, est in r["recs"]:
            out.append(f"  - **{product}** — est. {money(est)}; rationale: {reason}.")
        out.append("")
    out += [
        "## Method",
        "",
        "- Spend: sum of all finance transactions whose description starts with the customer's name "
        "(contracts, maintenance, services, licenses).",
        "- Recommendations: products the customer does not own, scored by how naturally they extend the "
        "owned products and how well they fit the industry; top two kept.",
        "- Estimated revenue: the average contract value we have invoiced for that product (the median "
        "contract when we have not sold it yet; the price difference for an ERP upgrade), scaled by company "
        "size (>=3,000 staff 100%, >=1,000 80%, >=500 60%, smaller 40%).",
        "",
        "## Next Steps",
        "",
        "- Start with the high-priority accounts: their spend and size make them the best return per sales "
        "effort; bundle the recommendations with the next renewal or maintenance conversation.",
        "- For medium / low priority accounts, run a lighter campaign (demo + trial) for the top "
        "recommendation.",
    ]
    return "\n".join(out)
