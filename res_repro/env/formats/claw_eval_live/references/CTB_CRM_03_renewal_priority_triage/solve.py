"""Renewal priority triage: CRM contract data plus customer emails give a weighted priority score.

Score (0-100) = urgency 40 (days after the first expiry, over 90 days) + value 20 (revenue x tier weight,
relative to the largest) + risk 25 (low health score, churn signals in email) + requirements 15 (concrete
renewal conditions or a meeting/add-on request). Customers are ranked P0..Pn with a strategy each.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

TIER_WEIGHT = {"VIP": 1.5, "standard": 1.0}
CHURN = ("reconsider", "not been fixed", "still", "cancel", "complain", "dissatisf")
POSITIVE = ("plan to renew", "add the", "upgrade", "expand")


def email_signals(mails: list[dict[str, Any]]) -> dict[str, Any]:
    """Conditions, churn signals and positive intent found in a customer's emails."""
    text = " ".join(f"{m['subject']} {m['body']}" for m in mails)
    low = text.lower()
    conditions = [c.strip() for m in mails for c in re.findall(r"^\s*\d+\.\s*(.+)$", m["body"], re.M)]
    return {
        "conditions": conditions,
        "churn": [k for k in CHURN if k in low],
        "positive": [k for k in POSITIVE if k in low],
        "meeting": "meeting" in low,
        "text": " / ".join(m["body"].split("\n\n")[0].replace("\n", " ") for m in mails),
    }


def score(c: dict[str, Any], first_end: date, top_value: float) -> dict[str, float]:
    """Component scores for one customer."""
    days_after = (date.fromisoformat(c["contract_end"]) - first_end).days
    value = c["annual_revenue"] * TIER_WEIGHT.get(c["tier"], 1.0)
    sig = c["signals"]
    urgency = 40 * max(0.0, 1 - days_after / 90)
    worth = 20 * value / top_value
    risk = 10 * (100 - c["health_score"]) / 100 + (15 if sig["churn"] else 0)
    needs = 15 if len(sig["conditions"]) >= 2 else 8 if (sig["meeting"] or sig["positive"]) else 0
    return {
        "urgency": urgency,
        "value": worth,
        "risk": risk,
        "needs": needs,
        "total": urgency + worth + risk + needs,
        "weighted_value": value,
    }


def risk_label(c: dict[str, Any]) -> str:
    """Plain-language renewal risk."""
    sig = c["signals"]
    if sig["churn"]:
        return "High — complaint unresolved, customer reconsidering renewal (churn risk)"
    if c["health_score"] < 50:
        return f"High — health score {c['health_score']}, low renewal likelihood"
    if sig["conditions"]:
        return "Medium — renewal depends on meeting the customer's conditions"
    if sig["positive"]:
        return "Low — positive renewal intent"
    return "Low — stable account, no open issues in email"


def strategy(c: dict[str, Any]) -> str:
    """Renewal strategy built from the customer's situation."""
    sig = c["signals"]
    if sig["conditions"]:
        items = "; ".join(sig["conditions"])
        return (
            f"Answer the {len(sig['conditions'])} renewal conditions this week ({items}): get a decision "
            "from the owning team on each (product, operations/SLA, pricing), then send a written "
            "proposal well before expiry."
        )
    if sig["churn"]:
        return (
            "Resolve the complaint first (escalate the unresolved report issue with a fix date), then run "
            "a retention call with a service credit or discount offer to retain the account."
        )
    if sig["positive"]:
        addon = re.search(r"add the ([\w -]+?)[.,]", sig["text"])
        extra = f" ({addon.group(1)})" if addon else ""
        return (
            "Capitalize on the positive intent: schedule the requested meeting and prepare the renewal "
            f"plus add-on{extra} upsell proposal."
        )
    if c["health_score"] < 50:
        return (
            "Low-touch: send the standard renewal offer, check usage and decide whether a discount is "
            "worth it given the low health score; handle last."
        )
    return "Standard renewal: start the process about 30 days before expiry and keep the relationship warm."


