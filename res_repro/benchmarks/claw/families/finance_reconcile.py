"""Financial reconciliation: settle one vendor's open invoices of a period against posted bank payments.

Planted cases: invoices paid in one or two posted transactions, short-paid invoices (sometimes with a
pending top-up that must not count), unpaid invoices (sometimes with a pending payment), a void invoice,
and distractors: other vendors, a vendor whose name contains the target's, and earlier periods.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from itertools import count
from typing import Any

from res_repro.benchmarks.claw.common import (
    COMPANIES,
    answer_format,
    domain_for,
    draft,
    get_tool,
    iso,
    list_tool,
    money,
    month_day,
    search_tool,
    send_email_tool,
    shift,
    string,
    unique_ids,
    write_tool,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "finance-reconcile"
YEAR = 2024
SERVICES = [
    "Packaging materials",
    "Freight charges",
    "Maintenance contract",
    "Office furniture",
    "Cloud hosting",
    "Consulting hours",
    "Safety equipment",
    "Printing services",
]


@dataclass
class Ledger:
    """The generated books: vendors, invoices and bank transactions, with fresh ids on demand."""

    rng: random.Random
    invoice_ids: list[str]
    tx_numbers: count[int]
    vendors: list[dict[str, Any]]
    invoices: list[dict[str, Any]] = field(default_factory=list)
    transactions: list[dict[str, Any]] = field(default_factory=list)

    def invoice(self, vendor: dict[str, Any], month: int, status: str, amount: int) -> dict[str, Any]:
        """Add an invoice of ``amount`` cents dated in ``month``."""
        issued = month_day(self.rng, YEAR, month)
        record = {
            "invoice_id": self.invoice_ids.pop(),
            "vendor_id": vendor["vendor_id"],
            "period": f"{YEAR}-{month:02d}",
            "invoice_date": iso(issued),
            "due_date": iso(shift(issued, 30)),
            "amount": money(amount),
            "currency": "USD",
            "status": status,
            "description": self.rng.choice(SERVICES),
        }
        self.invoices.append(record)
        return record

    def pay(
        self, invoice: dict[str, Any], vendor: dict[str, Any], amount: int, status: str = "posted"
    ) -> None:
        """Add an outgoing bank transaction of ``amount`` cents referencing ``invoice``."""
        self.transactions.append(
            {
                "tx_id": f"TX-{next(self.tx_numbers)}",
                "date": iso(shift(date.fromisoformat(invoice["invoice_date"]), self.rng.randint(3, 40))),
                "amount": money(amount),
                "direction": "outgoing",
                "status": status,
                "counterparty": vendor["name"],
                "reference": invoice["invoice_id"],
                "memo": f"{vendor['name']} {invoice['description'].lower()}",
            }
        )


def _vendors(rng: random.Random) -> list[dict[str, Any]]:
    """The target vendor first, then a vendor whose name contains the target's, then three others."""
    names = rng.sample(COMPANIES, 4)
    names.insert(1, f"{names[0]} {rng.choice(['Group', 'International', 'West'])}")
    numbers = rng.sample(range(100, 1000), len(names))
    return [
        {
            "vendor_id": f"V-{number}",
            "name": name,
            "billing_email": f"{rng.choice(['billing', 'accounts', 'ar'])}@{domain_for(name)}",
            "payment_terms": rng.choice(["net 30", "net 45"]),
        }
        for name, number in zip(names, numbers, strict=True)
    ]


