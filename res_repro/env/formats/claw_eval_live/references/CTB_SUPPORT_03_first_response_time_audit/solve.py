"""First response time audit: read every ticket, time the first support reply, and check the SLA.

The first response is the earliest comment not written by the reporter; its delay from ticket creation
is compared with the SLA parsed from the prompt (per priority). Per-agent averages and compliance rates
rank the agents (best: highest compliance, then fastest average; worst: the reverse).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime
from typing import Any

Call = Callable[..., Any]

DEFAULT_SLA = {"high": 30, "medium": 60}


def _sla_from_prompt(instruction: str) -> dict[str, int]:
    """Minutes allowed per priority, read from lines like '- High priority tickets: first response <= 30 "
    "minutes'."""
    sla = dict(DEFAULT_SLA)
    for prio, amount, unit in re.findall(
        r"(\w+) priority tickets: first response <= (\d+) (minutes?|hours?)", instruction
    ):
        sla[prio.lower()] = int(amount) * (60 if unit.startswith("hour") else 1)
    return sla


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _first_response(ticket: dict[str, Any]) -> tuple[float | None, str]:
    """(minutes to the first support reply, responder), or (None, '') when nobody replied."""
    reporter = ticket.get("reporter", "")
    replies = sorted(
        (c for c in ticket.get("comments") or [] if c.get("author") and c.get("author") != reporter),
        key=lambda c: c["created_at"],
    )
    if not replies:
        return None, ""
    delta = _ts(replies[0]["created_at"]) - _ts(ticket["created_at"])
    return delta.total_seconds() / 60, replies[0]["author"]


def _agent(address: str) -> str:
    return address.split("@")[0]


def _fmt(minutes: float) -> str:
    return f"{minutes:.0f} min" + (f" ({minutes / 60:.1f} h)" if minutes >= 60 else "")


def solve(call: Call, instruction: str) -> str:
    """Compute each ticket's first response time, SLA result, agent statistics and the team rate."""
    sla = _sla_from_prompt(instruction)
    listed = call("helpdesk_list_tickets", status="all").get("tickets", [])
    tickets = [call("helpdesk_get_ticket", ticket_id=t["ticket_id"]) for t in listed]

    rows = []
    for t in tickets:
        minutes, responder = _first_response(t)
        limit = sla.get(t.get("priority", ""), sla["medium"])
        met = minutes is not None and minutes <= limit
        agent = _agent(responder or t.get("assignee", ""))
        rows.append({"ticket": t, "minutes": minutes, "limit": limit, "met": met, "agent": agent})

    per_agent: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        per_agent[r["agent"]].append(r)
    stats = []
    for agent, items in per_agent.items():
        times = [r["minutes"] for r in items if r["minutes"] is not None]
        rate = sum(r["met"] for r in items) / len(items)
        stats.append(
            {
                "agent": agent,
                "n": len(items),
                "avg": sum(times) / len(times) if times else 0.0,
                "rate": rate,
                "met": sum(r["met"] for r in items),
            }
        )
    best = max(stats, key=lambda s: (s["rate"], -s["avg"]))
    worst = min(stats, key=lambda s: (s["rate"], -s["avg"]))
    compliant = sum(r["met"] for r in rows)
    breaches = len(rows) - compliant

    lines = ["# First Response Time Audit", ""]
    lines.append(
        f"SLA: high priority <= {sla['high']} min, medium priority <= {sla['medium']} min. Best performer: "
        f"{best['agent']} with {best['rate']:.0%} SLA compliance (average {_fmt(best['avg'])}). Worst "
        f"performer: {worst['agent']} with {worst['rate']:.0%} compliance (average {_fmt(worst['avg'])})."
    )
    lines += [
        "",
        "## Per-ticket first response",
        "",
        "| Ticket | Priority | Agent | First response | SLA | Result |",
    ]
    lines.append("|---|---|---|---|---|---|")
    for r in rows:
        t = r["ticket"]
        frt = _fmt(r["minutes"]) if r["minutes"] is not None else "no reply"
        result = "PASS" if r["met"] else "BREACH"
        lines.append(
            f"| {t['ticket_id']} | {t.get('priority')} | {r['agent']} | {frt} | <= {r['limit']} min | "
            f"{result} |"
        )

    lines += [
        "",
        "## By agent",
        "",
        "| Agent | Tickets | Average first response | SLA met | Compliance rate |",
    ]
    lines.append("|---|---|---|---|---|")
    for s in sorted(stats, key=lambda s: (-s["rate"], s["avg"])):
        lines.append(
            f"| {s['agent']} | {s['n']} | {_fmt(s['avg'])} | {s['met']}/{s['n']} | {s['rate']:.0%} |"
        )

    lines += ["", "## Overall"]
    lines.append(f"- Total tickets: {len(rows)}")
    lines.append(f"- SLA compliant: {compliant}")
    lines.append(f"- SLA breach: {breaches}")
    lines.append(f"- Team SLA compliance rate: {compliant / len(rows):.0%}")
    high = [r for r in rows if r["ticket"].get("priority") == "high"]
    if high:
        lines.append(
            f"- High priority: {sum(r['met'] for r in high)}/{len(high)} met; every breach is a "
            "high-priority ticket"
            if all(r["met"] for r in rows if r["ticket"].get("priority") != "high")
            else f"- High priority: {sum(r['met'] for r in high)}/{len(high)} met"
        )

    lines += ["", "## Best and worst performers"]
    lines.append(f"- Best: {best['agent']} - {best['rate']:.0%} compliance, average {_fmt(best['avg'])}.")
    lagging = [s for s in stats if s["rate"] < 1 and s["agent"] != best["agent"]]
    for s in sorted(lagging, key=lambda s: (s["rate"], -s["avg"])):
        tag = "Worst" if s is worst else "Also below SLA"
        lines.append(f"- {tag}: {s['agent']} - {s['rate']:.0%} compliance, average {_fmt(s['avg'])}.")

    lines += ["", "## Recommendations"]
    names = ", ".join(s["agent"] for s in lagging)
    lines.append(f"1. Coaching and SLA training for {names}; review their queue load and working hours.")
    lines.append(
        "2. Auto-acknowledge and alert: page the on-call agent when a high-priority ticket has no reply "
        f"after {sla['high'] * 2 // 3} minutes, and escalate to a lead at {sla['high']} minutes."
    )
    lines.append(
        f"3. Share {best['agent']}'s practice (acknowledge within minutes, then investigate) as the team "
        "standard."
    )
    lines.append("4. Track first response time weekly per agent to confirm the improvement.")
    return "\n".join(lines)
