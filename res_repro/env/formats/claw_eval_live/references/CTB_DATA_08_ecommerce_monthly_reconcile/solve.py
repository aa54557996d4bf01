"""Three-way reconciliation of March orders, bank receipts and invoices.

Fetches every March transaction, indexes bank receipts and invoices by the order they reference,
classifies each order with explicit rules, flags bank receipts that point at no order, and writes
a summary, an anomaly table and follow-up actions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Call = Callable[..., Any]


def _by_reference(rows: list[dict[str, Any]], kind: str) -> dict[str, list[dict[str, Any]]]:
    """Group the records of one type by the order id in their ``reference`` field."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("type") == kind:
            grouped.setdefault(str(row.get("reference", "")), []).append(row)
    return grouped


def _total(rows: list[dict[str, Any]]) -> float:
    """Sum of the amounts of ``rows``."""
    return sum(float(r.get("amount", 0)) for r in rows)


def _fmt(value: float | None) -> str:
    """An amount as a plain number, or a dash when the source has no record."""
    if value is None:
        return "-"
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"


def _classify(order: dict[str, Any], bank: float | None, invoice: float | None) -> str:
    """Reconciliation status of one order from the amounts on each side."""
    amount = float(order["amount"])
    if str(order.get("status", "")).lower() == "refunded":
        return "Refunded"
    if bank is None and invoice is None:
        return "Missing bank deposit + missing invoice"
    if bank is None:
        return "Missing bank deposit"
    if abs(bank - amount) > 0.005:
        return "Amount discrepancy"
    if invoice is None:
        return "Missing invoice"
    if abs(invoice - amount) > 0.005:
        return "Amount discrepancy (invoice)"
    return "Full match"


def solve(call: Call) -> str:
    """Reconcile March transactions and return the reconciliation report."""
    rows = call("finance_list_transactions", start_date="2026-03-01", end_date="2026-03-31")["transactions"]
    orders = [r for r in rows if r.get("type") == "order"]
    order_ids = {str(o["transaction_id"]) for o in orders}
    banks, invoices = _by_reference(rows, "bank_receipt"), _by_reference(rows, "invoice")

    results: list[tuple[dict[str, Any], float | None, float | None, str]] = []
    for order in orders:
        oid = str(order["transaction_id"])
        bank = _total(banks[oid]) if oid in banks else None
        invoice = _total(invoices[oid]) if oid in invoices else None
        results.append((order, bank, invoice, _classify(order, bank, invoice)))
    orphans = [b for ref, group in banks.items() if ref not in order_ids for b in group]

    matched = [r for r in results if r[3] == "Full match"]
    refunded = [r for r in results if r[3] == "Refunded"]
    issues = [r for r in results if r[3] not in ("Full match", "Refunded")]

    def exposure(order: dict[str, Any], bank: float | None) -> float:
        return float(order["amount"]) - (bank or 0.0) if bank is not None else float(order["amount"])

    anomaly_total = sum(exposure(o, b) for o, b, _, _ in issues) + _total(orphans)
    n_anomalies = len(issues) + len(orphans)

    lines = ["# March E-Commerce Three-Way Reconciliation", "", "## Summary", ""]
    lines.append(
        f"- Orders reviewed: {len(orders)}; bank receipts: {sum(len(g) for g in banks.values())}; "
        f"invoices: {sum(len(g) for g in invoices.values())}"
    )
    lines.append(
        f"- Fully matched: {len(matched)} orders ({', '.join(o['transaction_id'] for o, *_ in matched)})"
    )
    lines.append(f"- Anomalies: {n_anomalies} items needing follow-up")
    lines.append(
        f"- Total anomaly amount: {_fmt(anomaly_total)} (unreconciled difference or unsupported amount)"
    )
    if refunded:
        ids = ", ".join(o["transaction_id"] for o, *_ in refunded)
        lines.append(f"- Refunded (normal, not an anomaly): {ids}")
    lines += [
        "",
        "## Order status",
        "",
        "| Order | Status | Order amount | Bank deposit | Invoice |",
        "|---|---|---|---|---|",
    ]
    for order, bank, invoice, status in results:
        lines.append(
            f"| {order['transaction_id']} | {status} | {_fmt(float(order['amount']))} | "
            f"{_fmt(bank)} | {_fmt(invoice)} |"
        )

    lines += [
        "",
        "## Anomaly detail",
        "",
        "| ID | Anomaly type | Order | Bank | Invoice | Difference |",
        "|---|---|---|---|---|---|",
    ]
    for order, bank, invoice, status in issues:
        lines.append(
            f"| {order['transaction_id']} | {status} | {_fmt(float(order['amount']))} | {_fmt(bank)} | "
            f"{_fmt(invoice)} | {_fmt(exposure(order, bank))} |"
        )
    for bank_row in orphans:
        lines.append(
            f"| {bank_row['transaction_id']} | Bank orphan (reference '{bank_row.get('reference')}') | - | "
            f"{_fmt(float(bank_row['amount']))} | - | {_fmt(float(bank_row['amount']))} |"
        )
    for order, _, _, _ in refunded:
        lines.append("")
        lines.append(
            f"Note: {order['transaction_id']} ({_fmt(float(order['amount']))}) was refunded, so having no "
            "bank deposit or invoice is normal; it is not counted as an anomaly."
        )

    lines += ["", "## Recommended follow-up actions", ""]
    for order, bank, _, status in issues:
        oid = order["transaction_id"]
        if status.startswith("Amount discrepancy"):
            lines.append(
                f"- {oid}: investigate the short receipt of {_fmt(exposure(order, bank))} with the "
                "payment channel and customer (fees, partial payment); collect or issue a credit note."
            )
        elif status.startswith("Missing bank"):
            lines.append(
                f"- {oid}: confirm with the platform whether the {_fmt(float(order['amount']))} payment "
                "was settled; chase the settlement and issue the invoice once funds arrive."
            )
        else:
            lines.append(f"- {oid}: issue the missing invoice for {_fmt(float(order['amount']))}.")
    for bank_row in orphans:
        lines.append(
            f"- {bank_row['transaction_id']}: trace the {_fmt(float(bank_row['amount']))} deposit with the "
            "bank (payer details); match it to an order or hold it as unidentified receipts."
        )
    lines.append("- Re-run the reconciliation after the corrections and sign off the March close.")
    return "\n".join(lines)
