"""Audit sales commitments in sent proposal emails against CRM contract terms.

Reads every mailbox message, keeps the proposals sent by sales staff, splits each into numbered commitment
lines, looks up the recipient's CRM record and compares each line with the matching contract term
(price/discount, trial, training, modules, migration, support SLA, API), assigning a risk level per rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

HIGH, MEDIUM, LOW, OK = "High risk", "Medium risk", "Low risk", "Consistent"


def amounts(text: str) -> list[int]:
    """Money amounts written with thousands separators or as plain 4+ digit numbers."""
    return [int(m.replace(",", "")) for m in re.findall(r"\d{1,3}(?:,\d{3})+|\d{4,}", text)]


def hours(text: str) -> list[int]:
    """Hour figures such as '4 hours' or '8-hour'."""
    return [int(h) for h in re.findall(r"(\d+)[\s-]*hours?", text, re.I)]


def is_empty(value: Any) -> bool:
    """True for a contract term that grants nothing (None, 'None', 0, False, [])."""
    return value in (None, "None", "none", "", 0, False, [])


def commitments(body: str) -> list[str]:
    """The numbered commitment lines of a proposal email."""
    return [m.strip() for m in re.findall(r"^\s*\d+\.\s*(.+)$", body, re.M)]


def compare(line: str, terms: dict[str, Any]) -> dict[str, str]:
    """Compare one email commitment with the contract terms; return item, CRM record, finding and risk."""
    low = line.lower()
    if "cny" in low or "fee" in low or "price" in low:
        email_price = amounts(line)[0]
        fee = int(terms.get("annual_fee", 0))
        discount = re.search(r"(\d+)%\s*(?:discount|off)", low)
        crm = f"Annual fee {fee:,} CNY; discount: {terms.get('discount', 'None')}"
        if email_price != fee:
            what = f"{discount.group(1)}% discount " if discount else "reduced price "
            gap = fee - email_price
            return {
                "item": "Price / discount",
                "crm": crm,
                "risk": HIGH,
                "finding": f"Price discrepancy: email offers {what}= {email_price:,} CNY vs contract "
                f"{{fee:,}} CNY ({gap:,} CNY below contract); discount not authorised in CRM",
            }
        return {"item": "Price / discount", "crm": crm, "risk": OK, "finding": "Price matches the contract"}
    if "trial" in low:
        term = terms.get("free_trial")
        return {
            "item": "Free trial",
            "crm": f"Free trial: {term}",
            "risk": MEDIUM if is_empty(term) else OK,
            "finding": "Trial promised in email but not in the contract" if is_empty(term) else "Matches",
        }
    if "training" in low:
        term = terms.get("training_sessions", 0)
        promised = re.search(r"(\d+)", line)
        differs = is_empty(term) or (promised is not None and int(promised.group(1)) != int(term))
        return {
            "item": "Training sessions",
            "crm": f"Training sessions: {term}",
            "risk": MEDIUM if differs else OK,
            "finding": "Free on-site training promised but contract has none" if differs else "Matches",
        }
    if "migration" in low:
        term = terms.get("free_migration")
        return {
            "item": "Data migration",
            "crm": f"Free migration: {'yes' if term else 'no'}",
            "risk": OK if term else MEDIUM,
            "finding": "Free data migration promised but not in the contract" if not term else "Matches",
        }
    if "module" in low:
        modules = terms.get("included_modules", []) + terms.get("free_modules", [])
        covered = bool(modules) and all(m.lower() in low for m in modules)
        crm = f"Modules in contract: {', '.join(modules) or 'none'}"
        return {
            "item": "Modules",
            "crm": crm,
            "risk": OK if covered else MEDIUM,
            "finding": "Matches" if covered else "Free module promised in email but absent from the contract",
        }
    if "api" in low:
        term = terms.get("api_support")
        return {
            "item": "API support",
            "crm": f"API support: {'yes' if term else 'no'}",
            "risk": OK if term else MEDIUM,
            "finding": "Matches" if term else "API support not in the contract",
        }
    if "support" in low or "response" in low:
        sla = str(terms.get("support_sla", "None"))
        crm = f"Support SLA: {sla}"
        if sla.lower().replace(" ", "") in low.replace(" ", ""):
            return {"item": "Support SLA", "crm": crm, "risk": OK, "finding": "Matches"}
        promised, recorded = hours(line), hours(sla)
        if promised and recorded and promised[0] != recorded[0]:
            return {
                "item": "Support SLA",
                "crm": crm,
                "risk": MEDIUM,
                "finding": f"Email commits to a response within {promised[0]} hours; the contract allows "
                f"{recorded[0]} hours",
            }
        return {
            "item": "Support level",
            "crm": crm,
            "risk": LOW,
            "finding": "Wording differs (priority channel vs standard support); no quantified SLA promised",
        }
    return {
        "item": "Other",
        "crm": "No matching term",
        "risk": LOW,
        "finding": "Not covered by contract fields",
    }


def is_sales_proposal(message: dict[str, Any]) -> bool:
    """A sent email from a sales address that carries a proposal or offer."""
    sender = str(message.get("from", "")).lower()
    text = f"{message.get('subject', '')} {message.get('body', '')}".lower()
    return sender.startswith("sales") and any(k in text for k in ("proposal", "offer", "quotation", "quote"))


def solve(call: Callable[..., Any]) -> str:
    """Collect proposals, compare them with CRM contract terms and return the audit report."""
    listing = call("gmail_list_messages", days_back=3650, max_results=100)
    messages = [call("gmail_get_message", message_id=m["message_id"]) for m in listing.get("messages", [])]
    proposals = [m for m in messages if is_sales_proposal(m)]
    audits = []
    for msg in proposals:
        recipient = msg["to"][0] if isinstance(msg["to"], list) else msg["to"]
        found = call("crm_search_customer", email=recipient).get("customers", [])
        if not found:
            continue
        customer = call("crm_get_customer", customer_id=found[0]["customer_id"])
        rows = [
            {"email": line, **compare(line, customer.get("contract_terms", {}))}
            for line in commitments(msg["body"])
        ]
        audits.append({"msg": msg, "customer": customer, "rows": rows})
    return report(audits, len(messages))


def report(audits: list[dict[str, Any]], total_messages: int) -> str:
    """Render the audit report."""
    issues = [(a, r) for a in audits for r in a["rows"] if r["risk"] != OK]
    high = [(a, r) for a, r in issues if r["risk"] == HIGH]
    counts = {level: sum(1 for _, r in issues if r["risk"] == level) for level in (HIGH, MEDIUM, LOW)}
    lines = [
        "# Sales Commitment vs CRM Contract Consistency Audit",
        "",
        "## Audit Scope",
        f"- Mailbox messages reviewed: {total_messages}; sales proposal/quotation emails in scope: "
        f"{len(audits)} ({', '.join(a['msg']['message_id'] for a in audits)}).",
        f"- Customers checked against CRM contract terms: {len(audits)} — "
        + "; ".join(f"{a['customer']['name']} ({a['customer']['customer_id']})" for a in audits)
        + ".",
        f"- Result: {len(issues)} inconsistencies — {counts[HIGH]} high risk, {counts[MEDIUM]} medium "
        f"risk, {counts[LOW]} low risk.",
        "- Risk rules: pricing discrepancies or unauthorised discounts = high risk; freebies, trials and "
        "other add-on commitments = medium risk; wording differences that are substantively consistent = "
        "low risk.",
        "",
        "## Item-by-Item Comparison",
    ]
    for a in audits:
        c, m = a["customer"], a["msg"]
        bad = [r for r in a["rows"] if r["risk"] != OK]
        lines += [
            "",
            f"### {c['name']} ({c['customer_id']}) — email {m['message_id']} from {m['from']}, "
            f'"{m["subject"]}"',
            "",
            "| # | Email commitment | CRM record | Result | Risk |",
            "|---|---|---|---|---|",
        ]
        for i, r in enumerate(a["rows"], 1):
            lines.append(f"| {i} | {r['email']} | {r['crm']} | {r['finding']} | {r['risk']} |")
        lines.append("")
        lines.append(
            f"Conclusion: {len(bad)} inconsistencies found."
            if bad
            else "Conclusion: consistent — every email commitment matches the CRM contract; no discrepancies."
        )
    lines += [
        "",
        "## Inconsistency Summary",
        "",
        "| Customer | Item | Email Commitment | CRM Record | Discrepancy | Risk Level |",
        "|---|---|---|---|---|---|",
    ]
    order = {HIGH: 0, MEDIUM: 1, LOW: 2}
    for a, r in sorted(issues, key=lambda x: order[x[1]["risk"]]):
        lines.append(
            f"| {a['customer']['name']} | {r['item']} | {r['email']} | {r['crm']} | {r['finding']} | "
            f"{r['risk']} |"
        )
    lines += ["", "## High-Risk Items Requiring Legal Review"]
    for n, (a, r) in enumerate(high, 1):
        lines.append(
            f"{n}. {a['customer']['name']} ({a['customer']['customer_id']}, {a['msg']['message_id']}): "
            f"{r['finding']}. Confirm whether the offer binds the company before the contract is issued, "
            "and obtain pricing approval or send a correction to the customer."
        )
    if not high:
        lines.append("- None.")
    lines += [
        "",
        "## Recommendations",
        "- Legal to review the high-risk pricing items first; sales management to confirm who approved "
        "the prices.",
        "- Either amend the CRM contracts to record approved add-ons (trials, training, modules, "
        "migration, SLA) or retract them in writing before signature.",
        "- Require CRM approval for any discount or free add-on before it is offered in writing.",
    ]
    return "\n".join(lines)
