"""Upsell scan: customer emails classified into seat expansion, plan upgrade/module and multi-site deals.

Each opportunity is cross-referenced with the customer's CRM plan and revenue; estimates use CRM prices
where they exist (per-seat price, plan price gap, per-site price) and stated planning assumptions where
CRM has no price (module list price, branch-site discount). Opportunities are ranked by amount.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# Planning assumptions where CRM holds no price; to be confirmed with the pricing team.
MODULE_PRICE = 100_000  # add-on module list price per year
BRANCH_DISCOUNT = 1 / 6  # branch sites licensed below the HQ enterprise fee (smaller footprint)
WORDS = {"two": 2, "three": 3, "four": 4}


def count_sites(text: str) -> int:
    """Number of new sites named in 'our A and B branch offices' or 'two branches'."""
    for word, n in WORDS.items():
        if f"{word} branch" in text.lower():
            return n
    named = re.search(r"our (.+?) branch", text)
    return len(re.split(r",\s*|\s+and\s+", named.group(1))) if named else 1


def plan_prices(customers: list[dict[str, Any]]) -> dict[str, float]:
    """Annual price of each plan name seen in CRM (first word of current_plan)."""
    return {c["current_plan"].split()[0]: float(c["annual_revenue"]) for c in customers}


def estimate(mail: dict[str, Any], c: dict[str, Any], prices: dict[str, float]) -> dict[str, Any] | None:
    """Opportunity type, estimate and reasoning for one customer email, or None if there is none."""
    text = f"{mail['subject']} {mail['body']}"
    low = text.lower()
    revenue = float(c["annual_revenue"])
    if "branch" in low or "multi-site" in low or "deploy for" in low:
        sites = count_sites(text)
        per_site = revenue * (1 - BRANCH_DISCOUNT)
        return {
            "type": "Multi-site expansion",
            "amount": sites * per_site,
            "basis": f"{sites} new branch sites × {per_site / 1000:,.0f}K (HQ fee "
            f"{{revenue / 1000:,.0f}}K less the assumed {BRANCH_DISCOUNT:.0%} branch discount); upper "
            f"bound at full HQ fee {sites * revenue / 1000:,.0f}K",
            "next": "Send multi-site Enterprise options for the new branches and book a deployment scoping "
            "call",
        }
    seats = re.findall(r"(\d+)[- ](?:people|users?|seats?)", low)
    if ("seat" in low or "license" in low) and len(seats) >= 2:
        numbers = sorted(int(s) for s in seats)
        now, want = numbers[0], numbers[-1]
        per_seat = revenue / now
        return {
            "type": "User/seat expansion",
            "amount": (want - now) * per_seat,
            "basis": f"{now} → {want} users: +{want - now} seats × {per_seat / 1000:,.1f}K per seat "
            f"(current {revenue / 1000:,.0f}K / {now} users)",
            "next": f"Quote the {want}-user license and offer a co-termed seat upgrade this month",
        }
    if "module" in low or "upgrade" in low:
        plan = c["current_plan"].split()[0]
        higher = sorted(p for p in prices.values() if p > prices.get(plan, revenue))
        step = (higher[0] - revenue) if higher else 0.0
        return {
            "type": "Plan upgrade + add-on module",
            "amount": step + MODULE_PRICE,
            "basis": f"upgrade from {c['current_plan']} ({revenue / 1000:,.0f}K) to the next plan "
            f"(+{step / 1000:,.0f}K, CRM plan prices) plus the requested module at the assumed "
            f"{MODULE_PRICE / 1000:,.0f}K list price",
            "next": "Send module pricing and a demo invite; bundle it with the plan upgrade it requires",
        }
    return None


def solve(call: Callable[..., Any]) -> str:
    """Find the opportunities, estimate and rank them, and return the report."""
    customers = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers").get("customers", [])
    ]
    by_email = {c["contact_email"].lower(): c for c in customers}
    prices = plan_prices(customers)
    opportunities = []
    for item in call("gmail_list_messages", days_back=3650).get("messages", []):
        c = by_email.get(item["from"].lower())
        if not c:
            continue
        mail = call("gmail_get_message", message_id=item["message_id"])
        found = estimate(mail, c, prices)
        if found:
            opportunities.append({**found, "customer": c, "mail": mail})
    ranked = sorted(opportunities, key=lambda o: -o["amount"])
    return report(ranked)


def report(ranked: list[dict[str, Any]]) -> str:
    """Render the ranked opportunity report."""
    total = sum(o["amount"] for o in ranked)
    lines = [
        "# Upsell / Upgrade / Expansion Opportunity Scan",
        "",
        f"{len(ranked)} opportunities found in customer emails, cross-referenced with each customer's "
        "current plan in CRM. Ranked by estimated additional annual revenue (largest first). Total "
        f"pipeline: {total / 1000:,.0f}K.",
        "",
        "| Rank | Customer | Current plan (CRM) | Current ARR | Opportunity | Email | Est. additional "
        "revenue |",
        "|---|---|---|---|---|---|---|",
    ]
    for i, o in enumerate(ranked, 1):
        c = o["customer"]
        lines.append(
            f"| {i} | {c['name']} | {c['current_plan']} | {c['annual_revenue'] / 1000:,.0f}K | {o['type']} "
            f"| {o['mail']['subject']} | +{o['amount'] / 1000:,.0f}K |"
        )
    lines += ["", "## Opportunity Details (ranked order)"]
    for i, o in enumerate(ranked, 1):
        c = o["customer"]
        tag = " — largest opportunity" if i == 1 else ""
        lines += [
            "",
            f"### {i}. {c['name']}: {o['type']} (+{o['amount'] / 1000:,.0f}K){tag}",
            f"- Signal ({o['mail']['message_id']}): {o['mail']['body']}",
            f"- CRM: {c['current_plan']}; {c.get('notes', '')}",
            f"- Estimate: {o['basis']}.",
            f"- Next step: {o['next']}.",
        ]
    lines += [
        "",
        "## Summary",
        f"- Total opportunity: {total / 1000:,.0f}K ("
        + " + ".join(f"{o['customer']['name']} {o['amount'] / 1000:,.0f}K" for o in ranked)
        + ").",
        "- Assumptions to confirm with pricing: add-on module list price "
        f"{MODULE_PRICE / 1000:,.0f}K/year; branch sites at a {BRANCH_DISCOUNT:.0%} discount to the HQ "
        "enterprise fee. Other figures come from CRM contract values.",
    ]
    return "\n".join(lines)
