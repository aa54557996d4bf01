"""Q2 budget allocation: Q1 actuals from the finance system, Q2 requests and CEO guidance from email.

Departments the CEO freezes keep their Q1 spend; the rest of the total budget is given to the other
departments in CEO priority order (each priority matched to the request that names it), fully funding
each until the money runs out, so the lowest priority absorbs any shortfall.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]

STOP = {"and", "the", "of", "line", "support", "investment", "level", "strategic", "growth"}


def money(text: str) -> int:
    """'1,800,000' -> 1800000."""
    return int(text.replace(",", ""))


def k(amount: float) -> str:
    """Amount as '850,000 CNY'."""
    return f"{amount:,.0f} CNY"


def short_dept(name: str) -> str:
    """'Human Resources' -> 'HR', 'Administration' kept."""
    return "HR" if name.lower() in ("human resources", "hr") else name


def read_mail(call: Call) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """(department -> request, CEO notice)."""
    listing = call("gmail_list_messages", days_back=3650, max_results=100).get("messages", [])
    requests: dict[str, dict[str, Any]] = {}
    ceo: dict[str, Any] = {}
    for item in listing:
        msg = call("gmail_get_message", message_id=item["message_id"])
        subject, body = str(msg.get("subject", "")), str(msg.get("body", ""))
        dept = re.search(r"Budget Request - (\w+)", subject)
        if dept:
            total = re.search(r"Total request: ([\d,]+) CNY", body)
            items = re.findall(r"- ([^:\n]+): ([\d,]+) CNY(?: \(([^)]*)\))?", body)
            rationale = re.search(r"Rationale: (.+?)\n\n", body, re.S)
            requests[dept.group(1)] = {
                "total": money(total.group(1)) if total else sum(money(a) for _, a, _ in items),
                "items": [(n.strip(), money(a), why) for n, a, why in items],
                "rationale": rationale.group(1).strip() if rationale else "",
                "body": body,
            }
        elif "total" in subject.lower() and "budget" in subject.lower():
            budget = re.search(r"budget across all departments is ([\d,]+) CNY", body)
            block = re.search(r"Priority order:\n((?:\d\..*\n?)+)", body)
            frozen = re.search(r"\n([A-Z][\w ]+?) departments should maintain Q1", body)
            ceo = {
                "budget": money(budget.group(1)) if budget else 0,
                "priorities": re.findall(r"\d\.\s*(.+)", block.group(1)) if block else [],
                "frozen": re.split(r"\s+and\s+|,\s*", frozen.group(1)) if frozen else [],
                "sender": msg.get("from", ""),
            }
    return requests, ceo


def match_priority(priority: str, requests: dict[str, dict[str, Any]]) -> str | None:
    """The requesting department whose name or request text best matches a CEO priority."""
    words = [w for w in re.findall(r"[a-z]+", priority.lower()) if w not in STOP]
    best, best_hits = None, 0
    for dept, req in requests.items():
        text = (dept + " " + req["body"]).lower()
        hits = sum(1 for w in words if w in text) + (2 if dept.lower() in priority.lower() else 0)
        if hits > best_hits:
            best, best_hits = dept, hits
    return best


def allocate(pool: int, order: list[str], requests: dict[str, dict[str, Any]]) -> dict[str, int]:
    """Fund requests fully in priority order until the pool is used up."""
    left = pool
    out: dict[str, int] = {}
    for dept in order:
        grant = min(requests[dept]["total"], left)
        out[dept] = grant
        left -= grant
    return out


def build_report(q1: dict[str, int], requests: dict[str, dict[str, Any]], ceo: dict[str, Any]) -> str:
    """The budget allocation report."""
    q1_total = sum(q1.values())
    frozen = [d for d in q1 if any(short_dept(d).lower() == short_dept(f).lower() for f in ceo["frozen"])]
    frozen_total = sum(q1[d] for d in frozen)
    budget = ceo["budget"]
    pool = budget - frozen_total
    order: list[str] = []
    for prio in ceo["priorities"]:
        dept = match_priority(prio, requests)
        if dept and dept not in order:
            order.append(dept)
    order += [d for d in requests if d not in order]
    grant = allocate(pool, order, requests)
    requested = sum(r["total"] for r in requests.values())
    asked_total = requested + frozen_total
    q2 = {**{d: q1[d] for d in frozen}, **grant}
    out = ["# Q2 Budget Allocation Plan (CFO)", "", "## 1. Q1 spending analysis", ""]
    out += ["| Department | Q1 actual | Share |", "|---|---|---|"]
    for dept, amount in sorted(q1.items(), key=lambda x: -x[1]):
        out.append(f"| {short_dept(dept)} | {k(amount)} | {amount / q1_total:.1%} |")
    top = max(q1, key=q1.get)
    out += [
        f"| **Total** | **{k(q1_total)}** | 100% |",
        "",
        f"{top} is the largest cost centre ({q1[top] / q1_total:.0%} of Q1 spend). Administration and HR "
        f"together cost {k(frozen_total)}.",
        "",
        "## 2. Q2 requests vs the Q2 budget",
        "",
        "| Department | Q1 actual | Q2 request | Change vs Q1 |",
        "|---|---|---|---|",
    ]
    for dept in order:
        r = requests[dept]["total"]
        base = q1.get(dept, 0)
        out.append(f"| {dept} | {k(base)} | {k(r)} | {(r - base) / base:+.1%} |")
    for dept in frozen:
        out.append(f"| {short_dept(dept)} | {k(q1[dept])} | {k(q1[dept])} (held at Q1) | +0.0% |")
    over = asked_total - budget
    out += [
        "",
        f"- Total requested: {k(asked_total)} against a total budget of {k(budget)} (1.8 million): "
        + (f"requests exceed the budget by {k(over)}." if over > 0 else "requests fit within budget."),
        f"- After holding Administration and HR at {k(frozen_total)}, {k(pool)} remains for "
        f"{', '.join(order)}, which asked for {k(requested)}.",
        "",
        "## 3. CEO priority guidance",
        "",
    ]
    for i, prio in enumerate(ceo["priorities"], 1):
        out.append(f"{i}. {prio} -> {match_priority(prio, requests)}")
    out += [
        "- Administration and HR stay at Q1 levels.",
        "",
        "## 4. Q2 allocation",
        "",
        "| Department | Q2 request | Q2 allocation | vs request | vs Q1 |",
        "|---|---|---|---|---|",
    ]
    for dept in order:
        r, g, base = requests[dept]["total"], grant[dept], q1.get(dept, 0)
        out.append(f"| {dept} | {k(r)} | {k(g)} | {g - r:+,.0f} | {(g - base) / base:+.1%} |")
    for dept in frozen:
        out.append(f"| {short_dept(dept)} | {k(q1[dept])} | {k(q1[dept])} | +0 | +0.0% |")
    total_q2 = sum(q2.values())
    out += [
        f"| **Total** | {k(asked_total)} | **{k(total_q2)}** | {total_q2 - asked_total:+,.0f} | "
        f"{(total_q2 - q1_total) / q1_total:+.1%} |",
        "",
        f"Budget check: total allocation {k(total_q2)} "
        + ("is within" if total_q2 <= budget else "EXCEEDS")
        + f" the {k(budget)} budget (headroom {k(budget - total_q2)}).",
        "",
        "## 5. Rationale per department",
        "",
    ]
    for rank, dept in enumerate(order, 1):
        req = requests[dept]
        status = "fully funded" if grant[dept] >= req["total"] else "reduced"
        out.append(
            f"- **{dept}** (CEO priority {rank}): {status} at {k(grant[dept])}. "
            f"Justification in the request: {req['rationale']}"
        )
    out += ["", "## 6. Reduced requests", ""]
    for dept in order:
        cut = requests[dept]["total"] - grant[dept]
        if cut <= 0:
            continue
        base = q1.get(dept, 0)
        items = ", ".join(f"{n} {k(a)}" for n, a, _ in requests[dept]["items"])
        largest = max(requests[dept]["items"], key=lambda item: item[1])[0] if requests[dept]["items"] else ""
        out += [
            f"- **{dept}** is reduced by {k(cut)} ({cut / requests[dept]['total']:.1%} of its request) to "
            f"{k(grant[dept])}. It is the lowest of the CEO priorities, so it absorbs the gap between the "
            f"requests and the budget; the allocation is still {(grant[dept] - base) / base:+.1%} above its "
            "Q1 spend, so its growth plan continues at a slower pace.",
            f"- Requested items: {items}. Suggested way to absorb the cut: trim the largest line "
            f"({largest}) and tie further spend there to measurable results; revisit in Q3 if they improve.",
        ]
    return "\n".join(out)


def solve(call: Call) -> str:
    """Read Q1 actuals and the Q2 emails, allocate the Q2 budget and return the plan."""
    txns = call("finance_list_transactions", max_results=100).get("transactions", [])
    q1: dict[str, int] = {}
    for t in txns:
        if t.get("type") == "expense":
            q1[t["department"]] = q1.get(t["department"], 0) + int(t["amount"])
    requests, ceo = read_mail(call)
    return build_report(q1, requests, ceo)
