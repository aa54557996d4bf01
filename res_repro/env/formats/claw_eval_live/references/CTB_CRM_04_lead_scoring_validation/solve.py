"""Validate CRM lead scores against the leads' email activity.

Each lead's emails (matched by contact address) are scanned for intent signals: opt-out/decline,
urgency + budget + timeline, quote and demo requests over several interactions, or a general inquiry.
The scoring rubric from the request gives a recommended score, compared with the CRM lead_score.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any


def signals(mails: list[dict[str, Any]]) -> dict[str, Any]:
    """Intent signals in a lead's emails."""
    text = " ".join(f"{m['subject']} {m['body']}" for m in mails)
    low = text.lower()
    budget = re.search(r"budget is (\$[\d,.]+[KkMm]?)", text, re.I)
    timeline = re.search(r"within (\d+ (?:days?|weeks?|months?))", low)
    return {
        "count": len(mails),
        "optout": any(k in low for k in ("unsubscribe", "remove me", "not interested", "decline")),
        "urgent": "urgent" in low or "asap" in low,
        "budget": budget.group(1) if budget else ("stated" if "budget" in low else None),
        "timeline": timeline.group(1) if timeline else None,
        "quote": "quote" in low,
        "demo": "demo" in low,
    }


def assess(sig: dict[str, Any]) -> tuple[int, str, str]:
    """Recommended score, intent tier and evidence, following the requested rubric."""
    if sig["count"] == 0:
        return 30, "No email activity", "no emails found"
    if sig["optout"]:
        return 0, "Invalid (opted out)", "asked to be removed / unsubscribed"
    if sig["urgent"] and sig["budget"] and sig["timeline"]:
        return 95, "Highest intent", f"urgent need, budget {sig['budget']}, timeline {sig['timeline']}"
    if sig["count"] >= 2 and sig["quote"] and sig["demo"]:
        return 85, "High intent", f"{sig['count']} interactions, quote requested, demo requested"
    return (
        30,
        "Low intent (general inquiry)",
        f"{sig['count']} general inquiry email(s), no quote/demo/budget",
    )


def direction(crm: int, recommended: int) -> str:
    """Adjustment direction for the CRM score."""
    if recommended == 0:
        return "Mark invalid / disqualify (set to 0)"
    if recommended > crm:
        return "Underscored — raise"
    if recommended < crm:
        return "Overscored — lower"
    return "Consistent"


def follow_up(tier: str) -> str:
    """Operational next step for sales."""
    if tier.startswith("Highest"):
        return "Top priority: senior rep calls today; send enterprise proposal and implementation plan"
    if tier.startswith("High"):
        return "Run the scheduled demo and follow up on the quote toward a close next month"
    if tier.startswith("Invalid"):
        return "Remove from campaigns, honour the opt-out, close the lead"
    return "Move to nurture: send feature overview, re-score on new engagement"


def solve(call: Callable[..., Any]) -> str:
    """Compare CRM lead scores with email-based assessment and return the validation report."""
    leads = [
        call("crm_get_customer", customer_id=c["customer_id"])
        for c in call("crm_list_customers").get("customers", [])
    ]
    listing = call("gmail_list_messages", days_back=3650).get("messages", [])
    addresses = {lead["contact_email"].lower() for lead in leads}
    mails: dict[str, list[dict[str, Any]]] = {}
    for m in listing:
        if m["from"].lower() in addresses:
            mails.setdefault(m["from"].lower(), []).append(
                call("gmail_get_message", message_id=m["message_id"])
            )
    rows = []
    for lead in leads:
        own = mails.get(lead["contact_email"].lower(), [])
        rec, tier, evidence = assess(signals(own))
        crm = int(lead.get("lead_score", 0))
        rows.append(
            {
                "lead": lead,
                "crm": crm,
                "rec": rec,
                "tier": tier,
                "evidence": evidence,
                "gap": rec - crm,
                "dir": direction(crm, rec),
                "mails": own,
            }
        )
    return report(rows)


def report(rows: list[dict[str, Any]]) -> str:
    """Render the validation report."""
    lines = [
        "# Lead Score Validation Report (CRM vs email activity)",
        "",
        "Rubric: multiple interactions + quote + demo = 80+ (85 used); urgent need + clear budget + "
        "tight timeline = 90+ (95 used); general inquiry = 30; unsubscribe/decline = 0 (invalid).",
        "",
        "| Lead | Name | CRM score | Recommended | Discrepancy | Adjustment | Evidence |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lead = r["lead"]
        lines.append(
            f"| {lead['customer_id']} | {lead['name']} | {r['crm']} | {r['rec']} | {r['gap']:+d} | "
            f"{r['dir']} | {r['evidence']} |"
        )
    lines += ["", "## Per-Lead Comparison"]
    for r in rows:
        lead = r["lead"]
        subjects = "; ".join(f'"{m["subject"]}"' for m in r["mails"]) or "none"
        lines += [
            "",
            f"### {lead['name']} ({lead['customer_id']}) — {r['tier']}",
            f"- CRM score {r['crm']} vs recommended {r['rec']} ({r['gap']:+d}): {r['dir']}.",
            f"- Emails: {subjects}. Evidence: {r['evidence']}.",
            f"- Follow-up: {follow_up(r['tier'])}.",
        ]
    top = max(rows, key=lambda r: r["rec"])
    lines += [
        "",
        "## Summary and Recommendations",
        f"- {sum(1 for r in rows if r['gap'] != 0)} of {len(rows)} CRM scores disagree with actual intent.",
        f"- Highest priority lead: {top['lead']['name']} ({top['lead']['customer_id']}) — {top['evidence']}.",
    ]
    for r in rows:
        if r["gap"] != 0:
            lines.append(
                f"- Adjust {r['lead']['customer_id']} {r['lead']['name']}: {r['crm']} → {r['rec']} "
                f"({r['dir'].lower()})."
            )
    lines.append(
        "- Process: re-score leads from engagement signals (quote/demo requests, budget, timeline, "
        "opt-outs) rather than the initial manual rating."
    )
    return "\n".join(lines)