def _target_invoice(ledger: Ledger, vendor: dict[str, Any], month: int, kind: str) -> None:
    """One of the target's invoices of the period, with the payments its ``kind`` calls for."""
    rng = ledger.rng
    amount = rng.randint(20_000, 900_000)
    invoice = ledger.invoice(vendor, month, "void" if kind == "void" else "open", amount)
    if kind == "paid":
        first = rng.choice([amount, rng.randint(amount // 4, amount * 3 // 4)])
        ledger.pay(invoice, vendor, first)
        if first < amount:
            ledger.pay(invoice, vendor, amount - first)
    elif kind == "disputed":
        paid = rng.randint(amount // 2, amount * 19 // 20)
        ledger.pay(invoice, vendor, paid)
        if rng.random() < 0.5:
            ledger.pay(invoice, vendor, amount - paid, status="pending")
    elif kind == "open" and rng.random() < 0.5:
        ledger.pay(invoice, vendor, amount, status="pending")


def _distractors(ledger: Ledger, vendors: list[dict[str, Any]], month: int) -> None:
    """Invoices the task must not touch: the look-alike vendor, other vendors, the target's past."""
    rng = ledger.rng
    lookalike, others = vendors[1], vendors[2:]
    for _ in range(2):
        amount = rng.randint(20_000, 600_000)
        ledger.pay(ledger.invoice(lookalike, month, "open", amount), lookalike, amount // 2)
    for vendor in others:
        amount = rng.randint(20_000, 600_000)
        status = rng.choice(["open", "paid"])
        invoice = ledger.invoice(vendor, month, status, amount)
        ledger.pay(invoice, vendor, amount if status == "paid" else rng.randint(amount // 3, amount - 1))
    for _ in range(2):
        amount = rng.randint(20_000, 600_000)
        ledger.pay(ledger.invoice(vendors[0], month - 1, "paid", amount), vendors[0], amount)


def _truth(ledger: Ledger, vendor: dict[str, Any], period: str) -> dict[str, Any]:
    """Reconcile the target's open invoices of the period by the prompt's rules."""
    outstanding, buckets = 0, {"paid": [], "disputed": [], "open": []}
    targets = [
        i
        for i in ledger.invoices
        if i["vendor_id"] == vendor["vendor_id"] and i["period"] == period and i["status"] == "open"
    ]
    for invoice in targets:
        amount = round(invoice["amount"] * 100)
        paid = sum(
            round(t["amount"] * 100)
            for t in ledger.transactions
            if t["reference"] == invoice["invoice_id"] and t["status"] == "posted"
        )
        outstanding += amount - paid
        kind = "open" if paid == 0 else "paid" if paid == amount else "disputed"
        buckets[kind].append(invoice["invoice_id"])
    ids = {i for bucket in buckets.values() for i in bucket}
    untouched = {i["invoice_id"]: i["status"] for i in ledger.invoices if i["invoice_id"] not in ids}
    return {
        "outstanding": money(outstanding),
        **buckets,
        "billing_email": vendor["billing_email"],
        "untouched": untouched,
    }


def _tools() -> list[ToolDef]:
    return [
        search_tool(
            "search_vendors",
            "Find vendors whose name contains the query. Returns vendor_id, name, billing_email, terms.",
            "erp",
            "vendors",
            ["name"],
        ),
        list_tool(
            "list_invoices",
            "List a vendor's invoices as summaries (invoice_id, period, invoice_date, status; no amounts).",
            "erp",
            "invoices",
            {"vendor_id": "the vendor's id", "period": "optional billing period, YYYY-MM"},
            ["vendor_id"],
            fields=["invoice_id", "vendor_id", "period", "invoice_date", "status"],
        ),
        get_tool(
            "get_invoice", "Get one invoice in full, including its amount.", "erp", "invoices", "invoice_id"
        ),
        search_tool(
            "search_bank_transactions",
            "Find bank transactions whose reference or memo contains the query (e.g. an invoice number).",
            "bank",
            "transactions",
            ["reference", "memo"],
        ),
        write_tool(
            "update",
            "update_invoice",
            "Set an invoice's status (paid or disputed), with an optional note.",
            "erp",
            "invoices",
            "invoice_id",
            {
                "invoice_id": string("the invoice number"),
                "status": string("the new status", ["paid", "disputed"]),
                "note": string("optional note for the audit trail"),
            },
            ["invoice_id", "status"],
        ),
        send_email_tool(),
    ]


def _prompt(vendor: str, period: str) -> str:
    return (
        f"Reconcile the open invoices of vendor {vendor} for billing period {period} against the bank. "
        "An invoice's payments are the bank transactions whose reference equals its invoice number and "
        "whose status is posted; pending transactions do not count, and one invoice may be paid in "
        "several transactions. For each open invoice of that vendor and period: if its payments add up to "
        "the invoice amount, set it to paid; if they add up to less, set it to disputed; if there are "
        "none, leave it open. Ignore void invoices, other periods and other vendors, including vendors "
        "whose names merely contain this one. Then send one email to the vendor's billing_email that "
        "lists every disputed invoice number.\n\n"
        + answer_format(
            "OUTSTANDING: <amount still owed on those invoices (unpaid amounts plus short-paid "
            "balances), two decimals>",
            "DISPUTED: <comma-separated disputed invoice numbers>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One reconciliation task with its own vendors, amounts and planted discrepancies."""
    month = rng.randint(2, 12)
    period = f"{YEAR}-{month:02d}"
    vendors = _vendors(rng)
    ledger = Ledger(rng, unique_ids(rng, "INV", 20), count(rng.randint(40_000, 80_000)), vendors)
    vendor = vendors[0]
    kinds = ["disputed"] * rng.randint(1, 2) + ["open"] * rng.randint(1, 2) + ["paid"] * rng.randint(2, 3)
    kinds.append("void")
    rng.shuffle(kinds)
    for kind in kinds:
        _target_invoice(ledger, vendor, month, kind)
    _distractors(ledger, vendors, month)
    ledger.invoices.sort(key=lambda i: i["invoice_id"])
    rng.shuffle(ledger.transactions)
    fixtures = {
        "erp": {"vendors": vendors, "invoices": ledger.invoices},
        "bank": {"transactions": ledger.transactions},
        "mail": {"outbox": []},
    }
    target = {"vendor": vendor["name"], "period": period}
    expected = _truth(ledger, vendor, period)
    return draft(FAMILY, index, _prompt(vendor["name"], period), _tools(), fixtures, target, expected)