def solve(call: Callable[..., Any]) -> str:
    """Rank the renewals and return the priority report."""
    ids = [c["customer_id"] for c in call("crm_list_customers").get("customers", [])]
    customers = [call("crm_get_customer", customer_id=i) for i in ids]
    listing = call("gmail_list_messages", days_back=3650).get("messages", [])
    by_sender: dict[str, list[dict[str, Any]]] = {}
    emails = {c["contact_email"].lower() for c in customers}
    for m in listing:
        if m["from"].lower() in emails:
            by_sender.setdefault(m["from"].lower(), []).append(
                call("gmail_get_message", message_id=m["message_id"])
            )
    for c in customers:
        c["mails"] = by_sender.get(c["contact_email"].lower(), [])
        c["signals"] = email_signals(c["mails"])
    first_end = min(date.fromisoformat(c["contract_end"]) for c in customers)
    top = max(c["annual_revenue"] * TIER_WEIGHT.get(c["tier"], 1.0) for c in customers)
    for c in customers:
        c["score"] = score(c, first_end, top)
    ranked = sorted(customers, key=lambda c: -c["score"]["total"])
    return report(ranked)


def report(ranked: list[dict[str, Any]]) -> str:
    """Render the priority ranking report."""
    total = sum(c["annual_revenue"] for c in ranked)
    ends = sorted(c["contract_end"] for c in ranked)
    lines = [
        "# Contract Renewal Priority Report",
        "",
        "Method: priority score out of 100 = urgency 40 (expiry date) + customer value 20 (annual "
        "revenue x tier weight, VIP 1.5 / standard 1.0) + health risk 25 (health score, complaints/churn "
        "signals in email) + specific requirements 15 (concrete renewal conditions or meeting requests "
        "in email).",
        "",
        "## Priority Ranking",
        "",
        "| Priority | Customer | Contract end | Tier | Annual revenue | Health | Score | Email signal |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, c in enumerate(ranked):
        s = c["score"]
        lines.append(
            f"| P{i} | {c['name']} | {c['contract_end']} | {c['tier']} | "
            f"{c['annual_revenue'] / 1000:,.0f}K | {c['health_score']} | {s['total']:.1f} | "
            f"{c['signals']['text'] or 'no recent email'} |"
        )
    lines += ["", "## Rationale, Risk and Strategy per Customer"]
    labels = {0: "most urgent — first", 1: "high", 2: "medium"}
    for i, c in enumerate(ranked):
        s = c["score"]
        label = labels.get(i, "lowest — handle last" if i == len(ranked) - 1 else "lower")
        lines += [
            "",
            f"### P{i} ({label}): {c['name']} ({c['customer_id']})",
            f"- Rationale: expires {c['contract_end']} (urgency {s['urgency']:.1f}/40); value "
            f"{c['annual_revenue'] / 1000:,.0f}K x {TIER_WEIGHT.get(c['tier'], 1.0)} "
            f"({s['value']:.1f}/20); risk {s['risk']:.1f}/25; requirements {s['needs']:.0f}/15.",
            f"- Risk assessment: {risk_label(c)}. CRM note: {c.get('notes', '')}",
            f"- Strategy: {strategy(c)}",
        ]
    lines += ["", "## Action Plan (in priority order)"]
    for i, c in enumerate(ranked):
        lines.append(f"{i + 1}. P{i} {c['name']} — by {c['contract_end']}: {strategy(c)}")
    vip = sum(c["annual_revenue"] for c in ranked if c["tier"] == "VIP")
    at_risk = sum(c["annual_revenue"] for c in ranked if c["signals"]["churn"] or c["health_score"] < 50)
    lines += [
        "",
        "## Expiring Revenue",
        f"- Total expiring annual revenue: {total / 1000:,.0f}K ({total:,}) across {len(ranked)} "
        f"contracts ending {ends[0]} to {ends[-1]}.",
        f"- VIP share: {vip / 1000:,.0f}K; at-risk (churn signal or health < 50): {at_risk / 1000:,.0f}K.",
    ]
    return "\n".join(lines)
