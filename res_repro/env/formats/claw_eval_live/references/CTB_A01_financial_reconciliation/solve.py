"""Three-way month-end reconciliation of the CRM export, bank settlements and invoice ledger.

The three CSV attachments are parsed from the instruction, joined on the transaction id, and each id is
classified (full match, amount discrepancy, missing bank entry, missing invoice, bank-only); the report
lists every exception with its variance and a prioritised action per exception.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from typing import Any

TOLERANCE = 0.005


def attachments(instruction: str) -> dict[str, str]:
    """Map each inlined attachment name to its text."""
    parts = re.split(r"\[attached document: ([^\]]+)\]\n", instruction)
    return {parts[i].strip(): parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}


def rows(text: str) -> list[dict[str, str]]:
    """Parse one CSV document into a list of row dicts."""
    return list(csv.DictReader(io.StringIO(text)))


def money(value: float | None) -> str:
    """Format an amount in CNY, or a dash when the record is absent."""
    return "—" if value is None else f"{value:,.2f}"


def classify(crm: float | None, bank: float | None, invoice: float | None) -> tuple[str, float]:
    """Return the discrepancy type and the absolute variance for one transaction id."""
    if crm is None:
        return (
            ("Bank-only (unmatched)", abs(bank or 0.0))
            if bank is not None
            else ("Invoice-only", abs(invoice or 0.0))
        )
    if bank is None:
        return "Missing bank entry", crm
    if invoice is None:
        return "Missing invoice", crm
    variance = max(abs(crm - bank), abs(crm - invoice), abs(bank - invoice))
    return ("Full match", 0.0) if variance < TOLERANCE else ("Amount discrepancy", variance)


def cause_and_action(
    kind: str, crm: float | None, bank: float | None, invoice: float | None, note: str
) -> tuple[str, str]:
    """A probable cause and a concrete next step for one exception."""
    if kind == "Missing bank entry":
        return (
            "Booked as paid in CRM and invoiced, but no settlement received or not yet posted",
            f"Trace the missing bank settlement of {money(crm)} with the bank and the customer's remittance",
        )
    if kind == "Missing invoice":
        return (
            "Cash received and booked, but no invoice was issued or linked (CRM has no invoice number)",
            f"Locate or issue the missing invoice for {money(crm)} and link it in CRM",
        )
    if kind == "Bank-only (unmatched)":
        return (
            f"Receipt with no CRM or invoice reference ({note or 'no note'})",
            f"Investigate the origin of the {money(bank)} receipt, identify the payer and map it to a "
            "transaction",
        )
    if bank is not None and crm is not None and abs(crm - bank) >= TOLERANCE:
        short = crm - bank
        return (
            f"Bank received {money(abs(short))} {'less' if short > 0 else 'more'} than booked"
            + (f" ({note})" if note else ""),
            f"Investigate the {money(abs(short))} shortfall/holdback with the acquirer and confirm "
            "release or write-off",
        )
    diff = (crm or 0.0) - (invoice or 0.0)
    return (
        f"Invoice billed {money(abs(diff))} {'below' if diff > 0 else 'above'} the booked and settled "
        "amount; likely billing error",
        "Verify the invoice amount against the contract and issue a corrected invoice or credit note",
    )


def solve(call: Callable[..., Any], instruction: str) -> str:
    """Reconcile the three attached tables and return the finance-lead report."""
    docs = attachments(instruction)
    crm_rows = rows(next(v for k, v in docs.items() if "crm" in k))
    bank_rows = rows(next(v for k, v in docs.items() if "bank" in k))
    inv_rows = rows(next(v for k, v in docs.items() if "invoice" in k))
    crm = {r["transaction_id"]: float(r["amount"]) for r in crm_rows}
    bank = {r["external_ref"]: float(r["amount_received"]) for r in bank_rows}
    notes = {r["external_ref"]: r.get("notes", "") for r in bank_rows}
    inv = {r["invoice_ref"]: float(r["billed_amount"]) for r in inv_rows}
    ids = list(crm) + [i for i in list(bank) + list(inv) if i not in crm]
    ids = list(dict.fromkeys(ids))

    matched: list[str] = []
    exceptions: list[dict[str, Any]] = []
    for tx in ids:
        kind, variance = classify(crm.get(tx), bank.get(tx), inv.get(tx))
        if kind == "Full match":
            matched.append(tx)
            continue
        cause, action = cause_and_action(kind, crm.get(tx), bank.get(tx), inv.get(tx), notes.get(tx, ""))
        exceptions.append({"id": tx, "kind": kind, "variance": variance, "cause": cause, "action": action})
    total = sum(e["variance"] for e in exceptions)
    ranked = sorted(exceptions, key=lambda e: -e["variance"])

    lines = [
        "# Month-End Sales Reconciliation Report (CNY)",
        "",
        "To: Finance Lead",
        "",
        "## Summary",
        f"- Records reconciled: {len(ids)} transaction IDs across CRM, bank settlements and invoice ledger",
        f"- Full matches: {len(matched)} ({', '.join(matched)})",
        f"- Exceptions: {len(exceptions)}",
        f"- Total impact amount: {total:,.2f} CNY (sum of absolute variances)",
        "",
        "## Exception Detail",
        "",
        "| Transaction ID | Discrepancy type | CRM amount | Bank amount | Invoice amount | Variance | "
        "Probable cause |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in exceptions:
        tx = e["id"]
        lines.append(
            f"| {tx} | {e['kind']} | {money(crm.get(tx))} | {money(bank.get(tx))} | {money(inv.get(tx))} | "
            f"{e['variance']:,.2f} | {e['cause']} |"
        )
    lines += ["", "## Recommended Actions (by priority, largest impact first)", ""]
    for n, e in enumerate(ranked, 1):
        level = "High" if e["variance"] >= 500 else "Medium"
        lines.append(f"{n}. [{level}] {e['id']} ({e['kind']}, {e['variance']:,.2f}): {e['action']}.")
    lines += [
        "",
        "Once these items are cleared, re-run the reconciliation before closing the period. All figures "
        "come directly from the three source files; no values were estimated.",
    ]
    return "\n".join(lines)
