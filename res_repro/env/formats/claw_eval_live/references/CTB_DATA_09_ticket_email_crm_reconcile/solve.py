"""Reconcile customer support emails against helpdesk tickets and CRM records.

Reads every ticket (with its customer email), every recent email and the CRM customer list; matches
emails to tickets by sender address and quoted ticket ids, detects new issues, resolution notices and
unknown senders with keyword rules, and flags open tickets of VIP customers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

CLOSED_STATUSES = {"resolved", "closed"}
RESOLVED_MARKERS = ("self-resolved", "resolved it", "can be closed", "issue is resolved", "no longer")
NEW_ISSUE_MARKERS = ("new issue", "in addition", "also broken", "another issue")
INTERNAL_DOMAIN = "our-company.com"


class Finding:
    """The comparison of one customer email with the helpdesk and CRM."""

    def __init__(
        self, message: dict[str, Any], customer: dict[str, Any] | None, tickets: list[dict[str, Any]]
    ) -> None:
        self.message, self.customer, self.tickets = message, customer, tickets
        self.notes: list[str] = []
        self.new_ticket: str | None = None
        self.close_ticket: str | None = None


def _sentences(text: str) -> list[str]:
    """Split an email body into sentences."""
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def _new_issue(body: str) -> str | None:
    """The sentence describing an additional issue, when the email reports one."""
    lowered = body.lower()
    if not any(marker in lowered for marker in NEW_ISSUE_MARKERS):
        return None
    for sentence in _sentences(body):
        if re.search(r"\balso\b|found today|new issue", sentence, re.IGNORECASE):
            return sentence
    return None


def _company_from_address(address: str) -> str:
    """A readable company name from the sender's domain (for senders missing from CRM)."""
    domain = address.split("@")[-1].split(".")[0]
    return " ".join(part.capitalize() for part in domain.split("-"))


def _load_tickets(call: Call) -> list[dict[str, Any]]:
    """Every ticket in any status, with full details (customer email)."""
    listed = call("helpdesk_list_tickets", status="all")["tickets"]
    return [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in listed]


def _compare(
    message: dict[str, Any], customer: dict[str, Any] | None, tickets: list[dict[str, Any]]
) -> Finding:
    """Apply the reconciliation rules to one customer email."""
    body = str(message.get("body", ""))
    quoted = set(re.findall(r"TK-\d+", body))
    own = [t for t in tickets if t.get("customer_email") == message["from"] or t["ticket_id"] in quoted]
    finding = Finding(message, customer, own)
    lowered = body.lower()
    if customer is None:
        finding.notes.append("sender not in CRM (unknown customer, no record)")
    resolved = any(marker in lowered for marker in RESOLVED_MARKERS)
    for ticket in own:
        if resolved and ticket["status"] not in CLOSED_STATUSES:
            finding.close_ticket = ticket["ticket_id"]
            finding.notes.append(
                f"email says the issue is resolved but {ticket['ticket_id']} is still {ticket['status']}"
            )
    issue = _new_issue(body)
    if issue:
        finding.new_ticket = issue
        finding.notes.append("email reports a new issue with no matching ticket")
    elif not own and not resolved:
        finding.new_ticket = str(message.get("subject", ""))
        finding.notes.append("complaint with no ticket in the helpdesk")
    if not finding.notes:
        finding.notes.append("consistent with the existing ticket")
    return finding


def _customer_label(finding: Finding) -> str:
    """Customer name from CRM, or one derived from the sender address."""
    if finding.customer:
        return str(finding.customer["name"])
    return f"{_company_from_address(finding.message['from'])} (not in CRM)"


def solve(call: Call) -> str:
    """Cross-check emails, tickets and CRM, and return the reconciliation report."""
    tickets = _load_tickets(call)
    customers = call("crm_list_customers")["customers"]
    by_email = {str(c.get("contact_email", "")).lower(): c for c in customers}
    listed = call("gmail_list_messages", days_back=30)["messages"]
    messages = [call("gmail_get_message", message_id=m["message_id"]) for m in listed]
    external = [m for m in messages if not str(m.get("from", "")).endswith("@" + INTERNAL_DOMAIN)]

    findings = []
    for message in external:
        sender = str(message["from"]).lower()
        customer = by_email.get(sender)
        if customer is None:
            hits = call("crm_search_customer", email=sender).get("customers", [])
            customer = hits[0] if hits else None
        findings.append(_compare(message, customer, tickets))

    lines = [
        "# Ticket / Email / CRM Reconciliation",
        "",
        "## Email vs ticket comparison",
        "",
        "| Email | Customer (CRM tier) | Related ticket (status) | Finding |",
        "|---|---|---|---|",
    ]
    for f in findings:
        name = f.customer["name"] if f.customer else _company_from_address(f.message["from"])
        tier = f.customer["tier"] if f.customer else "not in CRM"
        related = ", ".join(f"{t['ticket_id']} ({t['status']})" for t in f.tickets) or "no ticket"
        lines.append(
            f"| {f.message['message_id']}: {f.message['subject']} | {name} ({tier}) | "
            f"{related} | {'; '.join(f.notes)} |"
        )
    skipped = [m["message_id"] for m in messages if m not in external]
    if skipped:
        lines.append(f"\nInternal emails ignored: {', '.join(skipped)}.")

    lines += ["", "## New tickets to create", ""]
    for f in findings:
        if f.new_ticket:
            tier = f.customer["tier"] if f.customer else "unknown"
            priority = "high" if tier == "VIP" or f.customer is None else "medium"
            lines.append(
                f"- {_customer_label(f)} ({f.message['from']}, {f.message['message_id']}): create a new "
                f"ticket, priority {priority}. Issue: {f.new_ticket}"
            )
            if f.customer is None:
                lines.append(
                    f"  - The sender does not exist in CRM: create a CRM record for "
                    f"{_company_from_address(f.message['from'])} and confirm the account."
                )

    lines += ["", "## Existing tickets to close / update", ""]
    for f in findings:
        if f.close_ticket:
            lines.append(
                f"- {f.close_ticket} ({_customer_label(f)}): customer confirmed the issue is resolved; "
                "close the ticket and update status with the workaround from the email."
            )
    for f in findings:
        if f.new_ticket and f.tickets and f.customer:
            ids = ", ".join(t["ticket_id"] for t in f.tickets)
            lines.append(
                f"- {ids} ({_customer_label(f)}): add a note linking the new report from "
                f"{f.message['message_id']}."
            )

    lines += ["", "## VIP priority alerts (unresolved tickets)", ""]
    for ticket in tickets:
        customer = by_email.get(str(ticket.get("customer_email", "")).lower())
        if customer and customer["tier"] == "VIP" and ticket["status"] not in CLOSED_STATUSES:
            lines.append(
                f"- VIP {customer['name']}: {ticket['ticket_id']} '{ticket['title']}' is "
                f"{ticket['status']} (priority {ticket['priority']}); escalate as urgent and give the "
                "customer a status update."
            )
    for f in findings:
        if f.new_ticket and f.customer and f.customer["tier"] == "VIP":
            lines.append(
                f"- VIP {f.customer['name']}: the new issue from {f.message['message_id']} has no ticket "
                "yet; log it with high priority."
            )
    return "\n".join(lines)
