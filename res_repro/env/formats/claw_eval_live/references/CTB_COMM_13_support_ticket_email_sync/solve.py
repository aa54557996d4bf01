"""Check customer support emails against CRM tickets and open CRM tasks for untracked issues.

Each email sender is looked up in CRM (no match = not a customer, ignored). Resolution emails are matched
to a ticket by shared words; issue emails with no matching ticket need a new one (a mismatch when the
customer has other tickets). New tickets are created as CRM tasks with a priority read from the email.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

STOP = {
    "the",
    "a",
    "an",
    "and",
    "for",
    "with",
    "this",
    "that",
    "can",
    "you",
    "we",
    "our",
    "have",
    "has",
    "been",
    "time",
    "times",
    "today",
    "last",
    "need",
    "when",
    "who",
    "previous",
    "issue",
    "help",
    "thanks",
    "team",
}
RESOLVED = ("has been fixed", "been resolved", "thanks for fixing", "is fixed", "works now")


def words(text: str) -> set[str]:
    """Content-word stems (first five letters) of a text."""
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 2 and w not in STOP}


def priority(text: str) -> str:
    """High for urgent/crash/data loss, low when the customer says it is not urgent, else medium."""
    low = text.lower()
    if "not urgent" in low:
        return "low"
    if any(k in low for k in ("urgent", "crash", "lost", "down")):
        return "high"
    return "medium"


def check(mail: dict[str, Any], customer: dict[str, Any]) -> dict[str, Any]:
    """Compare one email with the customer's tickets and decide the sync action."""
    text = f"{mail['subject']} {mail['body']}"
    tickets = customer.get("open_tickets", []) or customer.get("support_tickets", [])
    related = [t for t in tickets if words(t["title"]) & words(text)]
    ticket_text = (
        "; ".join(f'{t["ticket_id"]} "{t["title"]}" ({t.get("status", "?")})' for t in tickets) or "none"
    )
    if any(k in text.lower() for k in RESOLVED):
        if related and all(t.get("status") == "resolved" for t in related):
            return {
                "finding": "Consistent: customer confirms the fix and the ticket is already resolved",
                "action": f"Close {related[0]['ticket_id']} / keep it closed; no new ticket",
                "create": False,
                "tickets": ticket_text,
            }
        return {
            "finding": "Customer confirms a fix; ticket still open",
            "create": False,
            "tickets": ticket_text,
            "action": "Close " + ", ".join(t["ticket_id"] for t in related) if related else "Record closure",
        }
    if related:
        return {
            "finding": "Consistent: the issue is already tracked",
            "create": False,
            "tickets": ticket_text,
            "action": f"Update {related[0]['ticket_id']} with the new email",
        }
    if tickets:
        return {
            "finding": "Mismatch: the email reports a different issue from the existing ticket(s); no ticket "
            "covers it",
            "create": True,
            "tickets": ticket_text,
            "action": "Create a new ticket (existing ticket stays open for its own issue)",
        }
    return {
        "finding": "No ticket in CRM for this issue",
        "create": True,
        "tickets": ticket_text,
        "action": "Create a new ticket",
    }


def solve(call: Callable[..., Any]) -> str:
    """Run the sync check, create the missing tickets as CRM tasks and return the report."""
    listing = call("gmail_list_messages", days_back=3650).get("messages", [])
    rows, ignored = [], []
    for item in listing:
        mail = call("gmail_get_message", message_id=item["message_id"])
        found = call("crm_search_customer", email=mail["from"]).get("customers", [])
        if not found:
            ignored.append(mail)
            continue
        customer = call("crm_get_customer", customer_id=found[0]["customer_id"])
        result = check(mail, customer)
        result.update(mail=mail, customer=customer, priority=priority(f"{mail['subject']} {mail['body']}"))
        if result["create"]:
            created = call(
                "crm_create_task",
                customer_id=customer["customer_id"],
                title=f"New ticket: {mail['subject']}",
                description=f"From {mail['from']} ({mail['message_id']}): {mail['body']} "
                f"Sync check: {result['finding']}.",
                priority=result["priority"],
            )
            result["task"] = created.get("task", {}).get("task_id", "created")
        rows.append(result)
    return report(rows, ignored)


def report(rows: list[dict[str, Any]], ignored: list[dict[str, Any]]) -> str:
    """Render the sync check report."""
    created = [r for r in rows if r.get("task")]
    lines = [
        "# Support Email vs CRM Ticket Sync Check",
        "",
        f"Customer support emails checked: {len(rows)}; non-customer emails ignored: {len(ignored)} "
        f"({', '.join(m['from'] for m in ignored) or 'none'}). New tickets created as CRM tasks: "
        f"{len(created)}.",
        "",
        "| Customer | Email issue | Existing CRM tickets | Finding | Action | Priority |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        c, m = r["customer"], r["mail"]
        action = r["action"] + (f" — created {r['task']}" if r.get("task") else "")
        lines.append(
            f"| {c['name']} ({c['customer_id']}) | {m['subject']}: {m['body']} | {r['tickets']} | "
            f"{r['finding']} | {action} | {r['priority'] if r['create'] else '-'} |"
        )
    lines += ["", "## Details"]
    for r in rows:
        c, m = r["customer"], r["mail"]
        lines.append(
            f"- {c['name']} ({m['message_id']}): {r['finding']}. {r['action']}"
            + (f"; {r['priority']} priority task {r['task']} created." if r.get("task") else ".")
        )
    high = [r for r in created if r["priority"] == "high"]
    lines += ["", "## Follow-up"]
    if high:
        lines.append(
            "- Handle first (high priority, urgent): "
            + ", ".join(f"{r['customer']['name']} — {r['mail']['subject']}" for r in high)
            + "."
        )
    lines.append(
        f"- {len(created)} new tickets created for issues missing from CRM; resolved issues confirmed by "
        "customers can be closed."
    )
    return "\n".join(lines)
