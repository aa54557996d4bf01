"""Read the dispute emails and the commission policy email, then rebuild each claimant's commission from
finance records: payments received for the customers named in the claim, minus refunds (clawback), times
the policy rate, compared with the payouts made. A deal whose payout is shared between two salespeople is
held pending the contribution-ratio confirmation the policy requires.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

RECEIPT = re.compile(r"^(?P<customer>.+?) (?:contract|final) payment received(?: - (?P<person>.+))?$")
REFUND = re.compile(r"^(?P<customer>.+?) refund\b")
PAYOUT = re.compile(r"^(?P<person>[^-]+?) - (?P<what>.+)$")


def money(v: float) -> str:
    return f"{v:,.0f}"


def load(call: Callable[..., Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    listing = call("gmail_list_messages", days_back=120).get("messages", [])
    mails = [call("gmail_get_message", message_id=m["message_id"]) for m in listing]
    return mails, call("finance_list_transactions").get("transactions", [])


def classify(transactions: list[dict[str, Any]]) -> tuple[list[dict], list[dict], list[dict]]:
    receipts, refunds, payouts = [], [], []
    for t in transactions:
        desc = str(t.get("description", ""))
        if t.get("category") == "refund" and (m := REFUND.match(desc)):
            refunds.append({**t, "customer": m["customer"]})
        elif t.get("category") == "commission" and (m := PAYOUT.match(desc)):
            share = re.search(r"(\d+)% share", desc)
            payouts.append(
                {**t, "person": m["person"].strip(), "what": m["what"], "share": share and int(share[1])}
            )
        elif t.get("type") == "revenue" and (m := RECEIPT.match(desc)):
            receipts.append({**t, "customer": m["customer"], "person": m["person"]})
    return receipts, refunds, payouts


def claimant(mail: dict[str, Any]) -> str:
    sign = re.search(r"--\s*([^\n]+)\s*$", str(mail.get("body", "")))
    return sign.group(1).strip() if sign else str(mail.get("from", ""))


def resolve(mail: dict[str, Any], rate: float, records: tuple[list, list, list]) -> dict[str, Any]:
    """Verification of one dispute email."""
    receipts, refunds, payouts = records
    person, body = claimant(mail), str(mail.get("body", ""))
    deals = [r for r in receipts if r["customer"] in body]
    customers = [d["customer"] for d in deals]
    gross = sum(float(d["amount"]) for d in deals)
    refunded = [r for r in refunds if r["customer"] in customers]
    net = gross - sum(float(r["amount"]) for r in refunded)
    mine = [p for p in payouts if p["person"] == person]
    paid = sum(float(p["amount"]) for p in mine)
    claimed_total = rate * gross
    claimed_gap = claimed_total - paid
    co_payees = [
        p for p in payouts if p["person"] != person and any(c in p["what"] for c in customers) and p["share"]
    ]
    row = {
        "person": person,
        "mail": mail,
        "deals": deals,
        "refunds": refunded,
        "gross": gross,
        "net": net,
        "paid": paid,
        "payouts": mine,
        "claimed_total": claimed_total,
        "claimed_gap": claimed_gap,
        "co_payees": co_payees,
    }
    if co_payees:
        row["status"] = "Pending — split needs confirmation"
        row["correct"] = None
        row["to_pay"] = 0.0
        return row
    correct = rate * net
    row["correct"] = correct
    row["to_pay"] = correct - paid
    if abs(row["to_pay"] - claimed_gap) < 1:
        row["status"] = "Claim valid"
    elif 0 < row["to_pay"] < claimed_gap:
        row["status"] = "Partially valid"
    elif row["to_pay"] <= 0:
        row["status"] = "Claim rejected"
    else:
        row["status"] = "Underpaid beyond claim"
    return row


def section(r: dict[str, Any], rate: float) -> list[str]:
    pct = f"{rate * 100:g}%"
    deals = "; ".join(
        f"{d['customer']} {money(float(d['amount']))} received {d['date']} ({d['transaction_id']})"
        for d in r["deals"]
    )
    payouts = "; ".join(
        f"{money(float(p['amount']))} on {p['date']} ({p['transaction_id']})" for p in r["payouts"]
    )
    out = [
        f"### {r['person']} — {r['status']}",
        f"- Claim: commission {money(r['claimed_total'])} ({pct} of {money(r['gross'])}), received "
        f"{money(r['paid'])}; disputed amount {money(r['claimed_gap'])}.",
        f"- Finance records: {deals}. Commission paid: {payouts or 'none'}.",
    ]
    if r["refunds"]:
        ref = "; ".join(
            f"{x['customer']} refund {money(float(x['amount']))} on {x['date']}" for x in r["refunds"]
        )
        out.append(
            f"- Refund found: {ref}. Under the clawback rule the refunded amount earns no commission, so the "
            f"commissionable base is {money(r['gross'])} - {money(r['gross'] - r['net'])} = "
            f"{money(r['net'])}."
        )
    if r["correct"] is not None:
        out += [
            f"- Correct commission: {pct} x {money(r['net'])} = {money(r['correct'])}; paid "
            f"{money(r['paid'])}; "
            f"difference {money(r['to_pay'])}.",
        ]
        if r["status"] == "Claim valid":
            out.append(
                f"- Resolution: the claim is correct. Pay {money(r['to_pay'])} in the next commission run "
                "(payments were received the month before, so the commission is due now)."
            )
        elif r["status"] == "Partially valid":
            out.append(
                f"- Resolution: pay {money(r['to_pay'])}, not the {money(r['claimed_gap'])} claimed — the "
                "claim "
                "ignores the refund. Commission on these receipts is due the month after payment, so settle "
                "it "
                "in the next run and send the salesperson the refund calculation."
            )
        elif r["to_pay"] < 0:
            out.append(f"- Resolution: overpaid; recover {money(-r['to_pay'])} from the next payout.")
        else:
            out.append(f"- Resolution: pay {money(r['to_pay'])}.")
    else:
        others = ", ".join(
            f"{p['person']} {money(float(p['amount']))} ({p['share']}% share)" for p in r["co_payees"]
        )
        full = r["claimed_total"]
        booked = r["paid"] + sum(float(p["amount"]) for p in r["co_payees"])
        verdict = "matches" if abs(booked - full) < 1 else "does not match"
        split = "/".join(str(p["share"]) for p in r["payouts"] + r["co_payees"] if p["share"])
        out += [
            f"- Finance booked the deal as co-sourced: {r['person']} received {money(r['paid'])} and "
            f"{others} "
            f"(total {money(booked)}, which {verdict} {pct} x {money(r['gross'])} = {money(full)}).",
            "- Policy: co-sourced deals are split by contribution ratio and need both parties' confirmation. "
            f"No signed confirmation of the {split} split is on record.",
            f"- Resolution: pending. Ask {r['person']} and {', '.join(p['person'] for p in r['co_payees'])} "
            "(and "
            "their manager) to confirm the contribution ratio in writing. If the deal is confirmed as solely "
            f"{r['person']}'s, pay {r['person']} {money(full - r['paid'])} and claw back the same amount "
            "from the other "
            "party; if the split is confirmed, reject the appeal. Nothing to pay until then.",
        ]
    return out


def solve(call: Callable[..., Any]) -> str:
    """Verify each commission dispute against finance records and return the resolution report."""
    mails, transactions = load(call)
    policy_mail = next(m for m in mails if "policy" in str(m.get("subject", "")).lower())
    rate_match = re.search(r"rate:\s*([\d.]+)%", policy_mail["body"])
    rate = float(rate_match.group(1)) / 100 if rate_match else 0.05
    records = classify(transactions)
    disputes = [
        resolve(m, rate, records)
        for m in sorted(mails, key=lambda m: str(m.get("date", "")))
        if m is not policy_mail and "commission" in f"{m.get('subject', '')} {m.get('body', '')}".lower()
    ]
    out = ["# Commission Dispute Resolution Report", ""]
    policy_lines = re.findall(r"^\d+\.\s*(.+)$", policy_mail["body"], re.M)
    out += ["## Policy Applied", "", *[f"- {line}" for line in policy_lines], ""]
    out += [
        "## Overview",
        "",
        "| Salesperson | Disputed amount | Verification result | Amount to pay / recover | Recommendation |",
        "|---|---|---|---|---|",
    ]
    for r in disputes:
        if r["correct"] is None:
            amount = f"0 now (up to {money(r['claimed_gap'])} pending)"
            rec = "Confirm contribution ratio with both parties"
        else:
            amount = f"pay {money(r['to_pay'])}" if r["to_pay"] >= 0 else f"recover {money(-r['to_pay'])}"
            rec = "Pay in next run" + (" (refund clawback applied)" if r["refunds"] else "")
        out.append(f"| {r['person']} | {money(r['claimed_gap'])} | {r['status']} | {amount} | {rec} |")
    out += ["", "## Dispute Details", ""]
    for r in disputes:
        out += [*section(r, rate), ""]
    claimed = sum(r["claimed_gap"] for r in disputes)
    to_pay = sum(r["to_pay"] for r in disputes if r["to_pay"] > 0)
    pending = sum(r["claimed_gap"] for r in disputes if r["correct"] is None)
    out += [
        "## Summary",
        "",
        f"- Disputes reviewed: {len(disputes)}; total claimed {money(claimed)}.",
        f"- Confirmed payable now: {money(to_pay)} ("
        + ", ".join(f"{r['person']} {money(r['to_pay'])}" for r in disputes if r["to_pay"] > 0)
        + ").",
        f"- Pending contribution-ratio confirmation: {money(pending)}.",
        f"- Not payable: {money(claimed - to_pay - pending)} (refund clawback).",
        "- The quarterly-target 2% bonus does not apply to any claim: no target attainment is on record.",
        "- Recommendation: reply to each salesperson with the calculation above, and make finance show the "
        "refund deductions and split confirmations on future commission statements.",
    ]
    return "\n".join(out)
