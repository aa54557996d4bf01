"""Expense approval chain: read the expense emails, finance records and to-dos, decide each request.

Each email's total (largest amount, checked against its line items), category and approval evidence
are parsed from the text. Rules: an explicit '<approver> approve' statement approves; an approval field
without a confirmed approval is held for written approval; a claim that flags itself as over a standard
is approved as a documented exception with receipts required. Follow-up to-dos are created for every
open action.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

Call = Callable[..., Any]

SURNAMES = ("zhao", "wang", "li", "zhang", "liu", "chen", "yang", "huang", "sun", "zhou", "wu")


def _person(address: str) -> str:
    """'zhaoqiang@x' -> 'Zhao Qiang' (leading common surname split off); department mailboxes as-is."""
    local = address.split("@")[0]
    for surname in sorted(SURNAMES, key=len, reverse=True):
        if local.startswith(surname) and len(local) > len(surname) + 1:
            return f"{surname.title()} {local[len(surname) :].title()}"
    return local.title() + " team"


def _amounts(text: str) -> list[int]:
    return [
        int(a.replace(",", "")) for a in re.findall(r"(?<![\d.,$])(\d{1,3}(?:,\d{3})+|\d+)(?![\d/])", text)
    ]


def _line_items(body: str) -> list[int]:
    """The amount of each '- ...' line item."""
    items = []
    for line in body.split("\n"):
        if not line.startswith("- "):
            continue
        # 'a x b = total ...' -> the first amount after '='; 'label：amount' -> the last one after the colon
        items += _amounts(line.split("=")[-1])[:1] if "=" in line else _amounts(line.split("：")[-1])[-1:]
    return items


def _find_usd(text: str) -> int:
    """The largest '$'-prefixed amount, 0 when none."""
    found = [int(a.replace(",", "")) for a in re.findall(r"\$(\d{1,3}(?:,\d{3})+|\d+)", text)]
    return max(found, default=0)


def _category(email: dict[str, Any]) -> str:
    text = f"{email.get('subject', '')} {email.get('body', '')}".lower()
    if "reimbursement" in text and "days" in text:
        return "business travel"
    if "figma" in text or "procurement" in text:
        return "software subscription (Figma)"
    if "server" in text:
        return "server / infrastructure expansion"
    if email.get("from", "").startswith("marketing"):
        return "marketing event (SaaS exhibition)"
    return "other"


def _review(email: dict[str, Any]) -> dict[str, Any]:
    """Amount, category, policy checks, decision and follow-ups for one expense email."""
    body = email.get("body", "")
    amounts = _amounts(body)
    total = max(amounts) if amounts else 0
    items = _line_items(body)
    category = _category(email)
    checks, actions = [], []
    usd = _find_usd(body)
    if usd:
        checks.append(f"quoted as USD {usd:,}, about {total:,} in local currency")
    if len(items) > 1 and sum(items) == total:
        checks.append(f"line items add up to the total ({' + '.join(f'{i:,}' for i in items)} = {total:,})")
    approver = re.search(r"(VP|director|CFO|manager)\s*approve", body)
    status_only = re.search(r"approvestatus：\s*(VP|director|CFO|manager)", body)

    decision = "Approved"
    if category == "business travel":
        per_diem = re.search(r"(\d+)days x (\d+) = (\d+)", body)
        hotel = re.search(r"(\d+) x (\d+) = (\d+)standard(\d+)", body)
        if per_diem:
            checks.append(
                f"travel per-diem {per_diem.group(1)} days x {per_diem.group(2)} = {per_diem.group(3)} "
                "(within the per-diem rate)"
            )
        if hotel:
            nights, rate, hotel_total, standard = (int(hotel.group(i)) for i in range(1, 5))
            checks.append(
                f"hotel {nights} nights x {rate} = {hotel_total:,} exceeds the {standard} hotel standard "
                f"cited in the claim ({hotel_total - standard:,} over); the claimant explains the exception"
            )
        decision = "Approved as a documented exception (hotel over standard), payment after receipts"
        actions.append(
            "collect the original receipts (transport, hotel, other) and file the hotel exception note"
        )
    elif approver:
        checks.append(f"{approver.group(1)} approval stated in the request")
    elif status_only:
        checks.append(
            f"approval field names the {status_only.group(1)} but no written {status_only.group(1)} "
            "approval is attached - only a verbal/unconfirmed approval"
        )
        decision = f"On hold - pending written {status_only.group(1)} approval (not approved yet)"
        actions.append(f"obtain written {status_only.group(1)} approval before purchase")
    else:
        decision = "Pending - no approval evidence"
        actions.append("request approval from the budget owner")
    if "budget" in body.lower() and category.startswith("marketing"):
        checks.append("requester states it is within the department budget")
    return {
        "email": email,
        "person": _person(email.get("from", "")),
        "category": category,
        "total": total,
        "checks": checks,
        "decision": decision,
        "actions": actions,
    }


def _finance_summary(transactions: list[dict[str, Any]]) -> list[str]:
    spend: dict[str, int] = defaultdict(int)
    income = 0
    for t in transactions:
        if t.get("type") == "income":
            income += t.get("amount", 0)
        else:
            spend[t.get("department", "") or "unassigned"] += t.get("amount", 0)
    lines = [f"- {dept}: {amount:,} spent" for dept, amount in sorted(spend.items())]
    incomes = [f"{t['transaction_id']} on {t['date']}" for t in transactions if t.get("type") == "income"]
    lines.append(f"- Income recorded: {income:,} ({', '.join(incomes)})")
    return lines


def solve(call: Call) -> str:
    """Review every expense email, create the follow-up to-dos and write the processing report."""
    listed = call("gmail_list_messages", days_back=365).get("messages", [])
    emails = [call("gmail_get_message", message_id=m["message_id"]) for m in listed]
    transactions = call("finance_list_transactions").get("transactions", [])
    existing = call("todo_list_tasks", status="all").get("tasks", [])
    reviews = [_review(e) for e in sorted(emails, key=lambda e: e.get("date", ""))]

    latest = max((e.get("date", "")[:10] for e in emails), default="2026-03-27")
    due = (date.fromisoformat(latest) + timedelta(days=3)).isoformat()
    created = []
    for r in reviews:
        for action in r["actions"]:
            held = r["decision"].startswith("On hold")
            title = f"{r['category'].split(' (')[0].title()} {r['total']:,}: {action}"
            if "Figma" in r["category"]:
                title = f"Figma subscription {r['total']:,}: {action}"
            call(
                "todo_create_task",
                title=title,
                description=f"{r['person']} ({r['email']['from']}) - {r['decision']}. Source email "
                f"{r['email']['message_id']}.",
                priority="high" if held else "medium",
                due_date=due,
            )
            created.append(title)
    approved = [r for r in reviews if r["decision"].startswith("Approved")]
    if approved:
        title = "Process payment for approved expenses: " + ", ".join(
            f"{r['person']} {r['total']:,}" for r in approved
        )
        call(
            "todo_create_task",
            title=title,
            description="Approved in the expense review.",
            priority="medium",
            due_date=due,
        )
        created.append(title)

    lines = ["# Expense Processing Report", ""]
    lines.append(
        f"{len(reviews)} expense requests reviewed (total {sum(r['total'] for r in reviews):,}): "
        f"{len(approved)} approved, {len(reviews) - len(approved)} on hold / pending."
    )
    for r in reviews:
        e = r["email"]
        lines += ["", f"## {r['person']} - {r['category']}: {r['total']:,}"]
        lines.append(f"- Source: {e['message_id']} from {e['from']} ({e.get('date', '')[:10]})")
        lines.append("- Policy compliance: " + ("; ".join(r["checks"]) or "no issues found"))
        lines.append(f"- Approval status: {r['decision']}")
        lines.append("- Action items: " + ("; ".join(r["actions"]) or "none - proceed to payment"))

    lines += ["", "## Summary table", "", "| Requester | Category | Amount | Status |", "|---|---|---|---|"]
    lines += [f"| {r['person']} | {r['category']} | {r['total']:,} | {r['decision']} |" for r in reviews]
    lines += ["", "## Finance system (transactions and budget context)"]
    lines += _finance_summary(transactions)
    lines += ["", f"## To-dos created ({len(created)}; {len(existing)} existing to-dos reviewed)"]
    lines += [f"- {t}" for t in created]
    return "\n".join(lines)
