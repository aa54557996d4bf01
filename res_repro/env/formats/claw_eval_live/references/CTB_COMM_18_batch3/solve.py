"""Verify complaint handling: match customer complaint emails with support replies and CRM complaint records.

Complaints are emails from CRM customers; a support email whose subject replies to one counts as handled
(resolved when it reports a fix). Each complaint's state is compared with the complaint note in CRM, and
pending complaints are ranked by a severity score (tier, business impact, stated urgency).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

FIX_WORDS = ("restored", "fixed", "resolved")
IMPACT = {
    "lost": 2,
    "seriously": 1,
    "impacting operations": 1,
    "too low": 1,
    "need at least": 1,
    "incorrect": 1,
    "do not match": 1,
}


def crm_state(customer: dict[str, Any]) -> str:
    """The complaint status written in the CRM notes ('none' when there is no record)."""
    notes = customer.get("notes", "")
    if "no complaint" in notes.lower():
        return "none"
    found = re.search(r"Status:\s*([^,.;]+)", notes)
    return found.group(1).strip() if found else notes or "none"


def severity(customer: dict[str, Any], mail: dict[str, Any]) -> tuple[int, list[str]]:
    """Severity points and the reasons behind them."""
    text = f"{mail['subject']} {mail['body']}".lower()
    points, why = 0, []
    if customer.get("tier") == "VIP":
        points, why = points + 2, ["VIP customer"]
    for phrase, weight in IMPACT.items():
        if phrase in text:
            points += weight
            why.append(f"'{phrase}'")
    if "not urgent" in text:
        points -= 1
        why.append("customer says not urgent")
    return points, why


def solve(call: Callable[..., Any]) -> str:
    """Compare complaint emails, replies and CRM records and return the verification report."""
    listing = call("gmail_list_messages", days_back=3650).get("messages", [])
    mails = [call("gmail_get_message", message_id=m["message_id"]) for m in listing]
    customers = {c["contact_email"].lower(): c for c in call("crm_list_customers").get("customers", [])}
    rows = []
    for mail in mails:
        sender = mail["from"].lower()
        if sender not in customers:
            continue
        customer = call("crm_get_customer", customer_id=customers[sender]["customer_id"])
        replies = [
            m
            for m in mails
            if sender in [t.lower() for t in m.get("to", [])]
            and m["subject"].lower().startswith("re:")
            and mail["subject"].lower() in m["subject"].lower()
        ]
        fixed = any(any(w in r["body"].lower() for w in FIX_WORDS) for r in replies)
        state = (
            "resolved (fix reported, awaiting customer confirmation)"
            if fixed
            else ("replied, not resolved" if replies else "unhandled (no reply)")
        )
        record = crm_state(customer)
        if fixed and "resolved" not in record.lower():
            gap, action = (
                f"CRM still shows '{record}'",
                "Update the CRM complaint status to resolved once the customer confirms; log the reply",
            )
        elif not replies and record == "none":
            gap, action = "No complaint record in CRM", "Create a complaint record in CRM and assign an owner"
        elif not replies:
            gap, action = (
                f"CRM shows '{record}' but no reply was sent",
                "Reply to the customer and update CRM",
            )
        else:
            gap, action = "None", "No change needed"
        points, why = severity(customer, mail)
        rows.append(
            {
                "customer": customer,
                "mail": mail,
                "replies": replies,
                "state": state,
                "record": record,
                "gap": gap,
                "action": action,
                "points": points,
                "why": why,
                "pending": not replies,
            }
        )
    return report(rows)


def report(rows: list[dict[str, Any]]) -> str:
    """Render the verification report."""
    pending = sorted((r for r in rows if r["pending"]), key=lambda r: -r["points"])
    lines = ["# Complaint Handling Verification Report", ""]
    lines += [
        "| Customer | Complaint (email) | Reply | Handling status | CRM record | Discrepancy | Next step |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        c, m = r["customer"], r["mail"]
        reply = "; ".join(f"{x['message_id']}: {x['body']}" for x in r["replies"]) or "none"
        lines.append(
            f"| {c['name']} ({c.get('tier')}) | {m['subject']} — {m['body']} | {reply} | {r['state']} | "
            f"{r['record']} | {r['gap']} | {r['action']} |"
        )
    lines += [
        "",
        f"Summary: {len(rows)} complaints checked; {sum(1 for r in rows if r['replies'])} replied "
        f"({sum(1 for r in rows if 'resolved' in r['state'])} resolved); {len(pending)} unhandled; "
        f"{sum(1 for r in rows if r['gap'] != 'None')} discrepancies between email and CRM.",
        "",
        "## Pending Items by Severity (priority order)",
        "",
        "Severity score: VIP tier +2, business impact in the email +1/+2 per signal, 'not urgent' -1.",
        "",
    ]
    for i, r in enumerate(pending, 1):
        c, m = r["customer"], r["mail"]
        lines.append(
            f"{i}. {c['name']} — {m['subject']} (score {r['points']}: {', '.join(r['why'])}). {r['action']}."
        )
    lines += ["", "## Recommendations"]
    if pending:
        top = pending[0]
        lines.append(
            f"- Priority handling for {top['customer']['name']}: reply today, open a CRM complaint record "
            f'and give a plan for "{top["mail"]["subject"]}".'
        )
        for r in pending[1:]:
            lines.append(
                f"- {r['customer']['name']}: acknowledge within one business day, create the CRM record, "
                "and schedule the fix."
            )
    for r in rows:
        if "resolved" in r["state"]:
            lines.append(
                f"- {r['customer']['name']}: ask the customer to confirm the fix, then update the CRM "
                "status to resolved and close the complaint."
            )
    lines.append(
        "- Process: log every complaint in CRM when it arrives and update the status when support "
        "replies, so email and CRM stay in sync."
    )
    return "\n".join(lines)
