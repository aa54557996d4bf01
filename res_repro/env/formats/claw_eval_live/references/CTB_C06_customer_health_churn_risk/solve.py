"""VIP customer health check: CRM records plus the last 30 days of mail give a churn-risk level per customer.

Each VIP gets points for negative emails, open tickets by priority, days to renewal and days since last
contact (as of the latest activity date in CRM); the point total maps to High/Medium/Low. High-risk
customers get an intervention plan and an urgent CRM follow-up task.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

NEGATIVE = {
    "dissatisf": "dissatisfaction",
    "complain": "complaint",
    "alternative vendor": "alternative vendor",
    "cancel": "cancellation",
    "hesitant": "hesitant to renew",
    "unresolved": "unresolved issue",
    "not been resolved": "unresolved issue",
    "urgent": "urgency",
    "concern": "concern",
    "cannot be delayed": "deadline pressure",
}
POSITIVE = ("smoothly", "satisfied", "expanding", "expand")
TICKET_POINTS = {"high": 2, "medium": 1, "low": 0}


def day(text: str) -> date:
    """Parse the date part of an ISO date or timestamp."""
    return date.fromisoformat(text[:10])


def renewal_points(days: int) -> int:
    """Closer renewals weigh more: <=30 days 3, <=60 days 2, <=120 days 1."""
    return 3 if days <= 30 else 2 if days <= 60 else 1 if days <= 120 else 0


def contact_points(days: int) -> int:
    """Silence weighs: over 60 days 2, over 30 days 1."""
    return 2 if days > 60 else 1 if days > 30 else 0


def level(points: int) -> str:
    """Point total to risk level."""
    return "High" if points >= 7 else "Medium" if points >= 3 else "Low"


def assess(customer: dict[str, Any], mails: list[dict[str, Any]], as_of: date) -> dict[str, Any]:
    """Score one customer on the four health dimensions."""
    negatives = []
    for m in mails:
        text = f"{m['subject']} {m['body']}".lower()
        hits = sorted({label for stem, label in NEGATIVE.items() if stem in text})
        if hits:
            negatives.append((m, hits))
    positives = [m for m in mails if any(k in f"{m['subject']} {m['body']}".lower() for k in POSITIVE)]
    open_tickets = [t for t in customer.get("support_tickets", []) if t.get("status") != "resolved"]
    to_renewal = (day(customer["renewal_date"]) - as_of).days
    since_contact = (as_of - day(customer["last_contact_date"])).days
    points = (
        2 * min(len(negatives), 2)
        + sum(TICKET_POINTS.get(t.get("priority", "low"), 0) for t in open_tickets)
        + renewal_points(to_renewal)
        + contact_points(since_contact)
    )
    return {
        "customer": customer,
        "mails": mails,
        "negatives": negatives,
        "positives": positives,
        "open": open_tickets,
        "to_renewal": to_renewal,
        "since_contact": since_contact,
        "points": points,
        "level": level(points),
    }


def plan(a: dict[str, Any]) -> list[str]:
    """Intervention steps for a high-risk customer, built from its tickets and complaints."""
    c = a["customer"]
    steps = [
        f"Within 24 hours: executive outreach by the account director to {c['contact_person']} "
        f"({c.get('contact_title', 'main contact')}) to acknowledge the issues and agree a recovery plan."
    ]
    for t in sorted(a["open"], key=lambda t: -TICKET_POINTS.get(t["priority"], 0)):
        if t["priority"] in ("high", "medium"):
            steps.append(
                f"Escalate {t['ticket_id']} ({t['title']}, {t['priority']} priority) to engineering with a "
                "named owner and a committed fix date; share daily status until resolved."
            )
    hits = {h for _, hs in a["negatives"] for h in hs}
    if "alternative vendor" in hits or "dissatisfaction" in hits:
        steps.append(
            "Assign a technical lead as the single point of contact and run a service-quality review with "
            "the customer; prepare a retention offer (service credits or extended support)."
        )
    if "hesitant to renew" in hits or "concern" in hits:
        steps.append(
            "Send a written resolution timeline for all open issues before opening the renewal "
            f"discussion; renewal is on {c['renewal_date']}."
        )
    steps.append(
        f"Hold a renewal-readiness check {max(a['to_renewal'] - 30, 7)} days from now and track weekly "
        "until the account is stable."
    )
    return steps


def solve(call: Callable[..., Any]) -> str:
    """Assess every VIP customer, create urgent tasks for high-risk ones and return the report."""
    vips = call("crm_list_customers", tier="VIP").get("customers", [])
    customers = [call("crm_get_customer", customer_id=v["customer_id"]) for v in vips]
    listing = call("gmail_list_messages", days_back=30, max_results=100).get("messages", [])
    addresses = {c["contact_email"].lower(): c["customer_id"] for c in customers}
    mails: dict[str, list[dict[str, Any]]] = {c["customer_id"]: [] for c in customers}
    for m in listing:
        owner = addresses.get(str(m.get("from", "")).lower())
        if owner:
            mails[owner].append(call("gmail_get_message", message_id=m["message_id"]))
    activity = [c["last_contact_date"] for c in customers] + [
        t["created"] for c in customers for t in c.get("support_tickets", [])
    ]
    as_of = max(day(d) for d in activity)
    results = sorted(
        (assess(c, mails[c["customer_id"]], as_of) for c in customers), key=lambda a: -a["points"]
    )

    tasks = []
    for a in results:
        if a["level"] == "High":
            c = a["customer"]
            created = call(
                "crm_create_task",
                customer_id=c["customer_id"],
                title=f"URGENT churn-risk intervention: {c['name']}",
                description=" ".join(plan(a)),
                priority="high",
            )
            tasks.append((c, created.get("task", {}).get("task_id", "created")))
    return report(results, as_of, tasks)


def report(results: list[dict[str, Any]], as_of: date, tasks: list[tuple[dict[str, Any], str]]) -> str:
    """Render the customer health monitoring report."""
    lines = [
        "# VIP Customer Health Monitoring Report",
        "",
        f"As of {as_of.isoformat()} (latest activity in CRM). VIP customers reviewed: {len(results)}. "
        "Emails: inbox, last 30 days, matched to each customer's CRM contact address.",
        "",
        "Scoring: 2 points per negative email (max 2 emails); open tickets 2 (high) / 1 (medium); "
        "renewal within 30/60/120 days 3/2/1; last contact over 60/30 days 2/1. Total >= 7 High risk, "
        "3-6 Medium risk, 0-2 Low risk.",
        "",
        "## Risk Overview",
        "",
        "| Customer | Risk level | Points | Negative emails | Open tickets (high) | Days to renewal | "
        "Days since last contact |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in results:
        c = a["customer"]
        highs = sum(1 for t in a["open"] if t["priority"] == "high")
        lines.append(
            f"| {c['name']} | {a['level']} risk | {a['points']} | {len(a['negatives'])} of "
            f"{len(a['mails'])} | {len(a['open'])} ({highs}) | {a['to_renewal']} ({c['renewal_date']}) | "
            f"{a['since_contact']} |"
        )
    lines += ["", "## Customer Details"]
    for a in results:
        c = a["customer"]
        lines += ["", f"### {c['name']} ({c['customer_id']}) — {a['level']} risk"]
        if a["negatives"]:
            for m, hits in a["negatives"]:
                lines.append(
                    f'- Negative email {m["message_id"]} "{m["subject"]}": signals {", ".join(hits)}.'
                )
        for m in a["positives"]:
            if all(m is not n for n, _ in a["negatives"]):
                lines.append(
                    f'- Positive email {m["message_id"]} "{m["subject"]}": relationship reads healthy.'
                )
        if not a["mails"]:
            lines.append("- No email correspondence in the last 30 days.")
        if a["open"]:
            lines.append(
                "- Unresolved tickets: "
                + "; ".join(f"{t['ticket_id']} {t['title']} ({t['priority']})" for t in a["open"])
            )
        else:
            lines.append("- No unresolved tickets.")
        lines.append(
            f"- Renewal {c['renewal_date']} ({a['to_renewal']} days); last contact "
            f"{c['last_contact_date']} ({a['since_contact']} days ago)."
        )
        lines.append(f"- CRM note: {c.get('notes', '')}")
        if a["level"] == "High":
            lines.append("- Intervention plan:")
            lines += [f"  {i}. {s}" for i, s in enumerate(plan(a), 1)]
        elif a["level"] == "Medium":
            lines.append(
                "- Recommendation: proactive check-in call this week and a renewal conversation before "
                "the renewal date; confirm satisfaction and open needs."
            )
        else:
            lines.append("- Recommendation: keep the regular cadence; follow up on expansion interest.")
    lines += ["", "## CRM Follow-up Tasks Created"]
    lines += [
        f"- {tid}: urgent (high priority) follow-up for {c['name']} ({c['customer_id']})" for c, tid in tasks
    ]
    if not tasks:
        lines.append("- None (no high-risk customers).")
    return "\n".join(lines)
